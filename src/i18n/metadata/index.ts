/** Registers the hidden-data checker's catalogues; imported only by the views that attach files. */
import { registerCatalogues, type Catalogue } from '../index.ts';

registerCatalogues('metadata', import.meta.glob<Catalogue>('./*.json', { import: 'default' }));
