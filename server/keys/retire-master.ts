/**
 * `npm run keys -- retire-master` (issue 37 Build 7, docs/operations.md "Retiring the
 * master key"): what still needs the master key, and, once no case does, the last step
 * of the migration to sealed cases.
 *
 * What needs it (each blocks the retirement):
 * - a server-keyed case without a recovery wrap (its company has no anchor, or the
 *   migration job has not reached it): nothing else could open it afterwards;
 * - a followed server-keyed case whose reporter has no wrap yet: its reporter would lose
 *   the case until a handler grants it (a sign-in with the password makes the wrap);
 * - an upload session (its data key is under the master key) and a mail still in the
 *   outbox of a server-keyed case (sealed under the case's key, which the worker unwraps
 *   with the master key).
 * Reported, not blocking: cases no handler key opens yet (only the recovery key, until
 * a grant), and the server features that stop for the cases this step seals (they
 * answer CASE_SEALED, as for a case sealed in the browser).
 *
 * The retirement, in order: every server-keyed case becomes sealed (`wrapped_key` null,
 * `sealed` true: the check constraint of migration 0240); the server's own secrets that
 * the master key sealed (handlers' TOTP secrets, the identity provider's key store; the
 * proof-of-work and rate-limit keys are derived from it) move to a fresh key by the
 * rotation code (server/crypto/master-key.ts), under which no case key was ever wrapped;
 * every case's shred key is destroyed, so a server wrapping left in dead database pages
 * opens under no key; the old key file is overwritten and replaced.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

export interface MasterKeyUses {
  /** Blocking: what must be settled first, one line each (empty: the key can go). */
  blocking: string[];
  /** Said, not blocking. */
  notes: string[];
  serverKeyedCases: number;
}

const count = (rows: { n: string | number | bigint }) => Number(rows.n);

/** What still needs the master key, in words an operator acts on. */
export async function masterKeyUses(db: Kysely<DB>): Promise<MasterKeyUses> {
  const legacy = db.selectFrom('report_case').where('report_case.sealed', '=', false);
  const serverKeyedCases = count(await legacy.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow());
  const wrapOf = (kind: string) => (eb: any) => eb.exists(eb.selectFrom('case_key_wrap').select('case_key_wrap.case_id').whereRef('case_key_wrap.case_id', '=', 'report_case.id').where('case_key_wrap.kind', '=', kind));
  const noRecovery = await legacy
    .leftJoin('company_key_anchor', 'company_key_anchor.company_id', 'report_case.company_id')
    .select(['report_case.company_id', (eb) => eb.fn.countAll().as('n'), (eb) => eb.fn.count('company_key_anchor.company_id').as('anchored')])
    .where((eb) => eb.not(wrapOf('recovery')(eb)))
    .groupBy('report_case.company_id')
    .orderBy('report_case.company_id')
    .execute();
  const noReporter = count(
    await legacy
      .innerJoin('case_account', 'case_account.case_id', 'report_case.id')
      .select((eb) => eb.fn.countAll().as('n'))
      .where((eb) => eb.not(wrapOf('reporter')(eb)))
      .executeTakeFirstOrThrow(),
  );
  const noHandler = count(await legacy.select((eb) => eb.fn.countAll().as('n')).where((eb) => eb.not(wrapOf('handler')(eb))).executeTakeFirstOrThrow());
  const sessions = count(await db.selectFrom('upload_session').where('wrapped_key', 'is not', null).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow());
  const mails = count(
    await db.selectFrom('mail_outbox').innerJoin('report_case', 'report_case.id', 'mail_outbox.case_id').where('report_case.sealed', '=', false).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
  );

  const blocking: string[] = [];
  for (const c of noRecovery) {
    blocking.push(
      Number(c.anchored) > 0
        ? `company ${c.company_id}: ${count(c)} case(s) without a recovery wrap yet: start the server with sealing on (SEALED_CASES unset or browser: the migration job wraps them), or run this command again`
        : `company ${c.company_id}: ${count(c)} case(s) and no key anchor: its first handler makes the company recovery key on /handler/keys (or set it: PUT /api/admin/companies/${c.company_id}/key-anchor)`,
    );
  }
  if (noReporter) blocking.push(`${noReporter} followed case(s) whose reporter has no wrap yet: each needs one sign-in: with the password (the sign-in page of a case made before verifiers sends it; so does a scripted client's plain sign-in), or by verifier with the private area wrapping the key (PUT /api/private/case/my-case/reporter-wrap)`);
  if (sessions) blocking.push(`${sessions} upload session(s) open: each holds a case's data key under the master key; they end with their case or expire (UPLOAD_SESSION_TTL)`);
  if (mails) blocking.push(`${mails} mail(s) in the outbox of server-keyed cases: the mail worker unwraps their case's key to send them; start the server until the outbox is empty`);

  const notes: string[] = [];
  if (noHandler) notes.push(`${noHandler} case(s) no certified handler key opens yet (no key for their officer): only the recovery key opens them until a handler grants them`);
  if (serverKeyedCases) {
    notes.push(
      `after the retirement these ${serverKeyedCases} case(s) are sealed: the server no longer reads or writes them (their plain views, messages, files, record, comments and audit answer CASE_SEALED, as for a case sealed in the browser); their mails and reminders go on (the reporters' notification addresses are sealed to the mail key first)`,
    );
  }
  notes.push('the master key also seals the server\'s own secrets (handlers\' TOTP secrets, the identity provider\'s key store) and derives the proof-of-work and rate-limit keys: the retirement moves them to a fresh key that never wrapped a case key');
  return { blocking, notes, serverKeyedCases };
}

/** Seals every server-keyed case: its data key stays only in its wraps. Returns their ids (their shred keys go next). */
export async function sealEveryCase(db: Kysely<DB>): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    const rows = await trx.updateTable('report_case').set({ wrapped_key: null, sealed: true }).where('sealed', '=', false).returning('id').execute();
    return rows.map((r) => r.id);
  });
}
