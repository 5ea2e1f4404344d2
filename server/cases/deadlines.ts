/**
 * The Directive's clocks, as the server reads them: the rule itself lives in the
 * shared schema module (machines/schema.ts `legalClocks`), so the reporter's status
 * page, the handlers' inbox and the reminder mails agree to the millisecond.
 */
export { addMonthsUtc, legalClocks as caseClocks, type LegalClocks as CaseClocks } from '../../machines/schema.ts';

export const DAY_MS = 24 * 3600 * 1000;
