/**
 * AES-256-GCM through WebCrypto, shared by every format of the module (not exported
 * from the index: callers use the formats, never bare GCM).
 *
 * Invariants: the tag is 128 bits and stored after the ciphertext (WebCrypto's layout
 * and node:crypto's as the server writes it); a failed tag check becomes
 * EnvelopeError('authentication') and yields no plaintext.
 */
import { bufferSource, type Bytes } from './bytes.ts';
import { EnvelopeError } from './errors.ts';

export const NONCE_BYTES = 12;
export const TAG_BYTES = 16;

const subtle = () => globalThis.crypto.subtle;

/** AES-256-GCM: ciphertext ‖ tag (WebCrypto returns them joined, as the formats store them). */
export async function gcmSeal(key: CryptoKey, nonce: Uint8Array, aad: Uint8Array, plain: Uint8Array): Promise<Bytes> {
  return new Uint8Array(await subtle().encrypt({ name: 'AES-GCM', iv: bufferSource(nonce), additionalData: bufferSource(aad), tagLength: 128 }, key, bufferSource(plain)));
}

/** The inverse of gcmSeal; EnvelopeError('authentication') when the tag does not verify. */
export async function gcmOpen(key: CryptoKey, nonce: Uint8Array, aad: Uint8Array, sealed: Uint8Array): Promise<Bytes> {
  if (sealed.length < TAG_BYTES) throw new EnvelopeError('format', 'shorter than a tag');
  try {
    return new Uint8Array(await subtle().decrypt({ name: 'AES-GCM', iv: bufferSource(nonce), additionalData: bufferSource(aad), tagLength: 128 }, key, bufferSource(sealed)));
  } catch {
    // WebCrypto says only OperationError: the tag did not verify.
    throw new EnvelopeError('authentication', 'does not authenticate');
  }
}

