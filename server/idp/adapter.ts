/**
 * oidc-provider's storage adapter over Kysely (table `oidc_payload`). Every model the
 * provider persists (Session, Interaction, Grant, AuthorizationCode, RefreshToken,
 * ReplayDetection, …) lives in the database, never in process memory, so several
 * server processes can share one PostgreSQL.
 *
 * Nothing in the table works as a credential (docs/decisions/identity-at-rest.md):
 *
 * - every id the provider hands us (session id = the session cookie, refresh token,
 *   authorization code, grant id, interaction uid, session uid, user code) is stored
 *   and looked up only as `HMAC-SHA-256(idKey, issuer + "\n" + id)`;
 * - the payload is sealed (AES-256-GCM under `sealKey`), bound to its type, its
 *   hashed id and the issuer, so it cannot be read, nor moved to another row or host;
 * - both keys are derived from the provider's data key, which only the master key
 *   unwraps: a copy of the database without the master key yields nothing usable.
 *
 * The hash is scoped by issuer (one per company host), so a session, code, token or
 * grant made at one host is simply not found at any other (finding 7 of issue 11),
 * and the sealed payload names its issuer, compared again on every read.
 */
import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { open, seal } from '../crypto/case-crypto.ts';

export interface AdapterPayload {
  [key: string]: unknown;
  grantId?: string;
  userCode?: string;
  uid?: string;
  accountId?: string;
  consumed?: number;
}

/** The two secrets of the store; derived from the provider's data key (keys.ts `derive`). */
export class PayloadCrypto {
  constructor(
    private readonly idKey: Buffer,
    private readonly sealKey: Buffer,
  ) {}

  /** The stored form of an id the provider knows, at one issuer. */
  idHash(issuer: string, id: string): string {
    return createHmac('sha256', this.idKey).update(`${issuer}\n${id}`).digest('base64url');
  }

  /** The stored form of an account (case id), the same at every issuer, so sign-out reaches every host. */
  accountKey(accountId: string): string {
    return createHmac('sha256', this.idKey).update(`account\n${accountId}`).digest('base64url');
  }

  /** The stored form of an interaction uid in `idp_password_change`. */
  interactionKey(uid: string): string {
    return createHmac('sha256', this.idKey).update(`interaction\n${uid}`).digest('base64url');
  }

  seal(context: string, value: unknown): Buffer {
    return seal(this.sealKey, context, JSON.stringify(value));
  }

  open(context: string, sealed: Uint8Array): unknown {
    return JSON.parse(open(this.sealKey, context, sealed).toString('utf8'));
  }
}

interface Envelope {
  iss: string;
  payload: AdapterPayload;
}

const sealContext = (type: string, idHash: string, issuer: string) => `wb:oidc:${type}:${idHash}:${issuer}`;

export function createAdapterClass(db: Database, crypto: PayloadCrypto, issuer: string) {
  const h = (v: string) => crypto.idHash(issuer, v);
  return class KyselyAdapter {
    constructor(readonly name: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
      const idHash = h(id);
      const envelope: Envelope = { iss: issuer, payload };
      const accountId = typeof payload.accountId === 'string' ? payload.accountId : undefined;
      const row = {
        id: idHash,
        type: this.name,
        sealed: crypto.seal(sealContext(this.name, idHash, issuer), envelope),
        grant_id: payload.grantId ? h(payload.grantId) : null,
        user_code: payload.userCode ? h(payload.userCode) : null,
        uid: payload.uid ? h(payload.uid) : null,
        account_key: accountId ? crypto.accountKey(accountId) : null,
        expires_at: expiresAt,
      };
      await db
        .insertInto('oidc_payload')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['id', 'type']).doUpdateSet({
            sealed: row.sealed,
            grant_id: row.grant_id,
            user_code: row.user_code,
            uid: row.uid,
            account_key: row.account_key,
            expires_at: row.expires_at,
          }),
        )
        .execute();
    }

    private async findWhere(column: 'id' | 'uid' | 'user_code', value: string): Promise<AdapterPayload | undefined> {
      if (typeof value !== 'string' || !value) return undefined;
      const row = await db
        .selectFrom('oidc_payload')
        .select(['id', 'sealed', 'consumed_at'])
        .where(column, '=', h(value))
        .where('type', '=', this.name)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
        .executeTakeFirst();
      if (!row) return undefined;
      let envelope: Envelope;
      try {
        envelope = crypto.open(sealContext(this.name, row.id, issuer), row.sealed) as Envelope;
      } catch {
        // Sealed for another row or another host, or tampered with: not ours.
        return undefined;
      }
      if (envelope.iss !== issuer) return undefined;
      const payload = envelope.payload;
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
        .where('id', '=', h(id))
        .where('type', '=', this.name)
        .execute();
    }

    async destroy(id: string): Promise<void> {
      await db.deleteFrom('oidc_payload').where('id', '=', h(id)).where('type', '=', this.name).execute();
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db.deleteFrom('oidc_payload').where('grant_id', '=', h(grantId)).execute();
    }
  };
}

/**
 * Ends every stored sign-in of an account at every host: its sessions, grants, codes
 * and refresh tokens, and everything issued under those grants.
 */
export async function destroyAccountPayloads(db: Database, crypto: PayloadCrypto, accountId: string): Promise<void> {
  const key = crypto.accountKey(accountId);
  const grants = await db.selectFrom('oidc_payload').select('id').where('type', '=', 'Grant').where('account_key', '=', key).execute();
  const grantIds = grants.map((g) => g.id);
  await db
    .deleteFrom('oidc_payload')
    .where((eb) =>
      eb.or([
        eb.and([eb('type', 'in', ['Session', 'Grant', 'RefreshToken', 'AuthorizationCode']), eb('account_key', '=', key)]),
        ...(grantIds.length ? [eb('grant_id', 'in', grantIds)] : []),
      ]),
    )
    .execute();
}

/** Removes expired rows; the provider never reads them anyway. */
export async function sweepExpiredPayloads(db: Database): Promise<number> {
  const res = await db.deleteFrom('oidc_payload').where('expires_at', '<', new Date()).executeTakeFirst();
  return Number(res.numDeletedRows ?? 0);
}
