/**
 * The master key's life after it is loaded (docs/operations.md "The master key").
 *
 * - At start the key is checked against a check value sealed with it in `meta`, so
 *   a server given the wrong MASTER_KEY refuses to run. Without that, it would wrap
 *   every new case under a key that opens nothing else, and the mix could not be
 *   untangled.
 * - Rotation re-wraps every case's data key and the identity provider's key store
 *   under a new master key, in one transaction; the data itself, files included,
 *   is sealed with those data keys and is not touched.
 * - A rotation of the generated key file writes the new key to `master.key.next`
 *   before it commits and renames it after. A crash in between is settled at the
 *   next start: the check value says which key the database is under.
 * - A server still running with the old key creates no case after a rotation: it
 *   reads the check value, locked against the rotation, in each case's transaction.
 */
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { CaseCrypto } from './case-crypto.ts';
import { LEGACY_ROW } from './case-key-migration.ts';
import { loadSecret } from './secrets.ts';
import { WRAP_CONTEXT_ID, WRAP_NAME } from '../idp/keys.ts';
import { HttpError } from '../errors.ts';

export const CHECK_ROW = 'master_key_check';
export const KEY_FILE = 'master.key';
export const NEXT_KEY_FILE = 'master.key.next';
const BATCH = 500;

export class MasterKeyMismatch extends Error {}

type Db = Kysely<DB> | Transaction<DB>;

function opens(crypto: CaseCrypto, caseId: string, wrapped: Uint8Array): boolean {
  try {
    crypto.unwrapCaseKey(caseId, wrapped);
    return true;
  } catch {
    return false;
  }
}

/** Does this key open the database's data? `null` when nothing is sealed yet. */
export async function fitsDatabase(db: Db, crypto: CaseCrypto): Promise<boolean | null> {
  const check = await db.selectFrom('meta').select('value').where('key', '=', CHECK_ROW).executeTakeFirst();
  if (check) return crypto.opensCheck(check.value);
  // A database from before the check value: any wrapped key tells.
  const c = await db.selectFrom('report_case').select(['id', 'wrapped_key']).where('wrapped_key', 'is not', null).orderBy('created_at').limit(1).executeTakeFirst();
  if (c?.wrapped_key) return opens(crypto, c.id, c.wrapped_key);
  const s = await db.selectFrom('idp_secret').select('wrapped').where('name', '=', WRAP_NAME).executeTakeFirst();
  if (s) return opens(crypto, WRAP_CONTEXT_ID, s.wrapped);
  return null;
}

