/** Registers the company editor's catalogues (src/handler/admin); imported only by its lazily loaded page. */
import { registerCatalogues, type Catalogue } from '../index.ts';

registerCatalogues('company', import.meta.glob<Catalogue>('./*.json', { import: 'default' }));
