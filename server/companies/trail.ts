/**
 * The company editor's entries in the administration trail (`admin_trail`,
 * server/handlers/administration.ts, docs/decisions/administration.md): who saved,
 * reverted or imported which version. Written inside the caller's transaction, so a
 * save without its trail entry cannot happen.
 */
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { appendTrail, type Actor } from '../handlers/administration.ts';

export type AdministrationActor = Actor;

export interface AdministrationEntry {
  companyId: string;
  actor: AdministrationActor;
  action: 'COMPANY_SETTINGS_SAVED' | 'COMPANY_SETTINGS_REVERTED' | 'COMPANY_IMPORTED';
  targetId?: string;
  targetName?: string;
  detail?: Record<string, unknown>;
}

/** The CLI's import and the demo seed. */
export const OPERATOR_CLI: AdministrationActor = { actorId: null, actorName: 'operator (command line)', actorRole: 'operator-cli' };

export async function recordAdministration(trx: Transaction<DB>, e: AdministrationEntry): Promise<void> {
  await appendTrail(trx, e.companyId, e.actor, e.action, e.targetId ? { id: e.targetId, name: e.targetName ?? e.targetId } : null, e.detail ?? {});
}
