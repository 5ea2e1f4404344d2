/**
 * What a case event puts in the outbox, called inside the event's own transaction
 * (server/cases/service.ts), so the mail exists exactly when the event does.
 *
 * - News for the reporter (a handler's message, a status change, a recorded report,
 *   an answer asked for): one "There is news in your case" per case and batch
 *   window (MAIL_BATCH_SECONDS): further news while one waits adds nothing. Only
 *   when the reporter asked for it (identity `notification` with an e-mail) and can
 *   still sign in (the follow account exists).
 * - A new case, and a reporter's message: to every handler of the company with an
 *   e-mail whom the case concerns (no `handler_officer` rows, or one naming the
 *   case's officer). Messages are batched per handler and case like the reporter's news.
 *
 * A sealed case (docs/decisions/sealed-migration.md "Mail for sealed cases") gets the same
 * mails: none holds content, so none needs the case's key. Its rows are sealed to the
 * mail key instead; the reporter's news goes when the case has a notification address
 * (`case_notify`, sealed to the mail key in the reporter's browser), which the row
 * carries as that box, opened by the mail worker at send time only.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Whistleblower } from '../../machines/schema.ts';
import type { AppContext } from '../context.ts';
import type { DB } from '../db/schema.ts';
import { COLUMNS } from '../cases/service.ts';
import { asLanguage, handlerCaseMail, portalUrl, reporterNewsMail, type MailCompany } from './messages.ts';
import { queueMail } from './outbox.ts';

export const LANGUAGE_COLUMN = 'report_case.language_enc';

export type CaseEvent = 'created' | 'reporterMessage' | 'reporterNews';

type Db = Transaction<DB> | Kysely<DB>;

export async function companyForMail(db: Db, companyId: string): Promise<MailCompany> {
  const row = await db.selectFrom('company').select(['name', 'default_language', 'settings']).where('id', '=', companyId).executeTakeFirstOrThrow();
  const settings = row.settings as { hosts?: string[] };
  return { name: row.name, defaultLanguage: row.default_language, hosts: settings.hosts ?? [] };
}

/** The handlers of the case's company with an e-mail whom the case concerns (handler_officer ties). */
export async function handlersOfCase(db: Db, c: { company_id: string; protection_officer_id: string }): Promise<{ id: string; email: string }[]> {
  const rows = await db
    .selectFrom('handler_account as h')
    .select(['h.id', 'h.email'])
    .where('h.company_id', '=', c.company_id)
    .where('h.email', 'is not', null)
    .where((eb) =>
      eb.or([
        eb.not(eb.exists(eb.selectFrom('handler_officer as o').select('o.officer_id').whereRef('o.handler_id', '=', 'h.id'))),
        eb.exists(eb.selectFrom('handler_officer as o').select('o.officer_id').whereRef('o.handler_id', '=', 'h.id').where('o.officer_id', '=', c.protection_officer_id)),
      ]),
    )
    .orderBy('h.id')
    .execute();
  return rows.filter((r): r is { id: string; email: string } => !!r.email);
}

export async function onCaseEvent(ctx: AppContext, trx: Db, caseId: string, event: CaseEvent): Promise<void> {
  if (!ctx.mailer.enabled) return;
  const row = await trx
    .selectFrom('report_case')
    .select(['id', 'company_id', 'protection_officer_id', 'wrapped_key', 'sealed', 'whistleblower_enc', 'language_enc'])
    .where('id', '=', caseId)
    .executeTakeFirst();
  if (!row) return;
  // A sealed case: no key of its own here; its rows are sealed to the mail key (queueMail with key null).
  const key = row.sealed ? null : await ctx.caseKeys.unwrap(row.id, row.wrapped_key);
  const company = await companyForMail(trx, row.company_id);
  const portal = portalUrl(ctx.config, company);
  const now = ctx.clock.now();
  const companyLanguage = asLanguage(company.defaultLanguage, 'en');

  if (event === 'reporterNews' && !key) {
    const notify = await trx.selectFrom('case_notify').select('box').where('case_id', '=', row.id).executeTakeFirst();
    if (!notify) return;
    const account = await trx.selectFrom('case_account').select('case_id').where('case_id', '=', row.id).executeTakeFirst();
    if (!account) return;
    await queueMail(ctx, trx, {
      caseId: row.id,
      key: null,
      coalesceKey: `news:${row.id}`,
      mail: { reporterNews: { notify: Buffer.from(notify.box).toString('base64'), company, portal, fallbackLanguage: companyLanguage } },
      dueAt: new Date(now.getTime() + ctx.config.mailBatchMs),
    });
    return;
  }

  if (event === 'reporterNews' && key) {
    if (!row.whistleblower_enc) return;
    const who = ctx.crypto.openJson<Whistleblower>(key, row.id, COLUMNS.whistleblower, row.whistleblower_enc);
    if (!who.notification || !who.email) return;
    const account = await trx.selectFrom('case_account').select('case_id').where('case_id', '=', row.id).executeTakeFirst();
    if (!account) return;
    const language = asLanguage(row.language_enc ? ctx.crypto.open(key, row.id, LANGUAGE_COLUMN, row.language_enc).toString('utf8') : null, companyLanguage);
    await queueMail(ctx, trx, {
      caseId: row.id,
      key,
      coalesceKey: `news:${row.id}`,
      mail: reporterNewsMail(language, who.email, company, portal),
      dueAt: new Date(now.getTime() + ctx.config.mailBatchMs),
    });
    return;
  }

  const kind = event === 'created' ? 'newCase' : 'newMessage';
  for (const h of await handlersOfCase(trx, row)) {
    await queueMail(ctx, trx, {
      caseId: row.id,
      key,
      coalesceKey: `${kind}:${row.id}:${h.id}`,
      mail: handlerCaseMail(kind, companyLanguage, h.email, portal),
      dueAt: event === 'created' ? now : new Date(now.getTime() + ctx.config.mailBatchMs),
    });
  }
}
