/**
 * The durable outbox (migration 0020). A mail is queued in the transaction of the
 * event that causes it, so it exists exactly when the event does; the `mail` job
 * sends what is due, deletes each row once the SMTP server has taken it, and on
 * failure tries again with back-off (1 min doubling up to 1 h) for up to seven days.
 *
 * Once only: the job runner lets one process at a time run the job (an advisory
 * lock on PostgreSQL), and a row is deleted right after the server accepted it. A
 * crash between the SMTP server's "250 OK" and the delete sends that one mail again
 * at the next run; no mail is ever lost to a crash or an outage.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
import type { DB } from '../db/schema.ts';
import type { Job } from '../jobs/runner.ts';
import { describeSmtpError, type OutgoingMail } from './transport.ts';
import { asLanguage, reporterNewsMail, type MailCompany } from './messages.ts';
import { fromBase64, utf8 } from '../../core/crypto/index.ts';

export const OUTBOX_COLUMN = 'mail_outbox.message_enc';
const MINUTE = 60_000;
export const BACKOFF_MAX_MS = 60 * MINUTE;
export const GIVE_UP_AFTER_MS = 7 * 24 * 60 * MINUTE;
const BATCH = 50;

/**
 * What an outbox row of a sealed case holds, sealed to the mail key (the server has no
 * key of the case): a rendered mail to a handler, or the reporter's news, rendered only
 * at send time because its address and language are in the notify box that only the
 * worker opens (docs/decisions/sealed-migration.md "Mail for sealed cases").
 */
export type SealedOutboxItem =
  | { mail: OutgoingMail }
  | { reporterNews: { notify: string; company: MailCompany; portal: string; fallbackLanguage: string } };

export interface QueueMail {
  caseId: string;
  /** The case's data key: the whole mail is sealed with it; null for a sealed case, whose row is sealed to the mail key. */
  key: Uint8Array | null;
  /** At most one waiting mail per key; a second queueing adds nothing. */
  coalesceKey: string;
  mail: OutgoingMail | SealedOutboxItem;
  dueAt: Date;
}

/** The purpose an outbox row's box names (core/crypto/mail.ts): bound to its row. */
export const outboxPurpose = (id: string) => `outbox:${id}`;

/** Queues a mail in the caller's transaction; false when one with the same key already waits (or mail is off). */
export async function queueMail(ctx: AppContext, trx: Transaction<DB> | Kysely<DB>, q: QueueMail): Promise<boolean> {
  if (!ctx.mailer.enabled) return false;
  const id = randomUUID();
  const message = q.key
    ? ctx.crypto.sealJson(q.key, q.caseId, OUTBOX_COLUMN, q.mail, id)
    : await ctx.mailKeys.seal(q.caseId, outboxPurpose(id), utf8(JSON.stringify('to' in q.mail ? { mail: q.mail } : q.mail)));
  const res = await trx
    .insertInto('mail_outbox')
    .values({
      id,
      case_id: q.caseId,
      coalesce_key: q.coalesceKey,
      message_enc: message,
      due_at: q.dueAt,
      created_at: ctx.clock.now(),
    })
    .onConflict((oc) => oc.column('coalesce_key').doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
}

export function backoffMs(attempts: number): number {
  return Math.min(MINUTE * 2 ** Math.max(0, attempts - 1), BACKOFF_MAX_MS);
}

/** Connection-level failures: the server is away, so the rest of this round would fail too. */
function isOutage(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return ['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED'].includes(code) || !(err as { responseCode?: number }).responseCode;
}

/** Sends every mail that is due; answers how many were sent. */
export async function sendDueMail(ctx: AppContext, now: Date): Promise<number> {
  let sent = 0;
  for (;;) {
    const rows = await ctx.db
      .selectFrom('mail_outbox')
      .innerJoin('report_case', 'report_case.id', 'mail_outbox.case_id')
      .select(['mail_outbox.id', 'mail_outbox.case_id', 'mail_outbox.message_enc', 'mail_outbox.attempts', 'mail_outbox.created_at', 'report_case.wrapped_key', 'report_case.sealed'])
      .where('mail_outbox.due_at', '<=', now)
      .orderBy('mail_outbox.due_at')
      .limit(BATCH)
      .execute();
    if (!rows.length) return sent;
    for (const row of rows) {
      let mail: OutgoingMail;
      try {
        mail = row.sealed ? await openSealedItem(ctx, row.case_id, row.id, row.message_enc) : ctx.crypto.openJson<OutgoingMail>(await ctx.caseKeys.unwrap(row.case_id, row.wrapped_key), row.case_id, OUTBOX_COLUMN, row.message_enc, row.id);
      } catch {
        ctx.log.error({ mail: row.id }, 'mail: cannot open a queued mail; dropped');
        ctx.metrics?.mailFailed('unreadable');
        await ctx.db.deleteFrom('mail_outbox').where('id', '=', row.id).execute();
        continue;
      }
      try {
        await ctx.mailer.send(mail);
      } catch (err) {
        const attempts = row.attempts + 1;
        const reason = describeSmtpError(err);
        const responseCode = (err as { responseCode?: number }).responseCode ?? 0;
        const permanent = responseCode >= 500 && responseCode < 600;
        if (permanent || now.getTime() - new Date(row.created_at).getTime() > GIVE_UP_AFTER_MS) {
          ctx.log.warn({ mail: row.id, attempts, reason }, 'mail: given up');
          ctx.metrics?.mailFailed('given_up');
          await ctx.db.deleteFrom('mail_outbox').where('id', '=', row.id).execute();
          continue;
        }
        ctx.metrics?.mailFailed('retry');
        await ctx.db
          .updateTable('mail_outbox')
          .set({ attempts, last_error: reason, due_at: new Date(now.getTime() + backoffMs(attempts)) })
          .where('id', '=', row.id)
          .execute();
        if (isOutage(err)) {
          ctx.log.warn({ attempts, reason }, 'mail: SMTP server unavailable; trying again later');
          return sent;
        }
        continue;
      }
      await ctx.db.deleteFrom('mail_outbox').where('id', '=', row.id).execute();
      ctx.metrics?.mailSent();
      sent++;
    }
    if (rows.length < BATCH) return sent;
  }
}

/** A sealed case's row: the mail, the reporter's address opened from its notify box here and only here. */
async function openSealedItem(ctx: AppContext, caseId: string, id: string, box: Uint8Array): Promise<OutgoingMail> {
  const item = JSON.parse(new TextDecoder().decode(await ctx.mailKeys.open(caseId, outboxPurpose(id), box))) as SealedOutboxItem;
  if ('mail' in item) return item.mail;
  const n = item.reporterNews;
  const to = await ctx.mailKeys.openNotify(caseId, fromBase64(n.notify));
  return reporterNewsMail(asLanguage(to.language, asLanguage(n.fallbackLanguage, 'en')), to.address, n.company, n.portal);
}

export const MAIL_JOB = 'mail';

export const mailJob: Job = {
  name: MAIL_JOB,
  intervalMs: 10_000,
  run: async (ctx, now) => {
    if (!ctx.mailer.enabled) return;
    const sent = await sendDueMail(ctx, now);
    if (sent) ctx.log.info({ sent }, 'mail: sent');
  },
};
