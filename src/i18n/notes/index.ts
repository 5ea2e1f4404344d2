/** Registers the catalogues of the internal notes (issue 38 Build 1, docs/decisions/internal-notes.md); imported by the views that use them. */
import { registerCatalogues, type Catalogue } from '../index.ts';

registerCatalogues('notes', import.meta.glob<Catalogue>('./*.json', { import: 'default' }));
