/**
 * The reporter's keys, from case number and password (docs/decisions/blind-server.md,
 * "Reporters").
 *
 *     secret       = KDF(digits(case number) ‖ 0x00 ‖ NFC(password), salt of the case)
 *     reporter key = HKDF(secret, info "wb:reporter:key")      → AES-256-GCM, wraps the data key
 *     verifier     = HKDF(secret, info "wb:reporter:verifier") → 32 bytes, sent at sign-in
 *
 * Invariants: the verifier and the reporter key are independent HKDF outputs, so the
 * server, which sees the verifier, learns nothing of the key; the reporter key is
 * non-extractable. The case number counts by its digits only ("1234-5678…" and
 * "12345678…" are the same case); the password is NFC-normalised so the same password
 * typed on two keyboards derives the same keys.
 */
import { concat, randomBytes, utf8, type Bytes } from './bytes.ts';
import { EnvelopeError } from './errors.ts';
import { NONCE_BYTES, TAG_BYTES, gcmOpen, gcmSeal } from './aead.ts';
import { DATA_KEY_BYTES } from './field.ts';
import { deriveSecret, hkdfAesKey, hkdfBytes, hkdfMaterial, type Kdf, type KdfOptions } from './kdf.ts';

const WRAP_VERSION = 1;

export function normaliseCaseNumber(caseNumber: string): string {
  return caseNumber.replace(/\D/g, '');
}

export interface ReporterKeys {
  /** AES-256-GCM, non-extractable: wraps and unwraps the case's data key. */
  reporterKey: CryptoKey;
  /** 32 bytes the server checks at sign-in (against a peppered Argon2id hash). */
  verifier: Bytes;
}

type ReporterInput = { caseNumber: string; password: string; salt: Uint8Array; kdf: Kdf };

async function reporterMaterial(input: ReporterInput, options?: KdfOptions): Promise<CryptoKey> {
  const digits = normaliseCaseNumber(input.caseNumber);
  if (!digits) throw new EnvelopeError('kdf', 'a case number has digits');
  const secret = await deriveSecret(concat(utf8(digits), Uint8Array.of(0), utf8(input.password.normalize('NFC'))), input.salt, input.kdf, options);
  const material = await hkdfMaterial(secret);
  secret.fill(0);
  return material;
}

export async function deriveReporterKeys(input: ReporterInput, options?: KdfOptions): Promise<ReporterKeys> {
  const material = await reporterMaterial(input, options);
  return { reporterKey: await hkdfAesKey(material, 'wb:reporter:key'), verifier: await hkdfBytes(material, 'wb:reporter:verifier') };
}

/**
 * The reporter key's 32 raw bytes (the same key as `deriveReporterKeys`), for the one
 * place that hands it over within a tab as raw bytes: the private area, when it derives
 * the key itself after an external issuer's sign-in, as the provider's sign-in page
 * hands over its own derivation. The caller zeroes them.
 */
export async function deriveReporterKeyBytes(input: ReporterInput, options?: KdfOptions): Promise<Bytes> {
  return hkdfBytes(await reporterMaterial(input, options), 'wb:reporter:key');
}

function wrapAad(caseId: string, epoch: number): Bytes {
  return utf8(`wb:reporter-key:${caseId}:${epoch}`);
}

/** The data key wrapped under the reporter key: `1 ‖ nonce ‖ ciphertext ‖ tag`, bound to case and epoch. */
export async function wrapDataKey(reporterKey: CryptoKey, dataKey: Uint8Array, at: { caseId: string; epoch: number }): Promise<Bytes> {
  if (dataKey.length !== DATA_KEY_BYTES) throw new EnvelopeError('key', 'a data key is 32 bytes');
  const nonce = randomBytes(NONCE_BYTES);
  return concat(Uint8Array.of(WRAP_VERSION), nonce, await gcmSeal(reporterKey, nonce, wrapAad(at.caseId, at.epoch), dataKey));
}

export async function unwrapDataKey(reporterKey: CryptoKey, wrapped: Uint8Array, at: { caseId: string; epoch: number }): Promise<Bytes> {
  if (wrapped.length !== 1 + NONCE_BYTES + DATA_KEY_BYTES + TAG_BYTES || wrapped[0] !== WRAP_VERSION) throw new EnvelopeError('format', 'not a wrapped data key');
  return gcmOpen(reporterKey, wrapped.subarray(1, 1 + NONCE_BYTES), wrapAad(at.caseId, at.epoch), wrapped.subarray(1 + NONCE_BYTES));
}
