/** The case password asked for once in the private area after an external OpenID issuer's sign-in (issue 37); imported only by the private area. */
import { registerCatalogues } from '../index.ts';

registerCatalogues('unlock', import.meta.glob('./*.json', { import: 'default' }));
