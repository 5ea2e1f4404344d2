/** Reply templates (issue 38 Build 7): the administrator's screen and the composer's picker; imported only by src/handler. */
import { registerCatalogues } from '../index.ts';

registerCatalogues('templates', import.meta.glob('./*.json', { import: 'default' }));
