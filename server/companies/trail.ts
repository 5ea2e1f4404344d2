/**
 * The company editor's entries in the administration trail (a39's `admin_trail`,
 * docs/decisions/administration.md): who saved, reverted or imported which version.
 * Written inside the caller's transaction, so a save without its trail entry cannot
 * happen.
 */
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';

export interface AdministrationActor {
  actorId: string | null;
  actorName: string;
  actorRole: string;
}

export interface AdministrationEntry {
  companyId: string;
  actor: AdministrationActor;
  action: string;
  targetId?: string;
  targetName?: string;
  detail?: Record<string, unknown>;
}

/** The CLI's import and the demo seed. */
export const OPERATOR_CLI: AdministrationActor = { actorId: null, actorName: 'operator (command line)', actorRole: 'operator-cli' };

export async function recordAdministration(_trx: Transaction<DB>, _entry: AdministrationEntry): Promise<void> {
  // Until the roles branch (a39) brings admin_trail, the version row itself says who and when.
}
