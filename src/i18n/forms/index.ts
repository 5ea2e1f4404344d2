/** Registers the report forms' catalogues; imported only by the lazily loaded forms. */
import { registerCatalogues, type Catalogue } from '../index.ts';

registerCatalogues('forms', import.meta.glob<Catalogue>('./*.json', { import: 'default' }));
