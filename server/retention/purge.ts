/**
 * Deletes the cases whose retention period has ended (server/retention/policy.ts):
 * the scheduled `retention` job in the server and `npm run cases -- purge`.
 *
 * Per case, in one transaction: a deletion record (keyed hash of the case number,
 * channel, dates; no personal data), the provider's sessions and grants of the
 * reporter's account, then the case row, which takes with it (on delete cascade)
 * its status history, messages, file rows, comments, follow account, queued mails,
 * reminders and its wrapped data key. The encrypted files are removed from disk
 * after the commit: a file whose removal fails (logged) is unreadable anyway, since
 * the only copy of its key is gone.
 *
 * Then the space is given back (reclaimSpace): VACUUM of each table the deletions
 * touched, one statement per table, and a CHECKPOINT.
 *
 * On PGlite every statement holds the one connection, and runs inside this process's
 * event loop: a request waits for whatever statement is running. So the purge is a
 * string of short statements (a page of candidates, one case's transaction, one
 * table's VACUUM), and before each it lets the requests in flight finish first, for at
 * most QUIET_WAIT_MS (so the job still ends when requests never stop). A request then
 * waits for at most the one purge statement that was running when it came
 * (docs/decisions/scale.md, "The purge").
 */
import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import type { AppContext } from '../context.ts';
import type { Job } from '../jobs/runner.ts';
import { retentionOf, scheduledDeletion, type DeletionReason } from './policy.ts';

