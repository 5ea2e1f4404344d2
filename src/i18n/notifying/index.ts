/** The report form's words on a notification address sealed to the mail key (issue 37); imported only by lazily loaded form code. */
import { registerCatalogues, type Catalogue } from '../index.ts';

registerCatalogues('notifying', import.meta.glob<Catalogue>('./*.json', { import: 'default' }));
