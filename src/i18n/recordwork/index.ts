/** The handler's record editor beside others' work (issue 38): authors of versions, a save refused over another's version, editing after approval, the approved version's download. */
import { registerCatalogues } from '../index.ts';

registerCatalogues('recordwork', import.meta.glob('./*.json', { import: 'default' }));