/** What purging needs: the database, the file store, the log and the deletion records' key (the CLI builds it without a server). */
export type PurgeContext = Pick<AppContext, 'db' | 'files' | 'recordKey' | 'endSignIns' | 'requestsInFlight'> & {
  caseKeys: Pick<AppContext['caseKeys'], 'destroy' | 'listOlderThan'>;
  log: { error(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** `now` for the sweep of orphaned case keys (the server's clock; a test may move it). */
  clock?: AppContext['clock'];
};

export interface DueCase {
  caseId: string;
  caseNumber: string;
  companyId: string;
  submissionType: string;
  reason: DeletionReason;
  dueAt: string;
  files: number;
}

/** The deletion record's key: HMAC-SHA256 of the case number under a key derived from the pepper. */
export function caseNumberHash(recordKey: Buffer, caseNumber: string): string {
  return createHmac('sha256', recordKey).update(caseNumber).digest('hex');
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/** Candidates read per statement: one page is a short read even at 100,000 cases. */
export const DUE_PAGE = 500;

export async function dueCases(ctx: PurgeContext, now: Date): Promise<DueCase[]> {
  // The candidates without their company's settings: joined, each row carried its
  // company's whole settings document (tens of kB), so a year of closed cases moved
  // gigabytes to read a few numbers. The retention rules are read once per company.
  // Paged by id (the primary key's index), so that no one read holds the embedded
  // database's connection for the whole table; the list is put in creation order after.
  const rows: { id: string; case_number: string; company_id: string; status: string; submission_type: string; created_at: Date | string; closed_at: unknown; files: unknown }[] = [];
  let after: string | null = null;
  for (;;) {
    await quietMoment(ctx);
    const page = await ctx.db
      .selectFrom('report_case as c')
      .select((eb) => [
        'c.id',
        'c.case_number',
        'c.company_id',
        'c.status',
        'c.submission_type',
        'c.created_at',
        eb.selectFrom('case_status_event as e').select((e) => e.fn.max('e.at').as('m')).whereRef('e.case_id', '=', 'c.id').where('e.status', '=', 'CLOSED').as('closed_at'),
        eb.selectFrom('case_file as f').select((e) => e.fn.countAll().as('n')).whereRef('f.case_id', '=', 'c.id').as('files'),
      ])
      .where((eb) => eb.or([eb('c.status', '=', 'CLOSED'), eb.and([eb('c.status', '=', 'PENDING_WHISTLEBLOWER_CONTACT'), eb('c.submission_type', '!=', 'ONLINE_FORM')])]))
      .$if(after !== null, (q) => q.where('c.id', '>', after!))
      .orderBy('c.id')
      .limit(DUE_PAGE)
      .execute();
    rows.push(...page);
    if (page.length < DUE_PAGE) break;
    after = page.at(-1)!.id;
  }
  rows.sort((x, y) => new Date(x.created_at).getTime() - new Date(y.created_at).getTime() || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  const companyIds = [...new Set(rows.map((r) => r.company_id))];
  const retention = new Map<string, ReturnType<typeof retentionOf>>();
  for (let i = 0; i < companyIds.length; i += 500) {
    const batch = companyIds.slice(i, i + 500);
    await quietMoment(ctx);
    const companies = await ctx.db
      .selectFrom('company')
      .select(['id', sql<unknown>`settings->'retention'`.as('retention')])
      .where('id', 'in', batch)
      .execute();
    for (const c of companies) retention.set(c.id, retentionOf(c.retention ? { retention: typeof c.retention === 'string' ? JSON.parse(c.retention) : c.retention } : null));
  }
  const out: DueCase[] = [];
  for (const r of rows) {
    const due = scheduledDeletion(
      { status: r.status, submissionType: r.submission_type, createdAt: new Date(r.created_at), closedAt: r.closed_at ? new Date(r.closed_at as string) : null },
      retention.get(r.company_id) ?? retentionOf(null),
    );
    if (due && due.at <= now) {
      out.push({ caseId: r.id, caseNumber: r.case_number, companyId: r.company_id, submissionType: r.submission_type, reason: due.reason, dueAt: due.at.toISOString(), files: Number(r.files ?? 0) });
    }
  }
  return out;
}

/** Deletes one case as described above; false when it was already gone. */
export async function deleteCase(ctx: PurgeContext, caseId: string, reason: DeletionReason, now: Date): Promise<boolean> {
  const storageKeys = await ctx.db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('report_case').selectAll().where('id', '=', caseId).forUpdate().executeTakeFirst();
    if (!row) return null;
    const closed = await trx.selectFrom('case_status_event').select((e) => e.fn.max('at').as('m')).where('case_id', '=', caseId).where('status', '=', 'CLOSED').executeTakeFirst();
    const files = await trx.selectFrom('case_file').select('storage_key').where('case_id', '=', caseId).execute();
    // Unfinished uploads for a message of this case (migration 0135): their rows go
    // with the case (foreign key), their bytes below.
    const uploads = await trx
      .selectFrom('file_upload')
      .innerJoin('upload_session', 'upload_session.id', 'file_upload.session_id')
      .select('file_upload.id')
      .where('upload_session.bound_case_id', '=', caseId)
      .execute();
    await trx
      .insertInto('case_deletion')
      .values({
        company_id: row.company_id,
        case_number_hash: caseNumberHash(ctx.recordKey, row.case_number),
        submission_type: row.submission_type,
        creation_channel: row.creation_channel,
        reason,
        created_on: day(new Date(row.created_at)),
        closed_on: closed?.m ? day(new Date(closed.m)) : null,
        deleted_at: now,
      })
      .onConflict((oc) => oc.column('case_number_hash').doNothing())
      .execute();
    // The reporter's sign-ins: sessions, grants, codes and refresh tokens of the
    // account. The provider's rows are found only by the keyed hash of the account
    // (server/idp/adapter.ts), so this needs the provider's key: the server supplies
    // it; a CLI purge without a running server leaves the sealed rows to expire,
    // useless once the account they name is gone.
    if (ctx.endSignIns) await ctx.endSignIns(trx, caseId);
    await trx.deleteFrom('report_case').where('id', '=', caseId).execute();
    return { files: files.map((f) => f.storage_key), uploads: uploads.map((u) => u.id) };
  });
  if (!storageKeys) return false;
  // The only thing that opens the wrapped data key, which the database may keep in
  // dead pages and its write-ahead log: once it is gone, so is the case
  // (server/crypto/case-keys.ts). A crash before this line leaves it to the sweep.
  await ctx.caseKeys.destroy(caseId);
  for (const key of storageKeys.files) {
    try {
      await ctx.files.delete(key);
    } catch (err) {
      ctx.log.error({ err: { message: (err as Error).message } }, 'retention: could not remove a file of a deleted case');
    }
  }
  for (const key of storageKeys.uploads) {
    try {
      await ctx.files.discardUpload(key);
    } catch (err) {
      ctx.log.error({ err: { message: (err as Error).message } }, 'retention: could not remove an unfinished upload of a deleted case');
    }
  }
  return true;
}

export interface PurgeResult {
  dryRun: boolean;
  cases: Omit<DueCase, 'caseId'>[];
}

/** What the purge has just done, for a caller that follows it (the server test that sends requests meanwhile). */
export type PurgeStep = { step: 'deleted'; left: number } | { step: 'reclaiming'; tables: number } | { step: 'vacuumed'; table: string } | { step: 'checkpointed' };

export async function purge(ctx: PurgeContext, now: Date, opts: { dryRun?: boolean; onStep?: (s: PurgeStep) => void } = {}): Promise<PurgeResult> {
  const due = await dueCases(ctx, now);
  const done: DueCase[] = [];
  for (const [i, c] of due.entries()) {
    if (opts.dryRun) {
      done.push(c);
      continue;
    }
    await quietMoment(ctx);
    if (await deleteCase(ctx, c.caseId, c.reason, now)) done.push(c);
    opts.onStep?.({ step: 'deleted', left: due.length - i - 1 });
  }
  if (!opts.dryRun) {
    const swept = await sweepCaseKeys(ctx, now);
    if (done.length || swept) await reclaimSpace(ctx, opts.onStep);
  }
  return { dryRun: !!opts.dryRun, cases: done.map(({ caseId: _id, ...rest }) => rest) };
}

/** The longest the purge waits, before one statement, for the requests in flight to finish. */
export const QUIET_WAIT_MS = 50;

/**
 * Lets the requests already in this process go first: one turn of the event loop (so
 * a request that arrived while the last statement ran is read and asks for the
 * connection before the purge's next statement), then, while requests are in flight,
 * short waits up to QUIET_WAIT_MS. Without a count of requests (the CLI), the turn only.
 */
async function quietMoment(ctx: PurgeContext): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (!ctx.requestsInFlight) return;
  const until = performance.now() + QUIET_WAIT_MS;
  while (ctx.requestsInFlight() > 0 && performance.now() < until) await new Promise<void>((resolve) => setTimeout(resolve, 1));
}

/**
 * A shred key whose case id no row names any more is removed: a case deleted by a
 * process that stopped before removing its key, an upload session that never became
 * a case. Only keys older than an upload session can live, so that a case being
 * created (its key written, its row not yet committed) is never touched.
 */
export const ORPHAN_KEY_AGE_MS = 2 * 24 * 60 * 60_000;

export async function sweepCaseKeys(ctx: PurgeContext, now: Date): Promise<number> {
  const candidates = await ctx.caseKeys.listOlderThan(ORPHAN_KEY_AGE_MS, now.getTime());
  let removed = 0;
  for (let i = 0; i < candidates.length; i += 500) {
    const batch = candidates.slice(i, i + 500);
    await quietMoment(ctx);
    const [cases, sessions] = await Promise.all([
      ctx.db.selectFrom('report_case').select('id').where('id', 'in', batch).execute(),
      ctx.db.selectFrom('upload_session').select('case_id').where('case_id', 'in', batch).execute(),
    ]);
    const named = new Set([...cases.map((r) => r.id), ...sessions.map((r) => r.case_id)]);
    for (const id of batch) {
      if (named.has(id)) continue;
      await ctx.caseKeys.destroy(id);
      removed++;
    }
  }
  return removed;
}

/**
 * Where a purge leaves dead rows: the case row and every table whose rows go with it
 * (its foreign keys' cascades, followed through), the provider's rows of the reporter's
 * sign-ins, and the file store's rows (FILE_STORE=postgres). Read from the catalogue,
 * so that a table added later with a foreign key to a case is vacuumed too.
 */
const PURGE_ROOTS = ['report_case', 'oidc_payload', 'file_object'];

export async function purgedTables(db: PurgeContext['db']): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    with recursive touched(oid) as (
      select c.oid from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = current_schema() and c.relkind = 'r' and c.relname in (${sql.join(PURGE_ROOTS)})
      union
      select k.conrelid from pg_constraint k join touched t on k.confrelid = t.oid
       where k.contype = 'f' and k.confdeltype in ('c', 'n', 'd')
    )
    select c.relname as name from touched t join pg_class c on c.oid = t.oid order by c.relname`.execute(db);
  return rows.map((r) => r.name);
}

/**
 * Gives the deleted rows' space back where the engine allows: VACUUM frees the dead
 * tuples for reuse, CHECKPOINT lets the write-ahead log segments that held them be
 * recycled. Neither promises that the bytes are overwritten; the destroyed key is what
 * makes them useless (docs/decisions/deletion.md). One VACUUM per table the purge
 * touched, not one of the whole database: that one also went through every system
 * catalogue and held PGlite's connection for seconds; each table's is a short
 * statement, with the requests in flight let through between them. The CHECKPOINT comes
 * once, last, in the same run: the bound on how long the rows' space stays unreclaimed
 * is the end of the purge. On PostgreSQL, CHECKPOINT needs the pg_checkpoint role (or
 * superuser): without it the purge still stands, and the log says so.
 */
async function reclaimSpace(ctx: PurgeContext, onStep?: (s: PurgeStep) => void): Promise<void> {
  let tables: string[];
  try {
    tables = await purgedTables(ctx.db);
  } catch (err) {
    ctx.log.warn({ err: { message: (err as Error).message } }, 'retention: could not list the tables to vacuum after the purge');
    tables = [];
  }
  onStep?.({ step: 'reclaiming', tables: tables.length });
  for (const table of tables) {
    await quietMoment(ctx);
    try {
      await sql`VACUUM ${sql.table(table)}`.execute(ctx.db);
    } catch (err) {
      ctx.log.warn({ err: { message: (err as Error).message } }, 'retention: VACUUM of a table after the purge did not run');
    }
    onStep?.({ step: 'vacuumed', table });
  }
  await quietMoment(ctx);
  try {
    await sql.raw('CHECKPOINT').execute(ctx.db);
  } catch (err) {
    ctx.log.warn({ err: { message: (err as Error).message } }, 'retention: CHECKPOINT after the purge did not run');
  }
  onStep?.({ step: 'checkpointed' });
}

export const RETENTION_JOB = 'retention';

export const retentionJob: Job = {
  name: RETENTION_JOB,
  intervalMs: 60 * 60_000,
  run: async (ctx, now) => {
    const { cases } = await purge(ctx, now);
    // Counts only: case numbers never go to the log.
    if (cases.length) ctx.log.info({ deleted: cases.length }, 'retention: deleted cases whose retention period ended');
  },
};
