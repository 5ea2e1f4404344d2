/** The record of an oral report on a sealed case (issue 37): both sides' words on a version that did not open or whose SHA-256 does not match; imported by src/handler and src/private. */
import { registerCatalogues } from '../index.ts';

registerCatalogues('record', import.meta.glob('./*.json', { import: 'default' }));
