/** The statistics page (issue 37 Build 3): the statistics key, its making, counts per category opened in the browser; imported only by src/handler. */
import { registerCatalogues } from '../index.ts';

registerCatalogues('statistics', import.meta.glob('./*.json', { import: 'default' }));
