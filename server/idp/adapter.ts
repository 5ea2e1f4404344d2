/**
 * oidc-provider's storage adapter over Kysely (table `oidc_payload`). Every model the
 * provider persists (Session, Interaction, Grant, AuthorizationCode, RefreshToken,
 * ReplayDetection, …) lives in the database, never in process memory, so several
 * server processes can share one PostgreSQL.
 */
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';

export interface AdapterPayload {
  [key: string]: unknown;
  grantId?: string;
  userCode?: string;
  uid?: string;
  consumed?: number;
}

export function createAdapterClass(db: Database) {
  return class KyselyAdapter {
    constructor(readonly name: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
      const row = {
        id,
        type: this.name,
        payload: JSON.stringify(payload),
        grant_id: payload.grantId ?? null,
        user_code: payload.userCode ?? null,
        uid: payload.uid ?? null,
        expires_at: expiresAt,
      };
      await db
        .insertInto('oidc_payload')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['id', 'type']).doUpdateSet({
            payload: row.payload,
            grant_id: row.grant_id,
            user_code: row.user_code,
            uid: row.uid,
            expires_at: row.expires_at,
          }),
        )
        .execute();
    }

    private async findWhere(column: 'id' | 'uid' | 'user_code', value: string): Promise<AdapterPayload | undefined> {
      const row = await db
        .selectFrom('oidc_payload')
        .select(['payload', 'consumed_at', 'expires_at'])
        .where(column, '=', value)
        .where('type', '=', this.name)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
        .executeTakeFirst();
      if (!row) return undefined;
      const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as AdapterPayload;
      return row.consumed_at ? { ...payload, consumed: Math.floor(new Date(row.consumed_at).getTime() / 1000) } : payload;
    }

    find(id: string) {
      return this.findWhere('id', id);
    }

    findByUid(uid: string) {
      return this.findWhere('uid', uid);
    }

    findByUserCode(userCode: string) {
      return this.findWhere('user_code', userCode);
    }

    async consume(id: string): Promise<void> {
      await db
        .updateTable('oidc_payload')
        .set({ consumed_at: new Date() })
        .where('id', '=', id)
        .where('type', '=', this.name)
        .execute();
    }

    async destroy(id: string): Promise<void> {
      await db.deleteFrom('oidc_payload').where('id', '=', id).where('type', '=', this.name).execute();
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db.deleteFrom('oidc_payload').where('grant_id', '=', grantId).execute();
    }
  };
}

/** Removes expired rows; the provider never reads them anyway. */
export async function sweepExpiredPayloads(db: Database): Promise<number> {
  const res = await db.deleteFrom('oidc_payload').where('expires_at', '<', new Date()).executeTakeFirst();
  return Number(res.numDeletedRows ?? 0);
}
