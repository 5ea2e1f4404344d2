/**
 * What a handler's browser (or a scripted client, or the CLI) sends the server about its
 * keys, built from handler.ts: the enrolment bundle and the sign-in proof
 * (docs/decisions/blind-server.md, "Handlers"; docs/decisions/handler-accounts.md).
 *
 *     enrolment = { salt, kdf, verifier, recoveryVerifier, ecdhSpki, ecdsaSpki, sealedKeys, sealedKeysRecovery }
 *                 (bytes in base64; one salt per handler for both derivations, whose
 *                 inputs are domain-separated by handler.ts)
 *     sign-in   = { verifier } from deriveHandlerSecret(password or key recovery code, salt, kdf)
 *
 * Invariants: neither the password, the recovery code nor a private key appears in what
 * these functions return for the wire; the opened keys they return are non-extractable.
 */
import { randomBytes, toBase64, fromBase64 } from './bytes.ts';
import { keyId } from './box.ts';
import { deriveHandlerSecret, makeHandlerKeys, makeRecoveryCode, openPrivateKeysWith, sealPrivateKeysWith, type HandlerKeys } from './handler.ts';
import { chooseKdf, type Kdf, type KdfOptions } from './kdf.ts';

export const HANDLER_SALT_BYTES = 16;

export interface HandlerKeyBundle {
  salt: string;
  kdf: Kdf;
  verifier: string;
  /** The key recovery code's verifier: it signs in in place of the password when that is lost. */
  recoveryVerifier: string;
  ecdhSpki: string;
  ecdsaSpki: string;
  sealedKeys: string;
  sealedKeysRecovery: string;
}

/**
 * Fresh key pairs sealed under the password and under a new recovery code (to show
 * once), the verifier for the server, and the keys opened again as non-extractable
 * CryptoKeys for this page's memory.
 */
export async function makeHandlerKeyBundle(password: string, opts: { kdf?: Kdf; options?: KdfOptions } = {}): Promise<{ bundle: HandlerKeyBundle; recoveryCode: string; keys: HandlerKeys }> {
  const kdf = opts.kdf ?? (await chooseKdf());
  const salt = randomBytes(HANDLER_SALT_BYTES);
  const made = await makeHandlerKeys();
  const recoveryCode = makeRecoveryCode();
  const byPassword = await deriveHandlerSecret({ password }, salt, kdf, opts.options);
  const byRecovery = await deriveHandlerSecret({ recoveryCode }, salt, kdf, opts.options);
  const sealedKeys = await sealPrivateKeysWith(byPassword.keysKey, made);
  const sealedKeysRecovery = await sealPrivateKeysWith(byRecovery.keysKey, made);
  // The extractable pairs are dropped here; the page keeps only what it can use, not copy.
  const keys = await openPrivateKeysWith(byPassword.keysKey, sealedKeys);
  return {
    bundle: {
      salt: toBase64(salt),
      kdf,
      verifier: toBase64(byPassword.verifier),
      recoveryVerifier: toBase64(byRecovery.verifier),
      ecdhSpki: toBase64(made.ecdhSpki),
      ecdsaSpki: toBase64(made.ecdsaSpki),
      sealedKeys: toBase64(sealedKeys),
      sealedKeysRecovery: toBase64(sealedKeysRecovery),
    },
    recoveryCode,
    keys,
  };
}

/** The sign-in verifier (base64) and the key that opens the sealed private keys, from one derivation. */
export async function handlerSignInProof(secret: { password: string } | { recoveryCode: string }, salt: string, kdf: Kdf, options?: KdfOptions): Promise<{ verifier: string; keysKey: CryptoKey }> {
  const d = await deriveHandlerSecret(secret, fromBase64(salt), kdf, options);
  return { verifier: toBase64(d.verifier), keysKey: d.keysKey };
}

/** A key's fingerprint as handlers compare it aloud: keyId of the ECDSA SPKI, in groups of four. */
export async function keyFingerprint(spki: Uint8Array | string): Promise<string> {
  const id = await keyId(typeof spki === 'string' ? fromBase64(spki) : spki);
  return id.slice(0, 32).match(/.{4}/g)!.join(' ');
}
