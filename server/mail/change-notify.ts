/**
 * The reporter changes the notification wish of a sealed case in the private area
 * (docs/decisions/sealed-reporter-pages.md "The notification address"): the page seals
 * the new address to the mail key (core/crypto `sealNotifyAddress`) and sends only that
 * box; the server checks its shape and key and puts it where the report form's goes
 * (`case_notify`, one row per case), or deletes the row when notification is turned off.
 *
 * Invariants:
 * - The server never opens the box here (only the mail worker does, at send time), and
 *   nothing of it is logged.
 * - A server-keyed case is refused (409 CASE_NOT_SEALED: its wish is in the identity,
 *   changed on the usual path), and so is a closed case (409 CASE_CLOSED: the close
 *   deleted the address, and a reopened case gets no more reporter mail).
 * - A news mail already queued for the case carries a copy of the old box; it is
 *   replaced in the same transaction (sealed to the mail key again, due when it was),
 *   or deleted when notification is turned off, so no mail goes to an address the
 *   reporter withdrew.
 */
import type { Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
import type { DB } from '../db/schema.ts';
import { HttpError } from '../errors.ts';
import { assertMailKey, parseNotifyBox } from '../cases/sealed.ts';
import { companyForMail } from './notify.ts';
import { asLanguage, portalUrl } from './messages.ts';
import { queueMail } from './outbox.ts';

type Row = { id: string; sealed: boolean; status: string; company_id: string };

const newsKey = (caseId: string) => `news:${caseId}`;

function assertChangeable(row: Row): void {
  if (!row.sealed) throw new HttpError(409, 'CASE_NOT_SEALED', 'This case is not sealed: change the notification wish with the identity on the usual path.');
  if (row.status === 'CLOSED') throw new HttpError(409, 'CASE_CLOSED', 'This case is closed: its notification address was deleted at the close, and no more mail goes.');
}

/** Takes out the news mail waiting for the case (its row holds the old box); answers when it was due, if there was one. */
async function takeQueuedNews(trx: Transaction<DB>, caseId: string): Promise<Date | null> {
  const queued = await trx.selectFrom('mail_outbox').select(['id', 'due_at']).where('case_id', '=', caseId).where('coalesce_key', '=', newsKey(caseId)).executeTakeFirst();
  if (!queued) return null;
  await trx.deleteFrom('mail_outbox').where('id', '=', queued.id).execute();
  return new Date(queued.due_at);
}

/** Notification on, to the address sealed in `notify` (it replaces any stored one). */
export async function storeSealedNotify(ctx: AppContext, row: Row, notify: { keyId: string; box: string }): Promise<void> {
  assertChangeable(row);
  const box = parseNotifyBox(notify.box);
  const mailKeyId = assertMailKey(notify.keyId, (await ctx.mailKeys.publicKey()).keyId);
  await ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock.now();
    await trx
      .insertInto('case_notify')
      .values({ case_id: row.id, mail_key_id: mailKeyId, box, created_at: now })
      .onConflict((oc) => oc.column('case_id').doUpdateSet({ mail_key_id: mailKeyId, box, created_at: now }))
      .execute();
    const due = await takeQueuedNews(trx, row.id);
    if (!due) return;
    const company = await companyForMail(trx, row.company_id);
    await queueMail(ctx, trx, {
      caseId: row.id,
      key: null,
      coalesceKey: newsKey(row.id),
      mail: { reporterNews: { notify: box.toString('base64'), company, portal: portalUrl(ctx.config, company), fallbackLanguage: asLanguage(company.defaultLanguage, 'en') } },
      dueAt: due,
    });
  });
}

/** Notification off: the stored address and any news mail waiting with a copy of it are deleted. */
export async function deleteSealedNotify(ctx: AppContext, row: Row): Promise<void> {
  assertChangeable(row);
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('case_notify').where('case_id', '=', row.id).execute();
    await takeQueuedNews(trx, row.id);
  });
}
