/** Model of the meeting report channel: see report.kit.ts for the projection walked. */
import { reportModel, reportModelWithCompany } from './report.kit.ts';

export default reportModel('meeting');
export const variants = [reportModelWithCompany('meeting')];
