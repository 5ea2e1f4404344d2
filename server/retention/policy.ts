/**
 * When a case is due for deletion (issue 15; docs/decisions/mail-and-retention.md):
 * - a CLOSED case: `closedCaseMonths` after it was (last) closed;
 * - a phone or meeting case still PENDING_WHISTLEBLOWER_CONTACT (the reporter never
 *   made contact, so there is no report): `unconfirmedCaseDays` after it was made;
 * - any other case: not scheduled (still being handled).
 * The company file may set both within limits (server/companies/format.ts).
 */
import { RETENTION_DEFAULTS } from '../companies/format.ts';
import { DAY_MS, addMonthsUtc } from '../cases/deadlines.ts';

export interface Retention {
  closedCaseMonths: number;
  unconfirmedCaseDays: number;
}

export type DeletionReason = 'CLOSED' | 'UNCONFIRMED';

export function retentionOf(settings: unknown): Retention {
  const r = (settings as { retention?: Partial<Retention> } | null)?.retention ?? {};
  return {
    closedCaseMonths: r.closedCaseMonths ?? RETENTION_DEFAULTS.closedCaseMonths,
    unconfirmedCaseDays: r.unconfirmedCaseDays ?? RETENTION_DEFAULTS.unconfirmedCaseDays,
  };
}

export interface RetentionFacts {
  status: string;
  submissionType: string;
  createdAt: Date;
  /** The latest CLOSED event, when the case is closed. */
  closedAt: Date | null;
}

export function scheduledDeletion(c: RetentionFacts, r: Retention): { at: Date; reason: DeletionReason } | null {
  if (c.status === 'CLOSED' && c.closedAt) return { at: addMonthsUtc(c.closedAt, r.closedCaseMonths), reason: 'CLOSED' };
  if (c.status === 'PENDING_WHISTLEBLOWER_CONTACT' && c.submissionType !== 'ONLINE_FORM') {
    return { at: new Date(c.createdAt.getTime() + r.unconfirmedCaseDays * DAY_MS), reason: 'UNCONFIRMED' };
  }
  return null;
}
