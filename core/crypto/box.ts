/**
 * Sealed box: a case's data key (or any short secret) wrapped to a public key, so that
 * only the holder of the private key opens it: handlers, the company's recovery key,
 * a colleague granted the case.
 *
 *     box  = 2 ‖ ephemeral public key (65, uncompressed P-256) ‖ nonce (12) ‖ ciphertext ‖ tag (16)
 *     key  = HKDF-SHA-256(ECDH(ephemeral, recipient), salt = ephemeral raw ‖ recipient raw,
 *            info = "wb:wrap:<case id>:<epoch>:<recipient key id>") → AES-256-GCM
 *
 * No additional data: everything the box is bound to (both public keys, case, epoch,
 * recipient) is already in the key's derivation, so one that is moved to another case,
 * epoch or recipient derives another key and does not open.
 *
 * Invariants: a fresh ephemeral key pair per box, its private half never leaves the
 * call; the recipient key id is always SHA-256 of the recipient's SPKI (checked, not
 * trusted, on both sides).
 */
import { bufferSource, concat, randomBytes, toHex, utf8, type Bytes } from './bytes.ts';
import { EnvelopeError } from './errors.ts';
import { NONCE_BYTES, TAG_BYTES, gcmOpen, gcmSeal } from './aead.ts';

export const BOX_VERSION = 2;
const POINT_BYTES = 65;
const ECDH = { name: 'ECDH', namedCurve: 'P-256' } as const;

const subtle = () => globalThis.crypto.subtle;

export interface WrapInfo {
  caseId: string;
  /** The case's key epoch: a new data key after a revocation. */
  epoch: number;
  /** keyId(recipient SPKI). */
  recipientKeyId: string;
  /**
   * A box that is not a data key's wrapping (core/crypto/mail.ts: the reporter's
   * notification address to the mail key): info `wb:mail:<case id>:<purpose>:<recipient
   * key id>` instead, so no such box ever opens as a wrap, nor a wrap as one.
   */
  purpose?: string;
  /** With `purpose`: `stats` for core/crypto/statistics.ts (info `wb:stats:…`), `draft` for core/crypto/draft.ts (`wb:draft:…`), else mail. */
  domain?: 'mail' | 'stats' | 'draft';
}

/** hex(SHA-256(SPKI)): how the key log, wrappings and the server name a public key. */
export async function keyId(spki: Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await subtle().digest('SHA-256', bufferSource(spki))));
}

async function importEcdhPublic(spki: Uint8Array): Promise<CryptoKey> {
  try {
    return await subtle().importKey('spki', bufferSource(spki), ECDH, true, []);
  } catch {
    throw new EnvelopeError('key', 'not a P-256 public key');
  }
}

function wrapInfo(info: WrapInfo): Bytes {
  if (info.purpose !== undefined) return utf8(`wb:${info.domain ?? 'mail'}:${info.caseId}:${info.purpose}:${info.recipientKeyId}`);
  return utf8(`wb:wrap:${info.caseId}:${info.epoch}:${info.recipientKeyId}`);
}

async function boxKey(privateKey: CryptoKey, peer: CryptoKey, salt: Uint8Array, info: WrapInfo): Promise<CryptoKey> {
  const shared = await subtle().deriveBits({ name: 'ECDH', public: peer }, privateKey, 256);
  const base = await subtle().importKey('raw', shared, 'HKDF', false, ['deriveKey']);
  return subtle().deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: bufferSource(salt), info: wrapInfo(info) }, base, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
}

async function checkKeyId(spki: Uint8Array, info: WrapInfo): Promise<void> {
  if ((await keyId(spki)) !== info.recipientKeyId) throw new EnvelopeError('key', 'the recipient key id is not the key’s');
}

/** `secret` (the data key) sealed to the ECDH P-256 public key `recipientSpki`. */
export async function sealToPublicKey(recipientSpki: Uint8Array, secret: Uint8Array, info: WrapInfo): Promise<Bytes> {
  await checkKeyId(recipientSpki, info);
  const recipient = await importEcdhPublic(recipientSpki);
  const recipientRaw = new Uint8Array(await subtle().exportKey('raw', recipient));
  const ephemeral = await subtle().generateKey(ECDH, false, ['deriveBits']);
  const ephemeralRaw = new Uint8Array(await subtle().exportKey('raw', ephemeral.publicKey));
  const key = await boxKey(ephemeral.privateKey, recipient, concat(ephemeralRaw, recipientRaw), info);
  const nonce = randomBytes(NONCE_BYTES);
  return concat(Uint8Array.of(BOX_VERSION), ephemeralRaw, nonce, await gcmSeal(key, nonce, new Uint8Array(0), secret));
}

/**
 * The secret in `box`. `recipient` is the ECDH key pair the box was sealed to (a
 * CryptoKeyPair, or the private key with its SPKI: a non-extractable private key
 * cannot give its public half).
 */
export async function openSealedBox(recipient: { privateKey: CryptoKey; publicKey: CryptoKey | Uint8Array }, box: Uint8Array, info: WrapInfo): Promise<Bytes> {
  if (box.length < 1 + POINT_BYTES + NONCE_BYTES + TAG_BYTES || box[0] !== BOX_VERSION) throw new EnvelopeError('format', 'not a sealed box');
  const spki = recipient.publicKey instanceof Uint8Array ? recipient.publicKey : new Uint8Array(await subtle().exportKey('spki', recipient.publicKey));
  await checkKeyId(spki, info);
  const recipientRaw = new Uint8Array(await subtle().exportKey('raw', await importEcdhPublic(spki)));
  const ephemeralRaw = box.slice(1, 1 + POINT_BYTES);
  let ephemeral: CryptoKey;
  try {
    ephemeral = await subtle().importKey('raw', ephemeralRaw, ECDH, false, []);
  } catch {
    throw new EnvelopeError('format', 'the ephemeral key is not a P-256 point');
  }
  let key: CryptoKey;
  try {
    key = await boxKey(recipient.privateKey, ephemeral, concat(ephemeralRaw, recipientRaw), info);
  } catch {
    throw new EnvelopeError('key', 'the private key is not an ECDH P-256 key');
  }
  const at = 1 + POINT_BYTES;
  return gcmOpen(key, box.subarray(at, at + NONCE_BYTES), new Uint8Array(0), box.subarray(at + NONCE_BYTES));
}
