/** Model of the oral report channel: see report.kit.ts for the projection walked. */
import { reportModel } from './report.kit.ts';

export default reportModel('oral');
