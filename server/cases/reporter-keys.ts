/**
 * The reporter's sign-in secret as the server holds it (issue 37, docs/decisions/
 * blind-server.md "Reporters"): never the password, only the **verifier** the
 * reporter's browser derives from case number and password (core/crypto
 * `deriveReporterKeys`), hashed again with Argon2id and the pepper as a password
 * hash was (server/cases/passwords.ts), beside the case's salt and the derivation
 * (`kdf`) the browser used.
 *
 * Invariants:
 * - A verifier is 32 bytes, sent as base64url (43 characters); anything else is 400.
 * - A `kdf` is one core/crypto accepts *with its floor on* (`checkKdf`): a client
 *   cannot record a weaker derivation for its case than the browser's defaults.
 * - The weaker path (a scripted client sends the spec's plain `password`) derives
 *   the same verifier here with the same core/crypto code, Argon2id on libuv's
 *   thread pool (@node-rs/argon2, the same function as hash-wasm's), and stores
 *   the same thing; the password is held for that request only.
 * - `legacy`: a case made before verifiers holds the Argon2id hash of its plain
 *   password and no salt or kdf; its next sign-in sends the password once with a
 *   fresh verifier, and the server swaps the one for the other (idp/index.ts).
 */
import { randomBytes } from 'node:crypto';
import { hashRaw } from '@node-rs/argon2';
import { ARGON2ID_DEFAULT, EnvelopeError, checkKdf, deriveReporterKeys, type Kdf, type KdfOptions } from '../../core/crypto/index.ts';
import { HttpError } from '../errors.ts';

export const SALT_BYTES = 16;
const VERIFIER = /^[A-Za-z0-9_-]{43}$/;

/** The derivation answered for an unknown case number, and used by the server's own (plain-path) derivation. */
export const DEFAULT_KDF: Kdf = { ...ARGON2ID_DEFAULT };

/** What `GET`s of the salt endpoint answer for a case made before verifiers: the page then sends the password once. */
export const LEGACY_KDF = { name: 'legacy' } as const;
export type AnsweredKdf = Kdf | typeof LEGACY_KDF;

/** The native Argon2id, handed to core/crypto so the event loop never runs the 64 MiB derivation. */
export const NATIVE_KDF: KdfOptions = {
  argon2id: (input, salt, p) =>
    hashRaw(Buffer.from(input.buffer, input.byteOffset, input.byteLength), {
      memoryCost: p.m,
      timeCost: p.t,
      parallelism: p.p,
      outputLen: 32,
      salt: Buffer.from(salt.buffer, salt.byteOffset, salt.byteLength),
    }),
};

export function newSalt(): Buffer {
  return randomBytes(SALT_BYTES);
}

/** The verifier as sent (base64url), or 400. Kept as the string: that is what is hashed. */
export function parseVerifier(value: unknown, field = 'verifier'): string {
  if (typeof value !== 'string' || !VERIFIER.test(value) || Buffer.from(value, 'base64url').length !== 32) {
    throw new HttpError(400, 'BAD_VERIFIER', 'A verifier is 32 bytes in base64url (43 characters).', field);
  }
  return value;
}

/** A salt as sent (base64url, 16 bytes), or 400. */
export function parseSalt(value: unknown, field = 'salt'): Buffer {
  const bytes = typeof value === 'string' && /^[A-Za-z0-9_-]{22}$/.test(value) ? Buffer.from(value, 'base64url') : null;
  if (!bytes || bytes.length !== SALT_BYTES) throw new HttpError(400, 'BAD_SALT', 'A salt is 16 bytes in base64url (22 characters).', field);
  return bytes;
}

/** A derivation a client says it used, or 400 `BAD_KDF`: only those core/crypto accepts at full strength. */
export function parseKdf(value: unknown, field = 'kdf'): Kdf {
  let raw = value;
  if (typeof raw === 'string') {
    try {
      raw = JSON.parse(raw);
    } catch {
      raw = null;
    }
  }
  const o = raw as Record<string, unknown> | null;
  const kdf: Kdf | null =
    o && typeof o === 'object' && o.name === 'argon2id-v1'
      ? { name: 'argon2id-v1', m: o.m as number, t: o.t as number, p: o.p as number }
      : o && typeof o === 'object' && o.name === 'pbkdf2-v1'
        ? { name: 'pbkdf2-v1', iterations: o.iterations as number }
        : null;
  try {
    if (!kdf) throw new EnvelopeError('kdf', 'unknown');
    checkKdf(kdf);
  } catch {
    throw new HttpError(400, 'BAD_KDF', 'The key derivation is argon2id-v1 (m ≥ 65536, t ≥ 3) or pbkdf2-v1 (≥ 600,000 iterations).', field);
  }
  return kdf;
}

/** The kdf column's text (stable key order, so equal derivations compare equal). */
export function kdfText(kdf: Kdf): string {
  return kdf.name === 'argon2id-v1' ? JSON.stringify({ name: kdf.name, m: kdf.m, t: kdf.t, p: kdf.p }) : JSON.stringify({ name: kdf.name, iterations: kdf.iterations });
}

export function kdfOf(column: string | null): AnsweredKdf {
  return column ? (JSON.parse(column) as Kdf) : LEGACY_KDF;
}

/** The weaker path: the verifier a browser would have derived, derived here (the password lives for this call only). */
export async function serverVerifier(caseNumber: string, password: string, salt: Uint8Array, kdf: Kdf): Promise<string> {
  return (await serverReporterKeys(caseNumber, password, salt, kdf)).verifier;
}

/**
 * The weaker path's one derivation, both halves: the verifier (base64url, as sent) and
 * the reporter key a browser would hold (a non-extractable AES-GCM CryptoKey). A case
 * sealed on arrival, or a legacy case at its password sign-in, wraps its data key to
 * that key (server/cases/sealed.ts, server/keys/migrate-wraps.ts); it lives for the call.
 */
export async function serverReporterKeys(caseNumber: string, password: string, salt: Uint8Array, kdf: Kdf): Promise<{ verifier: string; reporterKey: CryptoKey }> {
  const { verifier, reporterKey } = await deriveReporterKeys({ caseNumber, password, salt, kdf }, NATIVE_KDF);
  return { verifier: Buffer.from(verifier).toString('base64url'), reporterKey };
}

/** What a follow account is made of: the verifier's peppered hash, the salt and the derivation. */
export interface AccountSecret {
  passwordHash: string;
  salt: Buffer;
  kdf: Kdf;
}