/** Refuses a key that does not open the data; records the check value the first time. */
export async function verifyMasterKey(db: Kysely<DB>, crypto: CaseCrypto): Promise<void> {
  const mismatch = () =>
    new MasterKeyMismatch(
      'MASTER_KEY does not open this database: it holds data sealed under another master key. ' +
        'Start with the key it was written with (docs/operations.md, "The master key").',
    );
  if ((await fitsDatabase(db, crypto)) === false) throw mismatch();
  await db
    .insertInto('meta')
    .values({ key: CHECK_ROW, value: crypto.checkValue() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  // Another process may have recorded its own key first (two first starts at once).
  if (!(await fitsDatabase(db, crypto))) throw mismatch();
}

/**
 * Guards a new case's transaction: the check value is read under a shared lock, so
 * a rotation waits for cases in flight and a case waits for a rotation; after one,
 * this server's key is the old one and it must not wrap anything with it.
 */
export async function assertCurrentMasterKey(trx: Transaction<DB>, crypto: CaseCrypto): Promise<void> {
  const check = await trx.selectFrom('meta').select('value').where('key', '=', CHECK_ROW).forShare().executeTakeFirst();
  assertCheckValue(crypto, check?.value);
}

/**
 * The test of assertCurrentMasterKey on a check value read elsewhere under the same
 * shared lock (a new case reads it in the statement that inserts the case); the
 * caller's transaction must roll back when this throws.
 */
export function assertCheckValue(crypto: CaseCrypto, value: string | undefined): void {
  if (value && !crypto.opensCheck(value)) {
    throw new HttpError(503, 'RESTART_NEEDED', 'The master key was rotated: this server process must be restarted with the new key.');
  }
}

/** The master key file: MASTER_KEY_FILE, else DATA_DIR/master.key. */
export function masterKeyPath(opts: { dataDir: string; keyFile?: string }): string {
  return opts.keyFile ?? path.join(opts.dataDir, KEY_FILE);
}

/** The file a rotation writes the new key to before it commits. */
export function nextKeyPath(keyFile: string): string {
  return path.basename(keyFile) === KEY_FILE ? path.join(path.dirname(keyFile), NEXT_KEY_FILE) : `${keyFile}.next`;
}

/** Whether the master key file lies inside the data folder, where a copy of the folder takes it along. */
export function keyFileInDataDir(opts: { dataDir: string; keyFile?: string }): boolean {
  const rel = path.relative(path.resolve(opts.dataDir), path.resolve(masterKeyPath(opts)));
  return !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** Finishes or forgets a rotation of the key file that a crash interrupted. */
export async function settleKeyFile(keyFile: string, db: Kysely<DB>): Promise<void> {
  const next = nextKeyPath(keyFile);
  if (!existsSync(next)) return;
  const key = Buffer.from(readFileSync(next, 'utf8').trim(), 'base64');
  if (key.length === 32 && (await fitsDatabase(db, new CaseCrypto(key))) === true) renameSync(next, keyFile);
  else rmSync(next, { force: true });
}

/** The master key for a server or a CLI: MASTER_KEY, else the key file (generated on first start), checked against the data. */
export async function loadMasterKey(opts: { fromEnv?: string; dataDir: string; keyFile?: string; db: Kysely<DB> }): Promise<Buffer> {
  const file = masterKeyPath(opts);
  if (!opts.fromEnv) await settleKeyFile(file, opts.db);
  const key = loadSecret({ name: 'MASTER_KEY', fromEnv: opts.fromEnv, dataDir: path.dirname(file), file: path.basename(file), bytes: 32 });
  await verifyMasterKey(opts.db, new CaseCrypto(key));
  return key;
}

/** Where rotation finds each case's shred key (server/crypto/case-keys.ts). */
export interface ShredKeys {
  shredOf(caseId: string): Promise<Buffer | null>;
}

/**
 * A case key's wrapping under `to`: shreddable when the case still has its shred key,
 * under the master key alone when it was never migrated (a rotation before the first
 * start of this version); null when it opens under neither (its case was being
 * deleted: nothing can open it, and nothing should).
 */
async function rewrap(from: CaseCrypto, to: CaseCrypto, shreds: ShredKeys, caseId: string, wrapped: Uint8Array): Promise<Buffer | null> {
  const shred = await shreds.shredOf(caseId);
  if (shred) {
    try {
      return to.wrapShreddable(caseId, from.unwrapShreddable(caseId, wrapped, shred), shred);
    } catch {
      // not shreddable yet: the legacy wrapping below
    }
  }
  try {
    return to.wrapCaseKey(caseId, from.unwrapCaseKey(caseId, wrapped));
  } catch {
    return null;
  }
}

/** Re-wraps every data key from `oldKey` to `newKey`, in one transaction. */
export async function rotateMasterKey(db: Kysely<DB>, oldKey: Buffer, newKey: Buffer, shreds: ShredKeys): Promise<{ cases: number; secrets: number }> {
  if (oldKey.equals(newKey)) throw new Error('the new master key is the current one');
  const from = new CaseCrypto(oldKey);
  const to = new CaseCrypto(newKey);
  return db.transaction().execute(async (trx) => {
    // Taken first: cases being created finish, new ones wait for the commit.
    await trx.selectFrom('meta').select('key').where('key', '=', CHECK_ROW).forUpdate().executeTakeFirst();
    if ((await fitsDatabase(trx, from)) === false) throw new MasterKeyMismatch('the current master key does not open this database');

    let cases = 0;
    for (let after: string | null = null; ; ) {
      let q = trx.selectFrom('report_case').select(['id', 'wrapped_key']).orderBy('id').limit(BATCH);
      if (after !== null) q = q.where('id', '>', after);
      const rows = await q.execute();
      for (const r of rows) {
        // A sealed case has no server wrapping to move.
        const wrapped = r.wrapped_key && (await rewrap(from, to, shreds, r.id, r.wrapped_key));
        if (wrapped) await trx.updateTable('report_case').set({ wrapped_key: wrapped }).where('id', '=', r.id).execute();
      }
      cases += rows.length;
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1]!.id;
    }

    // Resumable uploads' sessions hold the data key of a case still to come (migration 0130).
    // A reporter's session for a message holds its case's key (migration 0135): one row each.
    const sessions = await trx.selectFrom('upload_session').select(['id', 'case_id', 'wrapped_key']).execute();
    for (const r of sessions) {
      if (!r.wrapped_key) continue; // a sealed case's session: no server key
      const wrapped = await rewrap(from, to, shreds, r.case_id, r.wrapped_key);
      if (wrapped) await trx.updateTable('upload_session').set({ wrapped_key: wrapped }).where('id', '=', r.id).execute();
    }

    const secrets = await trx.selectFrom('idp_secret').select(['name', 'wrapped']).execute();
    for (const s of secrets) {
      // Only rows whose wrapping this code knows; any other would be left unreadable.
      if (s.name !== WRAP_NAME) throw new Error(`idp_secret row "${s.name}" is not known to this version: nothing was changed`);
      const wrapped = to.wrapCaseKey(WRAP_CONTEXT_ID, from.unwrapCaseKey(WRAP_CONTEXT_ID, s.wrapped));
      await trx.updateTable('idp_secret').set({ wrapped }).where('name', '=', s.name).execute();
    }

    // Handlers' TOTP secrets are sealed with the master key itself (docs/decisions/handler-accounts.md).
    const handlers = await trx.selectFrom('handler_account').select(['id', 'totp_secret_enc']).where('totp_secret_enc', 'is not', null).execute();
    for (const h of handlers) {
      const context = `handler-totp:${h.id}`;
      const sealed = to.sealWithMaster(context, from.openWithMaster(context, h.totp_secret_enc!));
      await trx.updateTable('handler_account').set({ totp_secret_enc: sealed }).where('id', '=', h.id).execute();
    }

    // What dead pages still hold under the old key opens nothing once that key is gone.
    await trx.deleteFrom('meta').where('key', '=', LEGACY_ROW).execute();
    await trx
      .insertInto('meta')
      .values({ key: CHECK_ROW, value: to.checkValue() })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: to.checkValue() }))
      .execute();
    return { cases, secrets: secrets.length };
  });
}
