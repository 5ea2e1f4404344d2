/** Model of the online report channel: see report.kit.ts for the projection walked. */
import { reportModel, reportModelWithCompany } from './report.kit.ts';

export default reportModel('online');
export const variants = [reportModelWithCompany('online')];
