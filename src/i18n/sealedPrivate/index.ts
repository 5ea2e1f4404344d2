/** A sealed case's files and identity in the private area (issue 37): opening and saving files, a file that did not open, what a sealed case cannot change yet; imported only by src/private. */
import { registerCatalogues } from '../index.ts';

registerCatalogues('sealedPrivate', import.meta.glob('./*.json', { import: 'default' }));
