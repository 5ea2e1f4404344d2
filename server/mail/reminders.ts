/**
 * Deadline reminders for handlers: for every case not closed, each clock not yet
 * met (server/cases/deadlines.ts) gets one mail two days before it runs out and one
 * when it has passed, to the handlers whom the case concerns. `deadline_reminder`
 * records what was queued (case, reminder, due date), in the same transaction as
 * the mails, so each reminder is queued once; a clock that moves (an early
 * acknowledgement moves the feedback date) gets reminders for its new date.
 */
import type { AppContext } from '../context.ts';
import type { Job } from '../jobs/runner.ts';
import { DAY_MS, caseClocks } from '../cases/deadlines.ts';
import { asLanguage, deadlineMail, portalUrl, type Deadline, type DeadlineStage } from './messages.ts';
import { companyForMail, handlersOfCase } from './notify.ts';
import { queueMail } from './outbox.ts';

/** How long before a deadline the first reminder goes. */
export const REMIND_BEFORE_MS = 2 * DAY_MS;

const toDate = (d: Date | string | null | undefined) => (d ? new Date(d) : null);

export async function queueDeadlineReminders(ctx: AppContext, now: Date): Promise<number> {
  if (!ctx.mailer.enabled) return 0;
  const rows = await ctx.db
    .selectFrom('report_case as c')
    .select((eb) => [
      'c.id',
      'c.company_id',
      'c.protection_officer_id',
      'c.wrapped_key',
      eb.selectFrom('case_status_event as e').select((e) => e.fn.min('e.at').as('m')).whereRef('e.case_id', '=', 'c.id').where('e.status', '=', 'RECEIVED').as('received_at'),
      // A feedback message acknowledges receipt too (as the handlers' inbox reads it).
      eb.selectFrom('case_message as m').select((e) => e.fn.min('m.created_at').as('m')).whereRef('m.case_id', '=', 'c.id').where('m.type', 'in', ['CONFIRMATION', 'FEEDBACK']).as('ack_at'),
      eb.selectFrom('case_message as m').select((e) => e.fn.min('m.created_at').as('m')).whereRef('m.case_id', '=', 'c.id').where('m.type', '=', 'FEEDBACK').as('feedback_at'),
    ])
    .where('c.status', '!=', 'CLOSED')
    .execute();
  let queued = 0;
  for (const row of rows) {
    const clocks = caseClocks(toDate(row.received_at), toDate(row.ack_at), toDate(row.feedback_at));
    if (!clocks) continue;
    for (const deadline of ['acknowledgement', 'feedback'] as Deadline[]) {
      const clock = clocks[deadline];
      if (clock.metAt) continue;
      const stage: DeadlineStage | null = now >= clock.due ? 'passed' : now.getTime() >= clock.due.getTime() - REMIND_BEFORE_MS ? 'soon' : null;
      if (!stage) continue;
      await ctx.db.transaction().execute(async (trx) => {
        const reminder = `${deadline}.${stage}`;
        const res = await trx
          .insertInto('deadline_reminder')
          .values({ case_id: row.id, reminder, due_at: clock.due, queued_at: now })
          .onConflict((oc) => oc.columns(['case_id', 'reminder', 'due_at']).doNothing())
          .executeTakeFirst();
        if (Number(res.numInsertedOrUpdatedRows ?? 0) === 0) return;
        const company = await companyForMail(trx, row.company_id);
        const portal = portalUrl(ctx.config, company);
        // A sealed case's reminder needs no key of the case: its row is sealed to the mail key.
        const key = row.wrapped_key ? await ctx.caseKeys.unwrap(row.id, row.wrapped_key) : null;
        for (const h of await handlersOfCase(trx, row)) {
          const mail = deadlineMail(stage, deadline, asLanguage(company.defaultLanguage, 'en'), h.email, clock.due, portal);
          if (await queueMail(ctx, trx, { caseId: row.id, key, coalesceKey: `${reminder}:${row.id}:${clock.due.toISOString()}:${h.id}`, mail, dueAt: now })) queued++;
        }
      });
    }
  }
  return queued;
}

export const DEADLINE_JOB = 'deadline-reminders';

export const deadlineJob: Job = {
  name: DEADLINE_JOB,
  intervalMs: 15 * 60_000,
  run: async (ctx, now) => {
    const queued = await queueDeadlineReminders(ctx, now);
    if (queued) ctx.log.info({ queued }, 'deadline reminders queued');
  },
};
