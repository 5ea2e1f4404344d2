/** Registers the catalogues of a voice message's transcript (issue 40): the workspace's editor and the private area's review. */
import { registerCatalogues, type Catalogue } from '../index.ts';

registerCatalogues('transcript', import.meta.glob<Catalogue>('./*.json', { import: 'default' }));
