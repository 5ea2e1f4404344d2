/**
 * A light proof-of-work for anonymous submissions (docs/decisions/submission-abuse.md,
 * docs/api.md "Proof of work"). The server hands out stateless challenges, signed
 * with a key derived from the master key and carrying their own difficulty and
 * expiry; a client finds a nonce so that SHA-256(challenge + ":" + nonce) starts with
 * `difficulty` zero bits and sends `X-Proof-Of-Work: <challenge>:<nonce>`. A spent
 * challenge is recorded in `pow_spent` until it expires, so one solution pays for one
 * submission, across every server process on the database.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { HttpError } from '../errors.ts';
import { leadingZeroBits, type PowChallenge } from '../../core/pow.ts';

export { POW_HEADER } from '../../core/pow.ts';

const VERSION = 'v1';
const NONCE = /^[0-9a-z]{1,24}$/;

export interface PowSettings {
  /** Leading zero bits; 0 turns the proof off. */
  difficulty: number;
  ttlSeconds: number;
}

export class ProofOfWork {
  private spends = 0;

  constructor(
    private readonly key: Buffer,
    private readonly db: Database,
    readonly settings: PowSettings,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.settings.difficulty > 0;
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest().subarray(0, 16).toString('base64url');
  }

  /** A fresh challenge: `v1.<difficulty>.<expiry, unix seconds>.<random id>.<mac>`. */
  issue(): PowChallenge {
    const expires = Math.floor(this.now() / 1000) + this.settings.ttlSeconds;
    const body = `${VERSION}.${this.settings.difficulty}.${expires}.${randomBytes(16).toString('base64url')}`;
    return { challenge: `${body}.${this.mac(body)}`, difficulty: this.settings.difficulty, expiresAt: new Date(expires * 1000).toISOString() };
  }

  /**
   * Checks the header and spends its challenge; throws a 403 with a code naming what
   * is wrong (POW_REQUIRED, POW_INVALID, POW_EXPIRED, POW_REUSED).
   */
  async spend(header: string | string[] | undefined): Promise<void> {
    if (!this.enabled) return;
    if (typeof header !== 'string' || header === '') {
      throw new HttpError(403, 'POW_REQUIRED', 'This call needs a solved proof-of-work challenge in X-Proof-Of-Work (docs/api.md).');
    }
    const cut = header.lastIndexOf(':');
    const challenge = header.slice(0, cut);
    const nonce = header.slice(cut + 1);
    const parts = challenge.split('.');
    const invalid = () => new HttpError(403, 'POW_INVALID', 'The proof-of-work is not a solution of a challenge from this server.');
    if (cut < 0 || parts.length !== 5 || parts[0] !== VERSION || !NONCE.test(nonce)) throw invalid();
    const [, bits, exp, id, mac] = parts as [string, string, string, string, string];
    const expected = Buffer.from(this.mac(parts.slice(0, 4).join('.')));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
    const difficulty = Number(bits);
    const expires = Number(exp);
    // An operator who raised the work factor refuses challenges handed out before.
    if (!Number.isInteger(difficulty) || difficulty < this.settings.difficulty) throw invalid();
    if (!Number.isInteger(expires) || expires * 1000 <= this.now()) {
      throw new HttpError(403, 'POW_EXPIRED', 'The proof-of-work challenge has expired; fetch a new one.');
    }
    const digest = createHash('sha256').update(`${challenge}:${nonce}`).digest();
    if (leadingZeroBits(digest) < difficulty) throw invalid();
    const spent = await this.db
      .insertInto('pow_spent')
      .values({ id, expires_at: new Date(expires * 1000) })
      .onConflict((oc) => oc.column('id').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!spent) throw new HttpError(403, 'POW_REUSED', 'This proof-of-work has been used already; solve a new challenge.');
    // Expired records can go: their challenges are refused by their expiry anyway.
    if (++this.spends % 100 === 1) await this.db.deleteFrom('pow_spent').where('expires_at', '<', sql<Date>`now()`).execute();
  }
}
