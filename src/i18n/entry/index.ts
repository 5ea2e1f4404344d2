/** Registers the catalogues of entering a report that came by letter, e-mail or in person (issue 38 Build 8); imported by the views that use them. */
import { registerCatalogues, type Catalogue } from '../index.ts';

registerCatalogues('entry', import.meta.glob<Catalogue>('./*.json', { import: 'default' }));
