/** A sealed case in the handler's workspace (issue 37): opening it in the browser, its parts that did not open, grants; imported only by src/handler. */
import { registerCatalogues } from '../index.ts';

registerCatalogues('sealed', import.meta.glob('./*.json', { import: 'default' }));
