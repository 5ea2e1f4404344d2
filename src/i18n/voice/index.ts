/** Registers the voice recorder's catalogues (issue 40); imported only by the views that record or play voice messages. */
import { registerCatalogues, type Catalogue } from '../index.ts';

registerCatalogues('voice', import.meta.glob<Catalogue>('./*.json', { import: 'default' }));
