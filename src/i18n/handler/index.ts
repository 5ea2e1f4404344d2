/** The handlers' workspace catalogues; imported only by src/handler (its own build). */
import { registerCatalogues } from '../index.ts';

registerCatalogues('handler', import.meta.glob('./*.json', { import: 'default' }));
