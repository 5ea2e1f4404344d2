/**
 * The identity provider's keys, kept in the database (table `idp_key`) so every
 * server process signs and verifies with the same ones:
 *
 * - signing keys (RS256 JWKs): the newest unretired key signs; retired keys stay
 *   published in the JWKS for `retainRetiredSeconds`, so tokens signed before a
 *   rotation keep verifying and nobody is signed out by it;
 * - cookie keys: sign the provider's cookies (session, interaction).
 *
 * Each secret is sealed (AES-256-GCM) under the provider's own data key, which the
 * master key wraps (server/crypto, row `idp_secret.name = 'keys'`).
 */
import { generateKeyPairSync, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { open, seal } from '../crypto/case-crypto.ts';
import type { AppContext } from '../context.ts';

export interface KeySet {
  /** Private JWKs, the signing one first. */
  signing: Record<string, unknown>[];
  /** Public JWKs of the same keys, for token verification and the JWKS. */
  publicJwks: { keys: Record<string, unknown>[] };
  cookies: string[];
  /** Changes whenever a key is added or removed. */
  version: string;
}

/** Keeps retired signing keys published this long: longer than any token they signed lives (ID token 1 h). */
export const RETAIN_RETIRED_SECONDS = 24 * 60 * 60;

/** The `idp_secret` row of the provider's key store, and the id its data key is wrapped under. */
export const WRAP_NAME = 'keys';
export const WRAP_CONTEXT_ID = 'idp-keys';

export class IdpKeys {
  private dataKey?: Buffer;

  constructor(private readonly ctx: AppContext) {}

  private async key(): Promise<Buffer> {
    if (this.dataKey) return this.dataKey;
    const { db, crypto } = this.ctx;
    let row = await db.selectFrom('idp_secret').select('wrapped').where('name', '=', WRAP_NAME).executeTakeFirst();
    if (!row) {
      const fresh = crypto.newCaseKey(WRAP_CONTEXT_ID);
      // Two processes starting together: the first insert wins, both read it back.
      await db.insertInto('idp_secret').values({ name: WRAP_NAME, wrapped: fresh.wrapped }).onConflict((oc) => oc.column('name').doNothing()).execute();
      row = await db.selectFrom('idp_secret').select('wrapped').where('name', '=', WRAP_NAME).executeTakeFirstOrThrow();
    }
    this.dataKey = crypto.unwrapCaseKey(WRAP_CONTEXT_ID, row.wrapped);
    return this.dataKey;
  }

  /** A key derived for one purpose (e.g. the sign-in throttle's keyed hash). */
  async derive(purpose: string): Promise<Buffer> {
    return Buffer.from(hkdfSync('sha256', await this.key(), Buffer.alloc(0), `wb:idp:${purpose}`, 32));
  }

  private static newSigningJwk(kid: string): string {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    return JSON.stringify({ ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' });
  }

  private async insertSigning(): Promise<string> {
    const kid = randomUUID();
    const key = await this.key();
    await this.ctx.db
      .insertInto('idp_key')
      .values({ kid, kind: 'signing', secret_enc: seal(key, `wb:idp:signing:${kid}`, IdpKeys.newSigningJwk(kid)), created_at: new Date(), retired_at: null })
      .execute();
    return kid;
  }

  /** Loads every key, creating the first signing and cookie keys on a fresh database. */
  async load(): Promise<KeySet> {
    const { db } = this.ctx;
    // Retired keys past their retention are no longer published.
    await db.deleteFrom('idp_key').where('retired_at', '<', new Date(Date.now() - RETAIN_RETIRED_SECONDS * 1000)).execute();
    let rows = await db.selectFrom('idp_key').selectAll().orderBy('created_at', 'desc').orderBy('kid').execute();
    const active = rows.filter((r) => r.kind === 'signing' && !r.retired_at);
    const needSigning = active.length === 0;
    const needCookie = !rows.some((r) => r.kind === 'cookie');
    if (needSigning || needCookie) {
      // Processes starting together on a fresh database: one creates the first keys
      // (a transaction-scoped advisory lock), the others then find them.
      const key = await this.key();
      await db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(727401)`.execute(trx);
        const existing = await trx.selectFrom('idp_key').select(['kind', 'retired_at']).execute();
        const now = new Date();
        if (!existing.some((r) => r.kind === 'signing' && !r.retired_at)) {
          const kid = randomUUID();
          await trx.insertInto('idp_key').values({ kid, kind: 'signing', secret_enc: seal(key, `wb:idp:signing:${kid}`, IdpKeys.newSigningJwk(kid)), created_at: now, retired_at: null }).execute();
        }
        if (!existing.some((r) => r.kind === 'cookie')) {
          const kid = randomUUID();
          await trx.insertInto('idp_key').values({ kid, kind: 'cookie', secret_enc: seal(key, `wb:idp:cookie:${kid}`, randomBytes(32).toString('base64url')), created_at: now, retired_at: null }).execute();
        }
      });
      rows = await db.selectFrom('idp_key').selectAll().orderBy('created_at', 'desc').orderBy('kid').execute();
    }
    const key = await this.key();
    const signingRows = rows.filter((r) => r.kind === 'signing').sort((a, b) => Number(!!a.retired_at) - Number(!!b.retired_at));
    const signing = signingRows.map((r) => JSON.parse(open(key, `wb:idp:signing:${r.kid}`, r.secret_enc).toString('utf8')) as Record<string, unknown>);
    const cookies = rows.filter((r) => r.kind === 'cookie').map((r) => open(key, `wb:idp:cookie:${r.kid}`, r.secret_enc).toString('utf8'));
    const publicJwks = {
      keys: signing.map((k) => ({ kty: k.kty, n: k.n, e: k.e, kid: k.kid, alg: k.alg, use: k.use })),
    };
    return { signing, publicJwks, cookies, version: rows.map((r) => `${r.kid}:${r.retired_at ? 'r' : 'a'}`).join(',') };
  }

  /** Version string only, to notice cheaply that another process rotated. */
  async version(): Promise<string> {
    const rows = await this.ctx.db.selectFrom('idp_key').select(['kid', 'retired_at']).orderBy('created_at', 'desc').orderBy('kid').execute();
    return rows.map((r) => `${r.kid}:${r.retired_at ? 'r' : 'a'}`).join(',');
  }

  /**
   * Adds a new signing key that signs from now on, and retires the previous ones:
   * they stay published (tokens they signed still verify) until their retention ends.
   */
  async rotateSigningKey(): Promise<string> {
    const now = new Date();
    await this.ctx.db.updateTable('idp_key').set({ retired_at: now }).where('kind', '=', 'signing').where('retired_at', 'is', null).execute();
    return this.insertSigning();
  }
}
