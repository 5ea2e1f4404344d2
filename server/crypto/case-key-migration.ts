/**
 * Upgrade of a data folder whose case keys were wrapped by the master key alone (before
 * docs/decisions/deletion.md): each such key is re-wrapped once so that it needs its
 * case's shred key too. Runs at every start until it has found nothing left, then a row
 * in `meta` says so and later starts skip it.
 *
 * The old wrappings stay in the database's dead pages and write-ahead log, where the
 * master key still opens them: `meta.case_keys_legacy` records that, the server warns
 * at each start, and `npm run keys -- rotate-master` (which puts every key under a new
 * master key) clears it. Only after that does deleting a case of before the upgrade
 * delete it for good.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { CaseCrypto } from './case-crypto.ts';
import type { CaseKeys } from './case-keys.ts';

export const MIGRATED_ROW = 'case_keys_shreddable';
export const LEGACY_ROW = 'case_keys_legacy';
const BATCH = 500;

function legacyKey(crypto: CaseCrypto, caseId: string, wrapped: Uint8Array): Buffer | null {
  try {
    return crypto.unwrapCaseKey(caseId, wrapped);
  } catch {
    return null;
  }
}

/** Re-wraps what is still under the master key alone; the number of rows it changed. */
export async function migrateCaseKeys(db: Kysely<DB>, crypto: CaseCrypto, keys: CaseKeys): Promise<number> {
  const done = await db.selectFrom('meta').select('value').where('key', '=', MIGRATED_ROW).executeTakeFirst();
  if (done) return 0;
  let changed = 0;
  for (const table of ['report_case', 'upload_session'] as const) {
    for (let after: string | null = null; ; ) {
      let q = db.selectFrom(table).select(['id', 'wrapped_key', table === 'report_case' ? 'id as case_id' : 'case_id']).orderBy('id').limit(BATCH);
      if (after !== null) q = q.where('id', '>', after);
      const rows = (await q.execute()) as { id: string; case_id: string; wrapped_key: Uint8Array | null }[];
      for (const r of rows) {
        if (!r.wrapped_key) continue; // sealed: no server wrapping at all
        const key = legacyKey(crypto, r.case_id, r.wrapped_key);
        if (!key) continue; // already shreddable
        const wrapped = await keys.wrap(r.case_id, key);
        await db.updateTable(table).set({ wrapped_key: wrapped }).where('id', '=', r.id).where('wrapped_key', '=', Buffer.from(r.wrapped_key)).execute();
        changed++;
      }
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1]!.id;
    }
  }
  if (changed) {
    await db.insertInto('meta').values({ key: LEGACY_ROW, value: new Date().toISOString() }).onConflict((oc) => oc.column('key').doNothing()).execute();
  }
  await db.insertInto('meta').values({ key: MIGRATED_ROW, value: new Date().toISOString() }).onConflict((oc) => oc.column('key').doNothing()).execute();
  return changed;
}

/** Whether wrappings under the current master key alone may survive in dead pages (cleared by a master-key rotation). */
export async function hasLegacyWraps(db: Kysely<DB>): Promise<boolean> {
  return !!(await db.selectFrom('meta').select('value').where('key', '=', LEGACY_ROW).executeTakeFirst());
}
