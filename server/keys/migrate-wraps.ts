/**
 * The migration of legacy cases to wraps (issue 37 Build 7, docs/decisions/blind-server.md
 * "Sealed on arrival; migration"). A case made before sealing has its data key under
 * the server's master key (`wrapped_key`, with its shred key). For a company with a key
 * anchor, this job unwraps that key one last time and wraps it, epoch 1, to the
 * company's recovery ECDH key and to every key the verified log certifies for the
 * case's officer, as those keys arrive: at start, and after an anchor is set or a
 * key-log entry lands. A reporter's wrap is made at the reporter's next sign-in that
 * sends the password (`addReporterWrap`, server/idp/index.ts): only then does the
 * server see what derives the reporter key.
 *
 * Invariants:
 * - idempotent: a wrap that exists is never made again (the primary key decides, a
 *   race inserts nothing twice); a run that stops half way is finished by the next;
 * - a case is wrapped only to keys `verifyKeyLog` proves back to the anchor and entitled
 *   to its officer, as the browser's sealed route requires; a log that does not verify
 *   wraps nothing;
 * - the data key lives for one case's step; the case itself is unchanged (it stays
 *   server-keyed until `npm run keys -- retire-master` seals it).
 */
import { sealToPublicKey, wrapDataKey, type ActiveKey } from '../../core/crypto/index.ts';
import type { Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
import type { DB } from '../db/schema.ts';
import { MissingCaseKey } from '../crypto/case-keys.ts';
import { HttpError } from '../errors.ts';
import type { Job } from '../jobs/runner.ts';
import { verifiedKeys } from '../cases/sealed.ts';

export const MIGRATED_EPOCH = 1;
const BATCH = 200;

type Ctx = Pick<AppContext, 'db' | 'caseKeys'>;

/** Wraps every legacy case of every company with an anchor (or of `companyId`) to the keys still missing. */
export async function migrateWraps(ctx: Ctx, opts: { companyId?: string } = {}): Promise<{ cases: number; wraps: number }> {
  let q = ctx.db.selectFrom('company_key_anchor').select('company_id');
  if (opts.companyId) q = q.where('company_id', '=', opts.companyId);
  const companies = await q.execute();
  const done = { cases: 0, wraps: 0 };
  for (const { company_id } of companies) {
    const keys = await verifiedKeys(ctx, company_id);
    if (!keys) continue; // the server's own copy of the log does not verify: nothing is wrapped to it
    for (let after: string | null = null; ; ) {
      let rows = ctx.db
        .selectFrom('report_case')
        .select(['id', 'wrapped_key', 'protection_officer_id'])
        .where('company_id', '=', company_id)
        .where('sealed', '=', false)
        .orderBy('id')
        .limit(BATCH);
      if (after !== null) rows = rows.where('id', '>', after);
      const batch = await rows.execute();
      if (!batch.length) break;
      const existing = await ctx.db.selectFrom('case_key_wrap').select(['case_id', 'recipient_key_id']).where('epoch', '=', MIGRATED_EPOCH).where('case_id', 'in', batch.map((r) => r.id)).execute();
      const have = new Set(existing.map((w) => `${w.case_id} ${w.recipient_key_id}`));
      for (const row of batch) {
        const wanted: { keyId: string; spki: Uint8Array; kind: 'handler' | 'recovery' }[] = [
          { keyId: keys.recovery.keyId, spki: keys.recovery.spki, kind: 'recovery' as const },
          ...(keys.byOfficer.get(row.protection_officer_id) ?? []).map((k: ActiveKey) => ({ keyId: k.ecdhKeyId, spki: k.ecdhSpki, kind: 'handler' as const })),
        ].filter((w) => !have.has(`${row.id} ${w.keyId}`));
        if (!wanted.length || !row.wrapped_key) continue;
        let dataKey: Buffer;
        try {
          dataKey = await ctx.caseKeys.unwrap(row.id, row.wrapped_key);
        } catch (err) {
          if (err instanceof MissingCaseKey) continue; // being deleted: nothing should open it
          throw err;
        }
        const at = { caseId: row.id, epoch: MIGRATED_EPOCH };
        const values = [];
        for (const w of wanted) {
          const wrap = await sealToPublicKey(new Uint8Array(w.spki), new Uint8Array(dataKey), { ...at, recipientKeyId: w.keyId });
          values.push({ case_id: row.id, epoch: MIGRATED_EPOCH, recipient_key_id: w.keyId, kind: w.kind, wrap: Buffer.from(wrap), created_at: new Date() });
        }
        dataKey.fill(0);
        try {
          const inserted = await ctx.db.insertInto('case_key_wrap').values(values).onConflict((oc) => oc.columns(['case_id', 'epoch', 'recipient_key_id']).doNothing()).returning('case_id').execute();
          done.wraps += inserted.length;
          done.cases++;
        } catch (err) {
          if ((err as { code?: string }).code === '23503') continue; // the case was deleted meanwhile
          throw err;
        }
      }
      if (batch.length < BATCH) break;
      after = batch[batch.length - 1]!.id;
    }
  }
  return done;
}

/** Whether a sign-in with the password should derive the reporter key for `caseId`: a server-keyed case of a company with an anchor, no reporter wrap yet, SEALED_CASES=browser. */
export async function needsReporterWrap(ctx: Pick<AppContext, 'db' | 'config'>, caseId: string): Promise<boolean> {
  if (ctx.config.sealedCases !== 'browser') return false;
  const row = await ctx.db
    .selectFrom('report_case')
    .innerJoin('company_key_anchor', 'company_key_anchor.company_id', 'report_case.company_id')
    .leftJoin('case_key_wrap', (j) => j.onRef('case_key_wrap.case_id', '=', 'report_case.id').on('case_key_wrap.recipient_key_id', '=', 'reporter'))
    .select(['report_case.sealed', 'case_key_wrap.case_id as wrapped'])
    .where('report_case.id', '=', caseId)
    .executeTakeFirst();
  return !!row && !row.sealed && !row.wrapped;
}

/** A server-keyed case of a company with an anchor, SEALED_CASES=browser: the cases this module wraps. */
export async function isMigrating(ctx: Pick<AppContext, 'db' | 'config'>, caseId: string): Promise<boolean> {
  if (ctx.config.sealedCases !== 'browser') return false;
  const row = await ctx.db
    .selectFrom('report_case')
    .innerJoin('company_key_anchor', 'company_key_anchor.company_id', 'report_case.company_id')
    .select('report_case.id')
    .where('report_case.id', '=', caseId)
    .where('report_case.sealed', '=', false)
    .executeTakeFirst();
  return !!row;
}

/**
 * After a password change of a server-keyed case: its reporter wrap is to a key the new
 * password no longer derives, so it goes (in the change's transaction); the next wrap
 * comes from the plain path's derivation or from the browser (`reporterWrapOffer`). A
 * sealed case's wrap is left: its re-wrap is the browser's (not built yet).
 */
export async function dropStaleReporterWrap(trx: Transaction<DB>, caseId: string): Promise<void> {
  await trx
    .deleteFrom('case_key_wrap')
    .where('case_id', '=', caseId)
    .where('kind', '=', 'reporter')
    .where('case_id', 'in', (eb) => eb.selectFrom('report_case').select('id').where('id', '=', caseId).where('sealed', '=', false))
    .execute();
}

/**
 * A legacy case's reporter wrap, from the reporter key the server derived at a sign-in
 * that sent the password: made once, for a server-keyed case of a company with an
 * anchor (the same cases the job wraps). False when nothing was made.
 */
export async function addReporterWrap(ctx: Ctx, caseId: string, reporterKey: CryptoKey): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('report_case')
    .innerJoin('company_key_anchor', 'company_key_anchor.company_id', 'report_case.company_id')
    .select(['report_case.id', 'report_case.wrapped_key', 'report_case.sealed'])
    .where('report_case.id', '=', caseId)
    .executeTakeFirst();
  if (!row || row.sealed || !row.wrapped_key) return false;
  const had = await ctx.db.selectFrom('case_key_wrap').select('case_id').where('case_id', '=', caseId).where('epoch', '=', MIGRATED_EPOCH).where('recipient_key_id', '=', 'reporter').executeTakeFirst();
  if (had) return false;
  const dataKey = await ctx.caseKeys.unwrap(row.id, row.wrapped_key);
  const wrap = await wrapDataKey(reporterKey, new Uint8Array(dataKey), { caseId, epoch: MIGRATED_EPOCH });
  dataKey.fill(0);
  const inserted = await ctx.db
    .insertInto('case_key_wrap')
    .values({ case_id: caseId, epoch: MIGRATED_EPOCH, recipient_key_id: 'reporter', kind: 'reporter', wrap: Buffer.from(wrap), created_at: new Date() })
    .onConflict((oc) => oc.columns(['case_id', 'epoch', 'recipient_key_id']).doNothing())
    .returning('case_id')
    .execute();
  return inserted.length > 0;
}

