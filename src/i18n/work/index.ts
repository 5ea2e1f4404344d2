/** Registers the catalogues of the handlers' everyday work (issue 38: assignment, inbox columns, audit details, enums in words); imported by the views that use them. */
import { registerCatalogues, type Catalogue } from '../index.ts';

registerCatalogues('work', import.meta.glob<Catalogue>('./*.json', { import: 'default' }));
