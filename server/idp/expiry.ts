/**
 * Follow accounts that never signed in within the allowed days of creation are
 * deleted (spec §9, DESIGN.md §3). The case itself stays; nobody can sign in to it
 * any more.
 */
import type { Database } from '../db/database.ts';

export async function sweepExpiredAccounts(db: Database, days: number, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - days * 24 * 3600_000);
  const res = await db.deleteFrom('case_account').where('last_login_at', 'is', null).where('created_at', '<', cutoff).executeTakeFirst();
  return Number(res.numDeletedRows ?? 0);
}