/**
 * A reporter who signs in by verifier never sends the password again, so the server
 * cannot make that wrap itself: the private area asks for the data key of its own
 * server-keyed case (the server hands the same reporter the case's content in clear
 * today), wraps it in the browser to the reporter key it holds, checks that it opens,
 * and sends the wrap back. 409 `REPORTER_WRAP_NOT_NEEDED` when the case is sealed, has a
 * reporter wrap already, or is not being migrated (no anchor, or the setting is off).
 */
export async function reporterWrapOffer(ctx: Pick<AppContext, 'db' | 'config' | 'caseKeys'>, row: { id: string; wrapped_key: Uint8Array | null }): Promise<{ caseId: string; epoch: number; dataKey: string }> {
  if (!row.wrapped_key || !(await needsReporterWrap(ctx, row.id))) throw notNeeded();
  const dataKey = await ctx.caseKeys.unwrap(row.id, row.wrapped_key);
  return { caseId: row.id, epoch: MIGRATED_EPOCH, dataKey: dataKey.toString('base64') };
}

/** Stores the wrap the reporter's browser made (core/crypto `wrapDataKey`, 61 bytes, version 1); the server cannot check that it opens. */
export async function storeReporterWrap(ctx: Pick<AppContext, 'db' | 'config'>, row: { id: string; wrapped_key: Uint8Array | null }, body: unknown): Promise<{ epoch: number }> {
  const text = (body as { wrap?: unknown } | null)?.wrap;
  const wrap = typeof text === 'string' && /^[A-Za-z0-9+/]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : null;
  if (!wrap || wrap.length !== REPORTER_WRAP_BYTES || wrap[0] !== 1) throw new HttpError(400, 'BAD_WRAP', 'Send { wrap }: the data key wrapped to the reporter key (core/crypto wrapDataKey, 61 bytes, base64).', 'wrap');
  if (!row.wrapped_key || !(await needsReporterWrap(ctx, row.id))) throw notNeeded();
  const inserted = await ctx.db
    .insertInto('case_key_wrap')
    .values({ case_id: row.id, epoch: MIGRATED_EPOCH, recipient_key_id: 'reporter', kind: 'reporter', wrap, created_at: new Date() })
    .onConflict((oc) => oc.columns(['case_id', 'epoch', 'recipient_key_id']).doNothing())
    .returning('case_id')
    .execute();
  if (!inserted.length) throw notNeeded();
  return { epoch: MIGRATED_EPOCH };
}

