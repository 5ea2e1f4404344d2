/** Model of the meeting report channel: see report.kit.ts for the projection walked. */
import { reportModel } from './report.kit.ts';

export default reportModel('meeting');
