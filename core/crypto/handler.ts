/**
 * Handlers' key pairs (and the company recovery key's: the same shape), made in the
 * browser at enrolment, and their private halves sealed for the server to keep
 * (docs/decisions/blind-server.md, "Handlers").
 *
 *     keys       = ECDH P-256 (receives sealed boxes) + ECDSA P-256 (signs key-log entries)
 *     secret     = KDF("wb:handler:password" ‖ 0x00 ‖ NFC(password), salt)
 *               or KDF("wb:handler:recovery" ‖ 0x00 ‖ normalised recovery code, salt)
 *     keys key   = HKDF(secret, info "wb:handler:keys")     → AES-256-GCM
 *     verifier   = HKDF(secret, info "wb:handler:verifier") → 32 bytes, sent at sign-in
 *     sealed     = 1 ‖ nonce ‖ AES-GCM(keys key, JSON {v, ecdh, ecdsa: base64 PKCS#8},
 *                  additional data "wb:handler:keys") ‖ tag
 *
 * Invariants: the server holds only public keys and sealed blobs; opened private keys
 * are non-extractable CryptoKeys (a script on the page can use them but not copy them
 * out); a recovery code carries at least 128 random bits.
 */
import { bufferSource, concat, fromBase64, fromUtf8, randomBytes, toBase64, utf8, type Bytes } from './bytes.ts';
import { EnvelopeError } from './errors.ts';
import { NONCE_BYTES, TAG_BYTES, gcmOpen, gcmSeal } from './aead.ts';
import { deriveSecret, hkdfAesKey, hkdfBytes, hkdfMaterial, type Kdf, type KdfOptions } from './kdf.ts';

const ECDH = { name: 'ECDH', namedCurve: 'P-256' } as const;
const ECDSA = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SEALED_VERSION = 1;
const SEALED_AAD = 'wb:handler:keys';
const subtle = () => globalThis.crypto.subtle;

export interface HandlerKeys {
  ecdh: CryptoKeyPair;
  ecdsa: CryptoKeyPair;
  ecdhSpki: Bytes;
  ecdsaSpki: Bytes;
}

async function spkiOf(key: CryptoKey): Promise<Bytes> {
  return new Uint8Array(await subtle().exportKey('spki', key));
}

/** Fresh key pairs, extractable until sealed (sealPrivateKeys exports them); drop them once sealed. */
export async function makeHandlerKeys(): Promise<HandlerKeys> {
  const ecdh = await subtle().generateKey(ECDH, true, ['deriveBits']);
  const ecdsa = await subtle().generateKey(ECDSA, true, ['sign', 'verify']);
  return { ecdh, ecdsa, ecdhSpki: await spkiOf(ecdh.publicKey), ecdsaSpki: await spkiOf(ecdsa.publicKey) };
}

// Crockford's base32: no I, L, O or U, so a printed code is read back without doubt.
const RECOVERY_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RECOVERY_SYMBOLS = 28; // 140 bits
const RECOVERY_GROUP = 4;

/** A recovery code to print once: 28 base32 symbols (140 random bits) in groups of four. */
export function makeRecoveryCode(): string {
  // 256 is a multiple of 32, so `byte & 31` is uniform.
  const symbols = Array.from(randomBytes(RECOVERY_SYMBOLS), (b) => RECOVERY_ALPHABET[b & 31]!).join('');
  return symbols.match(new RegExp(`.{${RECOVERY_GROUP}}`, 'g'))!.join('-');
}

/** A typed-in recovery code as it is derived from: case, spaces and dashes ignored, O read as 0, I and L as 1. */
export function normaliseRecoveryCode(code: string): string {
  const s = code.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  if (s.length !== RECOVERY_SYMBOLS || [...s].some((c) => !RECOVERY_ALPHABET.includes(c))) throw new EnvelopeError('format', 'not a recovery code');
  return s;
}

export type HandlerSecret = { password: string } | { recoveryCode: string };

/** The key that seals a handler's private keys, and the sign-in verifier, from one derivation. */
export async function deriveHandlerSecret(secret: HandlerSecret, salt: Uint8Array, kdf: Kdf, options?: KdfOptions): Promise<{ keysKey: CryptoKey; verifier: Bytes }> {
  const input = 'password' in secret ? `wb:handler:password\u0000${secret.password.normalize('NFC')}` : `wb:handler:recovery\u0000${normaliseRecoveryCode(secret.recoveryCode)}`;
  const raw = await deriveSecret(utf8(input), salt, kdf, options);
  const material = await hkdfMaterial(raw);
  raw.fill(0);
  return { keysKey: await hkdfAesKey(material, 'wb:handler:keys'), verifier: await hkdfBytes(material, 'wb:handler:verifier') };
}

