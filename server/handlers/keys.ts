/**
 * Handlers' keys on the server (docs/decisions/blind-server.md, "Handlers"): what the
 * browser made at enrolment (core/crypto/handler-wire.ts) checked for shape and stored,
 * the salt a sign-in page derives with, and the sealed copies handed back for unlocking.
 *
 * The server can check only form here, never the keys' secret halves: it cannot open
 * the sealed copies (they are sealed under the handler's password and recovery code,
 * which never come here). It refuses what would break a later sign-in in every browser:
 * a derivation below the floor (core/crypto checkKdf), keys that do not import, blobs
 * of the wrong version or size.
 *
 * An unknown e-mail gets a salt from HMAC(company, e-mail) under a server key and the
 * default derivation: the same answer, every time, as a real account's.
 */
import { createHmac } from 'node:crypto';
import * as v from 'valibot';
import { ARGON2ID_DEFAULT, checkKdf, EnvelopeError, fromBase64, toBase64, type HandlerKeyBundle, type Kdf } from '../../core/crypto/index.ts';
import type { AppContext } from '../context.ts';
import type { Company } from '../companies/service.ts';
import { HttpError } from '../errors.ts';
import { normalizeEmail, signInCandidates } from './accounts.ts';

const b64 = (max: number) => v.pipe(v.string(), v.maxLength(max), v.regex(/^[A-Za-z0-9+/]+={0,2}$/, 'must be base64'));
export const kdfSchema = v.union([
  v.object({ name: v.literal('argon2id-v1'), m: v.number(), t: v.number(), p: v.number() }),
  v.object({ name: v.literal('pbkdf2-v1'), iterations: v.number() }),
]);
export const keyBundleSchema = v.object({
  salt: b64(100),
  kdf: kdfSchema,
  verifier: b64(100),
  recoveryVerifier: b64(100),
  ecdhSpki: b64(512),
  ecdsaSpki: b64(512),
  sealedKeys: b64(4096),
  sealedKeysRecovery: b64(4096),
});

export interface StoredKeys {
  key_salt: Uint8Array;
  key_kdf: string;
  ecdh_spki: Uint8Array;
  ecdsa_spki: Uint8Array;
  keys_sealed: Uint8Array;
  keys_sealed_recovery: Uint8Array;
}

const asBytes = (b: Uint8Array) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

async function imports(spki: Uint8Array, name: 'ECDH' | 'ECDSA'): Promise<boolean> {
  try {
    await crypto.subtle.importKey('spki', asBytes(spki) as BufferSource, { name, namedCurve: 'P-256' }, true, name === 'ECDSA' ? ['verify'] : []);
    return true;
  } catch {
    return false;
  }
}

/** The bundle as columns, with the verifier apart; 400 KEY_INVALID (field named) when it is not usable. */
export async function checkKeyBundle(bundle: HandlerKeyBundle): Promise<{ columns: StoredKeys; verifier: string; recoveryVerifier: string }> {
  const bad = (field: string, why: string) => new HttpError(400, 'KEY_INVALID', why, field);
  try {
    checkKdf(bundle.kdf);
  } catch (err) {
    if (err instanceof EnvelopeError) throw bad('kdf', 'The key derivation is unknown or weaker than the floor.');
    throw err;
  }
  const salt = fromBase64(bundle.salt);
  if (salt.length < 16 || salt.length > 64) throw bad('salt', 'The salt is 16 to 64 bytes.');
  if (fromBase64(bundle.verifier).length !== 32) throw bad('verifier', 'The verifier is 32 bytes.');
  if (fromBase64(bundle.recoveryVerifier).length !== 32 || bundle.recoveryVerifier === bundle.verifier) throw bad('recoveryVerifier', 'The recovery verifier is 32 bytes of its own.');
  const ecdh = fromBase64(bundle.ecdhSpki);
  const ecdsa = fromBase64(bundle.ecdsaSpki);
  if (!(await imports(ecdh, 'ECDH'))) throw bad('ecdhSpki', 'Send an ECDH P-256 public key as SPKI.');
  if (!(await imports(ecdsa, 'ECDSA'))) throw bad('ecdsaSpki', 'Send an ECDSA P-256 public key as SPKI.');
  const sealed = fromBase64(bundle.sealedKeys);
  const sealedRecovery = fromBase64(bundle.sealedKeysRecovery);
  // 1 ‖ nonce(12) ‖ ciphertext ‖ tag(16): two PKCS#8 P-256 keys in JSON are well over 64 bytes.
  for (const [field, s] of [['sealedKeys', sealed], ['sealedKeysRecovery', sealedRecovery]] as const) {
    if (s[0] !== 1 || s.length < 64) throw bad(field, 'Send the private keys sealed in the browser (core/crypto sealPrivateKeys).');
  }
  const { kdf } = bundle;
  const kdfJson = JSON.stringify(kdf.name === 'argon2id-v1' ? { name: kdf.name, m: kdf.m, t: kdf.t, p: kdf.p } : { name: kdf.name, iterations: kdf.iterations });
  return { columns: { key_salt: salt, key_kdf: kdfJson, ecdh_spki: ecdh, ecdsa_spki: ecdsa, keys_sealed: sealed, keys_sealed_recovery: sealedRecovery }, verifier: bundle.verifier, recoveryVerifier: bundle.recoveryVerifier };
}

