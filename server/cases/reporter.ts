/**
 * What the signed-in reporter changes on their own case (spec §4, §7): approve the
 * report of a phone or meeting case, comment on it, update identity and contact
 * details, ask for a password change. The case service (service.ts) reads cases
 * and adds messages; these are the reporter-only writes, sealed the same way.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Language, Whistleblower, WhistleblowerUpdate } from '../../machines/schema.ts';
import { LANGUAGE_COLUMN } from '../mail/notify.ts';
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
export async function updateWhistleblower(ctx: AppContext, row: CaseRow, input: WhistleblowerUpdate, language?: Language | null): Promise<Whistleblower> {
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
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('report_case')
      .set({
        whistleblower_enc: ctx.crypto.sealJson(key, row.id, COLUMNS.whistleblower, next),
        // A case sent before languages were stored gets the language of this request.
        ...(!row.language_enc && language ? { language_enc: ctx.crypto.seal(key, row.id, LANGUAGE_COLUMN, language) } : {}),
      })
      .where('id', '=', row.id)
      .execute();
    // A waiting "news" mail was written to the old wish and address: it must not go.
    if (!next.notification || next.email !== current?.email) await trx.deleteFrom('mail_outbox').where('coalesce_key', '=', `news:${row.id}`).execute();
  });
  return next;
}

/** Marks the follow account: the next sign-in asks for a new password before it completes. */
export async function requestPasswordChange(ctx: AppContext, caseId: string): Promise<void> {
  const res = await ctx.db.updateTable('case_account').set({ must_change_password: true }).where('case_id', '=', caseId).executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) throw new HttpError(401, 'UNAUTHORIZED', 'This case has no follow account any more.');
}
