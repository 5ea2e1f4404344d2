/** A sealed case's files, status and audit trail in the handler's workspace (issue 37); imported only by src/handler. */
import { registerCatalogues } from '../index.ts';

registerCatalogues('sealedwork', import.meta.glob('./*.json', { import: 'default' }));
