/** Revoking a colleague's access to a sealed case (issue 37): who holds the key, the confirmation, the revoked account's notice; imported only by src/handler. */
import { registerCatalogues } from '../index.ts';

registerCatalogues('revoke', import.meta.glob('./*.json', { import: 'default' }));
