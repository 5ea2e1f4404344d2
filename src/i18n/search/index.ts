/** Registers the inbox search's catalogues (issue 38 Build 3: the search over opened content, the category and language columns). */
import { registerCatalogues, type Catalogue } from '../index.ts';

registerCatalogues('search', import.meta.glob<Catalogue>('./*.json', { import: 'default' }));
