/** A sealed case's files and notification in the private area (issue 37): opening and saving files, a file that did not open, the notification address sealed apart; imported only by src/private. */
import { registerCatalogues } from '../index.ts';

registerCatalogues('sealedPrivate', import.meta.glob('./*.json', { import: 'default' }));
