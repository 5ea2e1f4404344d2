/** Registers the catalogues of the paged lists (the handler inbox's "more"); imported by the views that page. */
import { registerCatalogues, type Catalogue } from '../index.ts';

registerCatalogues('paging', import.meta.glob<Catalogue>('./*.json', { import: 'default' }));