const REPORTER_WRAP_BYTES = 1 + 12 + 32 + 16;
const notNeeded = () => new HttpError(409, 'REPORTER_WRAP_NOT_NEEDED', 'This case needs no reporter wrap from the browser: it is sealed, has one already, or is not being migrated.');

export const WRAP_MIGRATION_JOB = 'key-wraps';

/**
 * The job: with SEALED_CASES=browser only (off, nothing of this release changes). Its
 * first run at start wraps what earlier releases left; `runNow` after an anchor or a
 * key-log entry wraps to the new key at once; the interval catches what a crash missed.
 */
export const wrapMigrationJob: Job = {
  name: WRAP_MIGRATION_JOB,
  intervalMs: 15 * 60_000,
  async run(ctx) {
    if (ctx.config.sealedCases !== 'browser') return;
    const done = await migrateWraps(ctx);
    if (done.wraps) ctx.log.info({ job: WRAP_MIGRATION_JOB, cases: done.cases, wraps: done.wraps }, 'legacy case keys wrapped to certified keys');
  },
};

/** After an anchor or key-log change: the job now, in the background (a failure is logged by the runner and tried at the next interval). */
export function wrapNewKeys(ctx: AppContext): void {
  if (ctx.config.sealedCases !== 'browser') return;
  void ctx.jobs.runNow(WRAP_MIGRATION_JOB);
}


