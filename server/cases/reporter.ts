/**
 * What the signed-in reporter changes on their own case (spec §4, §7): approve the
 * report of a phone or meeting case, comment on it, update identity and contact
 * details, ask for a password change. The case service (service.ts) reads cases
 * and adds messages; these are the reporter-only writes, sealed the same way.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Whistleblower, WhistleblowerUpdate } from '../../machines/schema.ts';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { COLUMNS, caseKey, type CaseRow } from './service.ts';

/** Approving and commenting are open only for a phone or meeting case not yet approved (spec §4). */
export function assertModifiable(row: Pick<CaseRow, 'submission_type' | 'approved_at'>): void {
  if (row.submission_type === 'ONLINE_FORM') {
    throw new HttpError(409, 'NOT_MODIFIABLE', 'A report sent through the online form is approved by sending it; it cannot be approved or commented on.');
  }
  if (row.approved_at) throw new HttpError(409, 'ALREADY_APPROVED', 'The report has already been approved.');
}

export async function approveCase(ctx: AppContext, row: CaseRow): Promise<void> {
  assertModifiable(row);
  // Approving before the handler wrote the record would freeze an empty record for good.
  if (row.report_enc === null) throw new HttpError(409, 'NO_RECORD_YET', 'There is no record of the report to approve yet.');
  // Only one approval wins, even with two tabs.
  const res = await ctx.db
    .updateTable('report_case')
    .set({ approved_at: sql<Date>`now()` })
    .where('id', '=', row.id)
    .where('approved_at', 'is', null)
    .where('report_enc', 'is not', null)
    .where('submission_type', '!=', 'ONLINE_FORM')
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) throw new HttpError(409, 'ALREADY_APPROVED', 'The report has already been approved.');
}

export async function addComment(ctx: AppContext, row: CaseRow, text: string): Promise<{ comment: string; created: string }> {
  assertModifiable(row);
  const key = await caseKey(ctx, row);
  const id = randomUUID();
  const now = new Date();
  await ctx.db
    .insertInto('case_comment')
    .values({ id, case_id: row.id, body_enc: ctx.crypto.seal(key, row.id, COLUMNS.comment, text, id), created_at: now })
    .execute();
  return { comment: text, created: now.toISOString() };
}

/**
 * Replaces the reporter's identity and contact details. A name once given stays
 * (the form shows it disabled, spec §5); notification by e-mail needs an e-mail.
 */
export async function updateWhistleblower(ctx: AppContext, row: CaseRow, input: WhistleblowerUpdate): Promise<Whistleblower> {
  const key = await caseKey(ctx, row);
  const current = row.whistleblower_enc ? ctx.crypto.openJson<Whistleblower>(key, row.id, COLUMNS.whistleblower, row.whistleblower_enc) : null;
  const email = input.email?.trim() || '';
  if (input.notification && !email) {
    throw new HttpError(400, 'VALIDATION', 'An e-mail address is needed to be notified.', 'email');
  }
  const next = {
    name: current?.name?.trim() ? current.name : input.name,
    email,
    phone: input.phone?.trim() || null,
    phoneCountryCode: input.phoneCountryCode ?? null,
    notification: !!input.notification,
  } as Whistleblower;
  await ctx.db
    .updateTable('report_case')
    .set({ whistleblower_enc: ctx.crypto.sealJson(key, row.id, COLUMNS.whistleblower, next) })
    .where('id', '=', row.id)
    .execute();
  return next;
}

/** Marks the follow account: the next sign-in asks for a new password before it completes. */
export async function requestPasswordChange(ctx: AppContext, caseId: string): Promise<void> {
  const res = await ctx.db.updateTable('case_account').set({ must_change_password: true }).where('case_id', '=', caseId).executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) throw new HttpError(401, 'UNAUTHORIZED', 'This case has no follow account any more.');
}
