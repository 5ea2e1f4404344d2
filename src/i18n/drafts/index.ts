/** Registers the catalogues of drafts kept on the handler's device (issue 38 Build 5); imported by the views that use them. */
import { registerCatalogues, type Catalogue } from '../index.ts';

registerCatalogues('drafts', import.meta.glob<Catalogue>('./*.json', { import: 'default' }));
