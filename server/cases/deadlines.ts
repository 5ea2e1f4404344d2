/**
 * The Directive's clocks (2019/1937 art. 9(1)(b) and (f)), the same reading as the
 * reporter's status page (src/private/caseView.ts `legalClocks`): acknowledgement
 * within 7 days of receipt (the first RECEIVED event); feedback within 3 months of
 * the acknowledgement or, without one in time, of the end of those 7 days.
 * Acknowledgement is met by the first CONFIRMATION (or FEEDBACK) message,
 * feedback by the first FEEDBACK message. A case without a RECEIVED event has no clock yet.
 */
export const DAY_MS = 24 * 3600 * 1000;

export function addMonthsUtc(d: Date, months: number): Date {
  const out = new Date(d.getTime());
  const day = out.getUTCDate();
  out.setUTCMonth(out.getUTCMonth() + months);
  // 31 Jan + 1 month: the last day of February, not 3 March.
  if (out.getUTCDate() < day) out.setUTCDate(0);
  return out;
}

export interface CaseClocks {
  acknowledgement: { due: Date; metAt: Date | null };
  feedback: { due: Date; metAt: Date | null };
}

export function caseClocks(receivedAt: Date | null, acknowledgedAt: Date | null, feedbackAt: Date | null): CaseClocks | null {
  if (!receivedAt) return null;
  const ackDue = new Date(receivedAt.getTime() + 7 * DAY_MS);
  const feedbackDue = addMonthsUtc(acknowledgedAt && acknowledgedAt < ackDue ? acknowledgedAt : ackDue, 3);
  return { acknowledgement: { due: ackDue, metAt: acknowledgedAt }, feedback: { due: feedbackDue, metAt: feedbackAt } };
}
