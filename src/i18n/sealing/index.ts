/** Sealed cases on the reporter's pages (issue 37): the form's key refusal, the private area's unopened parts; imported only by lazily loaded reporter code. */
import { registerCatalogues } from '../index.ts';

registerCatalogues('sealing', import.meta.glob('./*.json', { import: 'default' }));