/** Both private keys sealed under a keys key (deriveHandlerSecret). */
export async function sealPrivateKeysWith(keysKey: CryptoKey, keys: { ecdh: CryptoKeyPair; ecdsa: CryptoKeyPair }): Promise<Bytes> {
  const pkcs8 = async (k: CryptoKey) => toBase64(new Uint8Array(await subtle().exportKey('pkcs8', k)));
  const plain = utf8(JSON.stringify({ v: 1, ecdh: await pkcs8(keys.ecdh.privateKey), ecdsa: await pkcs8(keys.ecdsa.privateKey) }));
  const nonce = randomBytes(NONCE_BYTES);
  const sealed = concat(Uint8Array.of(SEALED_VERSION), nonce, await gcmSeal(keysKey, nonce, utf8(SEALED_AAD), plain));
  plain.fill(0);
  return sealed;
}

/** The private key of `pkcs8` (non-extractable) and its public half, which PKCS#8 from WebCrypto carries. */
async function importPair(pkcs8: Uint8Array, algorithm: typeof ECDH | typeof ECDSA, usages: KeyUsage[], publicUsages: KeyUsage[]): Promise<{ pair: CryptoKeyPair; spki: Bytes }> {
  let jwk: JsonWebKey;
  let privateKey: CryptoKey;
  try {
    // Extractable only for this moment, to read the public point out of it.
    jwk = await subtle().exportKey('jwk', await subtle().importKey('pkcs8', bufferSource(pkcs8), algorithm, true, usages));
    privateKey = await subtle().importKey('pkcs8', bufferSource(pkcs8), algorithm, false, usages);
  } catch {
    throw new EnvelopeError('key', `not a ${algorithm.name} P-256 private key`);
  }
  const publicKey = await subtle().importKey('jwk', { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, ext: true }, algorithm, true, publicUsages);
  return { pair: { privateKey, publicKey }, spki: await spkiOf(publicKey) };
}

/** The sealed private keys, opened into non-extractable CryptoKeys with their public halves. */
export async function openPrivateKeysWith(keysKey: CryptoKey, sealed: Uint8Array): Promise<HandlerKeys> {
  if (sealed.length < 1 + NONCE_BYTES + TAG_BYTES || sealed[0] !== SEALED_VERSION) throw new EnvelopeError('format', 'not sealed handler keys');
  const plain = await gcmOpen(keysKey, sealed.subarray(1, 1 + NONCE_BYTES), utf8(SEALED_AAD), sealed.subarray(1 + NONCE_BYTES));
  let parsed: { v?: unknown; ecdh?: unknown; ecdsa?: unknown };
  try {
    parsed = JSON.parse(fromUtf8(plain)) as typeof parsed;
  } catch {
    throw new EnvelopeError('format', 'sealed handler keys hold no key set');
  } finally {
    plain.fill(0);
  }
  if (parsed.v !== 1 || typeof parsed.ecdh !== 'string' || typeof parsed.ecdsa !== 'string') throw new EnvelopeError('format', 'sealed handler keys hold no key set');
  const ecdh = await importPair(fromBase64(parsed.ecdh), ECDH, ['deriveBits'], []);
  const ecdsa = await importPair(fromBase64(parsed.ecdsa), ECDSA, ['sign'], ['verify']);
  return { ecdh: ecdh.pair, ecdsa: ecdsa.pair, ecdhSpki: ecdh.spki, ecdsaSpki: ecdsa.spki };
}

/** Both private keys sealed under a password or recovery code. */
export async function sealPrivateKeys(keys: { ecdh: CryptoKeyPair; ecdsa: CryptoKeyPair }, secret: HandlerSecret, salt: Uint8Array, kdf: Kdf, options?: KdfOptions): Promise<Bytes> {
  return sealPrivateKeysWith((await deriveHandlerSecret(secret, salt, kdf, options)).keysKey, keys);
}

export async function openPrivateKeys(sealed: Uint8Array, secret: HandlerSecret, salt: Uint8Array, kdf: Kdf, options?: KdfOptions): Promise<HandlerKeys> {
  return openPrivateKeysWith((await deriveHandlerSecret(secret, salt, kdf, options)).keysKey, sealed);
}
