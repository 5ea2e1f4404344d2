/** Model of the oral report channel: see report.kit.ts for the projection walked. */
import { reportModel, reportModelWithCompany } from './report.kit.ts';

export default reportModel('oral');
export const variants = [reportModelWithCompany('oral')];
