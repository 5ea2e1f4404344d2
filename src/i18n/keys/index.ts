/** The handler's keys (issue 37): enrolment's key recovery code, unlocking, the key log; imported only by src/handler. */
import { registerCatalogues } from '../index.ts';

registerCatalogues('keys', import.meta.glob('./*.json', { import: 'default' }));
