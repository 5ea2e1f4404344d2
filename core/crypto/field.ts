/**
 * Sealed fields: report details, identity, messages, records, notes, file names, and
 * any small secret wrapped under a symmetric key.
 *
 * Format (byte for byte server/crypto/case-crypto.ts `seal`/`open`, so the server's
 * existing rows open here and the migration rewrites no content):
 *
 *     1 ‖ nonce (12, random) ‖ ciphertext ‖ tag (16)
 *
 * AES-256-GCM under the case's data key; additional data = the context as UTF-8,
 * `wb:<case id>:<table.column>:<row id>` (fieldContext), so a value copied to another
 * case, column or row does not open.
 *
 * Invariants: a fresh random nonce per seal (96-bit random nonces stay far below the
 * 2^32-seals-per-key bound for one case); a key given as bytes must be 32 bytes; what
 * fails to open throws EnvelopeError and never returns partial plaintext.
 */
import { bufferSource, concat, fromUtf8, randomBytes, utf8, type Bytes } from './bytes.ts';
import { NONCE_BYTES, TAG_BYTES, gcmOpen, gcmSeal } from './aead.ts';
import { EnvelopeError } from './errors.ts';

export const FIELD_VERSION = 1;
export const DATA_KEY_BYTES = 32;

const subtle = () => globalThis.crypto.subtle;

/** 32 random bytes: a new case's (or a new key epoch's) data key. */
export function makeDataKey(): Bytes {
  return randomBytes(DATA_KEY_BYTES);
}

/** `wb:<case id>:<column>:<row id>`: the additional data naming where a field lives (as CaseCrypto#seal). */
export function fieldContext(caseId: string, column: string, rowId = ''): string {
  return `wb:${caseId}:${column}:${rowId}`;
}

/**
 * The data key as a non-extractable AES-GCM key, for sealing many fields without
 * importing the bytes each time. (Files need the key as HKDF input: file.ts imports
 * its own from the bytes.)
 */
export async function importFieldKey(raw: Uint8Array): Promise<CryptoKey> {
  if (raw.length !== DATA_KEY_BYTES) throw new EnvelopeError('key', 'a data key is 32 bytes');
  return subtle().importKey('raw', bufferSource(raw), { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
}

/** An AES-GCM CryptoKey as given, or the bytes imported as one. */
export async function aesKey(key: CryptoKey | Uint8Array): Promise<CryptoKey> {
  if (key instanceof Uint8Array) return importFieldKey(key);
  if (key.algorithm.name !== 'AES-GCM') throw new EnvelopeError('key', `an AES-GCM key is needed, not ${key.algorithm.name}`);
  return key;
}

/** `1 ‖ nonce ‖ ciphertext ‖ tag`, bound to `context`. */
export async function sealField(dataKey: CryptoKey | Uint8Array, context: string, plaintext: Uint8Array | string): Promise<Bytes> {
  const key = await aesKey(dataKey);
  const nonce = randomBytes(NONCE_BYTES);
  const data = typeof plaintext === 'string' ? utf8(plaintext) : plaintext;
  return concat(Uint8Array.of(FIELD_VERSION), nonce, await gcmSeal(key, nonce, utf8(context), data));
}

/** The plaintext of a sealed field; EnvelopeError when it is not one, or not this key's and context's. */
export async function openField(dataKey: CryptoKey | Uint8Array, context: string, sealed: Uint8Array): Promise<Bytes> {
  if (sealed.length < 1 + NONCE_BYTES + TAG_BYTES || sealed[0] !== FIELD_VERSION) throw new EnvelopeError('format', 'not a sealed value');
  const key = await aesKey(dataKey);
  return gcmOpen(key, sealed.subarray(1, 1 + NONCE_BYTES), utf8(context), sealed.subarray(1 + NONCE_BYTES));
}

/** openField, decoded as UTF-8 (a sealed text that is not UTF-8 is refused as 'format'). */
export async function openFieldText(dataKey: CryptoKey | Uint8Array, context: string, sealed: Uint8Array): Promise<string> {
  const plain = await openField(dataKey, context, sealed);
  try {
    return fromUtf8(plain);
  } catch {
    throw new EnvelopeError('format', 'not UTF-8 text');
  }
}
