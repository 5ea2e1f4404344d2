/**
 * Password-based derivation: a case number and password (reporters), a password or a
 * recovery code (handlers) into 32 bytes, and from those, by HKDF with distinct info
 * strings, the keys each use needs.
 *
 * Two functions, recorded with what they protect so the same one runs at sign-in:
 * - `argon2id-v1`: Argon2id (m = 64 MiB, t = 3, p = 1, 32 bytes) from hash-wasm,
 *   WebAssembly. The default.
 * - `pbkdf2-v1`: PBKDF2-HMAC-SHA-256, 600,000 iterations, through WebCrypto: where
 *   WebAssembly or the JIT is off (Tor Browser "Safer"). Never Argon2 in plain
 *   JavaScript: without a JIT it runs ~27× slower (issue 37).
 *
 * Invariants: parameters come from the server, which must not be able to weaken them:
 * below the floor (or above a ceiling that would exhaust the page) is refused with
 * EnvelopeError('kdf') unless a test turns the floor off. The raw output is never used
 * as a key itself, only as HKDF input.
 */
import { argon2id } from 'hash-wasm';
import { bufferSource, utf8, type Bytes } from './bytes.ts';
import { EnvelopeError } from './errors.ts';

export type Kdf = { name: 'argon2id-v1'; m: number; t: number; p: number } | { name: 'pbkdf2-v1'; iterations: number };

export const ARGON2ID_DEFAULT = { name: 'argon2id-v1', m: 65536, t: 3, p: 1 } as const satisfies Kdf;
export const PBKDF2_DEFAULT = { name: 'pbkdf2-v1', iterations: 600_000 } as const satisfies Kdf;

export interface KdfOptions {
  /**
   * Refuse parameters below the defaults (true unless set). Only tests set false, to
   * keep a test that is not about cost fast; pages and scripted clients never do.
   */
  enforceFloor?: boolean;
  /**
   * Another implementation of the same Argon2id (v1.3, 32 bytes out): the server passes
   * @node-rs/argon2's native one, which runs on libuv's thread pool instead of blocking
   * the event loop as WebAssembly would. Same function, same bytes
   * (test/unit/core-crypto-derive.test.ts); the parameters are checked before it runs.
   */
  argon2id?: (input: Uint8Array, salt: Uint8Array, params: { m: number; t: number; p: number }) => Promise<Uint8Array>;
}

const SECRET_BYTES = 32;
const subtle = () => globalThis.crypto.subtle;

/** Throws EnvelopeError('kdf') for an unknown function or parameters out of bounds. */
export function checkKdf(kdf: Kdf, options: KdfOptions = {}): void {
  const floor = options.enforceFloor ?? true;
  const int = (n: unknown, min: number, max: number) => typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max;
  if (kdf.name === 'argon2id-v1') {
    // The ceilings keep a hostile server from making the page allocate gigabytes.
    const ok = int(kdf.m, floor ? ARGON2ID_DEFAULT.m : 8, 1 << 20) && int(kdf.t, floor ? ARGON2ID_DEFAULT.t : 1, 20) && int(kdf.p, 1, 8) && kdf.m >= 8 * kdf.p;
    if (!ok) throw new EnvelopeError('kdf', 'Argon2id parameters out of bounds');
  } else if (kdf.name === 'pbkdf2-v1') {
    if (!int(kdf.iterations, floor ? PBKDF2_DEFAULT.iterations : 1, 10_000_000)) throw new EnvelopeError('kdf', 'PBKDF2 iterations out of bounds');
  } else {
    throw new EnvelopeError('kdf', `unknown key derivation ${(kdf as { name: unknown }).name}`);
  }
}

/** The 32-byte output of `kdf` over `input` and `salt`. */
export async function deriveSecret(input: Uint8Array, salt: Uint8Array, kdf: Kdf, options: KdfOptions = {}): Promise<Bytes> {
  checkKdf(kdf, options);
  if (salt.length < 8) throw new EnvelopeError('kdf', 'a salt is at least 8 bytes');
  if (kdf.name === 'argon2id-v1') {
    if (options.argon2id) return new Uint8Array(await options.argon2id(input, salt, { m: kdf.m, t: kdf.t, p: kdf.p }));
    const out = await argon2id({ password: input, salt, iterations: kdf.t, parallelism: kdf.p, memorySize: kdf.m, hashLength: SECRET_BYTES, outputType: 'binary' });
    return new Uint8Array(out);
  }
  const base = await subtle().importKey('raw', bufferSource(input), 'PBKDF2', false, ['deriveBits']);
  return new Uint8Array(await subtle().deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: bufferSource(salt), iterations: kdf.iterations }, base, SECRET_BYTES * 8));
}

/** The derived secret as HKDF key material (non-extractable). */
export function hkdfMaterial(secret: Uint8Array): Promise<CryptoKey> {
  return subtle().importKey('raw', bufferSource(secret), 'HKDF', false, ['deriveKey', 'deriveBits']);
}

/** An AES-256-GCM key (non-extractable) from HKDF material under `info`. */
export function hkdfAesKey(material: CryptoKey, info: string): Promise<CryptoKey> {
  return subtle().deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: utf8(info) }, material, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
}

/** 32 bytes from HKDF material under `info`. */
export async function hkdfBytes(material: CryptoKey, info: string): Promise<Bytes> {
  return new Uint8Array(await subtle().deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: utf8(info) }, material, 256));
}

let argon2Usable: Promise<boolean> | undefined;

/**
 * The derivation this runtime should use for a new case or key: Argon2id when
 * WebAssembly works (tried, not assumed: a page may have the object but not be allowed
 * to compile), else PBKDF2 through WebCrypto.
 */
export async function chooseKdf(): Promise<Kdf> {
  argon2Usable ??= (async () => {
    try {
      if (typeof WebAssembly !== 'object') return false;
      await argon2id({ password: 'probe', salt: new Uint8Array(8), iterations: 1, parallelism: 1, memorySize: 8, hashLength: 32, outputType: 'binary' });
      return true;
    } catch {
      return false;
    }
  })();
  return (await argon2Usable) ? { ...ARGON2ID_DEFAULT } : { ...PBKDF2_DEFAULT };
}