export interface SaltAnswer {
  salt: string;
  kdf: Kdf;
  /** An account enrolled before handler keys: its next sign-in sends the password once and the new keys (handler-accounts.md). */
  legacy?: true;
}

/** What a sign-in page derives with: the account's own salt and derivation, or a stable look-alike. */
export async function signInSalt(ctx: AppContext, company: Company | null, emailInput: string): Promise<SaltAnswer> {
  const email = normalizeEmail(emailInput);
  // The account the sign-in itself would find (server/handlers/auth.ts signIn): the
  // company's own first, then an operator's; on a host with no company, operators only.
  const row = await signInCandidates(ctx.db, company, email).select(['key_salt', 'key_kdf', 'password_hash']).executeTakeFirst();
  if (row?.key_salt && row.key_kdf) return { salt: toBase64(asBytes(row.key_salt)), kdf: JSON.parse(row.key_kdf) as Kdf };
  const salt = createHmac('sha256', ctx.crypto.deriveKey('handler-salt')).update(`${company?.id ?? 'operator-host'}\u0000${email}`).digest().subarray(0, 16);
  return { salt: toBase64(salt), kdf: { ...ARGON2ID_DEFAULT }, ...(row?.password_hash ? { legacy: true as const } : {}) };
}

/** The handler's sealed keys for unlocking; 404 KEYS_MISSING for a legacy account not yet upgraded. */
export async function sealedKeysOf(ctx: AppContext, handlerId: string) {
  const row = await ctx.db
    .selectFrom('handler_account')
    .select(['key_salt', 'key_kdf', 'ecdh_spki', 'ecdsa_spki', 'keys_sealed', 'keys_sealed_recovery'])
    .where('id', '=', handlerId)
    .executeTakeFirst();
  if (!row?.key_salt || !row.key_kdf || !row.ecdh_spki || !row.ecdsa_spki || !row.keys_sealed || !row.keys_sealed_recovery) {
    throw new HttpError(404, 'KEYS_MISSING', 'This account has no keys yet: sign in again with the password to make them.');
  }
  return {
    salt: toBase64(asBytes(row.key_salt)),
    kdf: JSON.parse(row.key_kdf) as Kdf,
    ecdhSpki: toBase64(asBytes(row.ecdh_spki)),
    ecdsaSpki: toBase64(asBytes(row.ecdsa_spki)),
    sealedKeys: toBase64(asBytes(row.keys_sealed)),
    sealedKeysRecovery: toBase64(asBytes(row.keys_sealed_recovery)),
  };
}

/**
 * Colleagues of the company who have keys, for a certifier's browser to compare with the
 * key log. A disabled account is listed, marked, so that the browser neither offers it for
 * certification nor takes its key, still active in the log, for a live recipient; only a
 * certifier's signed remove entry takes it out of the log (the server cannot sign one).
 */
export async function colleaguesWithKeys(ctx: AppContext, companyId: string) {
  const rows = await ctx.db
    .selectFrom('handler_account')
    .select(['id', 'name', 'email', 'ecdh_spki', 'ecdsa_spki', 'disabled_at'])
    .where('company_id', '=', companyId)
    .where('ecdh_spki', 'is not', null)
    .where('ecdsa_spki', 'is not', null)
    .orderBy('name')
    .execute();
  const officers = await ctx.db.selectFrom('handler_officer').innerJoin('handler_account', 'handler_account.id', 'handler_officer.handler_id').select(['handler_id', 'officer_id']).where('handler_account.company_id', '=', companyId).orderBy('officer_id').execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    email: r.email,
    ecdhSpki: toBase64(asBytes(r.ecdh_spki!)),
    ecdsaSpki: toBase64(asBytes(r.ecdsa_spki!)),
    officerIds: officers.filter((o) => o.handler_id === r.id).map((o) => o.officer_id),
    disabled: r.disabled_at !== null,
  }));
}
