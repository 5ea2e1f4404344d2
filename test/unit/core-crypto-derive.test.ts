// core/crypto derivations: reporter keys and verifier, the data key wrapped to the
// reporter, handler key pairs sealed under a password or a recovery code.
import { describe, expect, it, vi } from 'vitest';
import { refusal } from './core-crypto.kit.ts';
import {
  ARGON2ID_DEFAULT,
  EnvelopeError,
  PBKDF2_DEFAULT,
  chooseKdf,
  deriveHandlerSecret,
  deriveReporterKeyBytes,
  deriveReporterKeys,
  keyId,
  makeDataKey,
  makeHandlerKeys,
  makeRecoveryCode,
  normaliseCaseNumber,
  normaliseRecoveryCode,
  openPrivateKeys,
  openSealedBox,
  randomBytes,
  sealPrivateKeys,
  sealToPublicKey,
  toHex,
  unwrapDataKey,
  wrapDataKey,
  type Kdf,
} from '../../core/crypto/index.ts';


// Cheap parameters for the tests that are not about cost (the floor is turned off for them).
const FAST_ARGON: Kdf = { name: 'argon2id-v1', m: 64, t: 1, p: 1 };
const FAST_PBKDF2: Kdf = { name: 'pbkdf2-v1', iterations: 1000 };
const weak = { enforceFloor: false };
const salt = Uint8Array.from({ length: 16 }, (_, i) => i);

describe('core reporter keys', () => {
  it('the raw bytes handed over within a tab are the reporter key itself: they open what it wrapped, another password’s do not', async () => {
    const dk = makeDataKey();
    const at = { caseId: 'c', epoch: 1 };
    const { reporterKey } = await deriveReporterKeys({ caseNumber: '1234567890123456', password: 'correct horse', salt, kdf: FAST_PBKDF2 }, weak);
    const wrapped = await wrapDataKey(reporterKey, dk, at);
    const raw = await deriveReporterKeyBytes({ caseNumber: '1234 5678 9012 3456', password: 'correct horse', salt, kdf: FAST_PBKDF2 }, weak);
    expect(raw).toHaveLength(32);
    const imported = await crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['decrypt']);
    expect(toHex(await unwrapDataKey(imported, wrapped, at))).toBe(toHex(dk));
    const other = await deriveReporterKeyBytes({ caseNumber: '1234567890123456', password: 'battery staple', salt, kdf: FAST_PBKDF2 }, weak);
    await expect(unwrapDataKey(await crypto.subtle.importKey('raw', other, 'AES-GCM', false, ['decrypt']), wrapped, at)).rejects.toThrow();
  });

  it('the same inputs give the same verifier and a reporter key that opens what the first wrapped', async () => {
    const dk = makeDataKey();
    for (const kdf of [FAST_ARGON, FAST_PBKDF2]) {
      const a = await deriveReporterKeys({ caseNumber: '1234-5678-9012-3456', password: 'correct horse', salt, kdf }, weak);
      const b = await deriveReporterKeys({ caseNumber: '1234567890123456', password: 'correct horse', salt, kdf }, weak);
      expect(a.verifier.length).toBe(32);
      expect(toHex(a.verifier)).toBe(toHex(b.verifier));
      expect(a.reporterKey.extractable).toBe(false);
      const wrapped = await wrapDataKey(a.reporterKey, dk, { caseId: 'c1', epoch: 0 });
      expect(toHex(await unwrapDataKey(b.reporterKey, wrapped, { caseId: 'c1', epoch: 0 }))).toBe(toHex(dk));
    }
  });

  it('a password in another Unicode normal form derives the same keys', async () => {
    const nfc = await deriveReporterKeys({ caseNumber: '1', password: 'Mühle', salt, kdf: FAST_PBKDF2 }, weak);
    const nfd = await deriveReporterKeys({ caseNumber: '1', password: 'Mu\u0308hle', salt, kdf: FAST_PBKDF2 }, weak);
    expect(toHex(nfd.verifier)).toBe(toHex(nfc.verifier));
  });

  it('another password, case number, salt or function gives another verifier; argon2id and pbkdf2 differ', async () => {
    const base: { caseNumber: string; password: string; salt: Uint8Array; kdf: Kdf } = { caseNumber: '1234567890123456', password: 'pw', salt, kdf: FAST_ARGON };
    const v = async (over: Partial<typeof base>) => toHex((await deriveReporterKeys({ ...base, ...over }, weak)).verifier);
    const seen = new Set([await v({}), await v({ password: 'pW' }), await v({ caseNumber: '1234567890123457' }), await v({ salt: randomBytes(16) }), await v({ kdf: FAST_PBKDF2 }), await v({ kdf: { name: 'argon2id-v1', m: 64, t: 2, p: 1 } })]);
    expect(seen.size).toBe(6);
  });

  it('the verifier does not unwrap the data key, and the reporter key refuses another case, epoch or password', async () => {
    const dk = makeDataKey();
    const { reporterKey, verifier } = await deriveReporterKeys({ caseNumber: '42', password: 'pw', salt, kdf: FAST_PBKDF2 }, weak);
    const wrapped = await wrapDataKey(reporterKey, dk, { caseId: 'c1', epoch: 1 });
    expect(wrapped.length).toBe(1 + 12 + 32 + 16);
    const asKey = await crypto.subtle.importKey('raw', verifier, 'AES-GCM', false, ['decrypt']);
    expect(await refusal(unwrapDataKey(asKey, wrapped, { caseId: 'c1', epoch: 1 }))).toBe('authentication');
    expect(await refusal(unwrapDataKey(reporterKey, wrapped, { caseId: 'c2', epoch: 1 }))).toBe('authentication');
    expect(await refusal(unwrapDataKey(reporterKey, wrapped, { caseId: 'c1', epoch: 2 }))).toBe('authentication');
    const other = await deriveReporterKeys({ caseNumber: '42', password: 'pw2', salt, kdf: FAST_PBKDF2 }, weak);
    expect(await refusal(unwrapDataKey(other.reporterKey, wrapped, { caseId: 'c1', epoch: 1 }))).toBe('authentication');
    expect(await refusal(wrapDataKey(reporterKey, new Uint8Array(16), { caseId: 'c1', epoch: 1 }))).toBe('key');
  });

  it('refuses parameters below the floor (a server cannot weaken them), above the ceilings, or unknown', async () => {
    const input = { caseNumber: '1', password: 'pw', salt };
    expect(await refusal(deriveReporterKeys({ ...input, kdf: FAST_ARGON }))).toBe('kdf');
    expect(await refusal(deriveReporterKeys({ ...input, kdf: { name: 'pbkdf2-v1', iterations: 599_999 } }))).toBe('kdf');
    expect(await refusal(deriveReporterKeys({ ...input, kdf: { name: 'argon2id-v1', m: 4 << 20, t: 3, p: 1 } }))).toBe('kdf');
    expect(await refusal(deriveReporterKeys({ ...input, kdf: { name: 'scrypt' } as unknown as Kdf }))).toBe('kdf');
    expect(await refusal(deriveReporterKeys({ ...input, salt: new Uint8Array(4), kdf: FAST_PBKDF2 }, weak))).toBe('kdf');
    expect(await refusal(deriveReporterKeys({ ...input, caseNumber: '--', kdf: FAST_PBKDF2 }, weak))).toBe('kdf');
  });

  it('normalises a case number to its digits', () => {
    expect(normaliseCaseNumber(' 1234-5678 9012\u20133456 ')).toBe('1234567890123456');
  });

  it('chooseKdf picks argon2id where WebAssembly works (Node)', async () => {
    expect(await chooseKdf()).toEqual(ARGON2ID_DEFAULT);
  });

  it('chooseKdf falls back to pbkdf2 where there is no WebAssembly (Tor Browser “Safer”)', async () => {
    vi.resetModules();
    vi.stubGlobal('WebAssembly', undefined);
    try {
      // A fresh copy of the module: the probe's answer is kept per page.
      const fresh = await import('../../core/crypto/kdf.ts');
      expect(await fresh.chooseKdf()).toEqual(PBKDF2_DEFAULT);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('the real parameters: argon2id (64 MiB, t = 3) and pbkdf2 (600,000) derive, and differ', { timeout: 120_000 }, async () => {
    const input = { caseNumber: '1234567890123456', password: 'a real password', salt: randomBytes(16) };
    let t = performance.now();
    const argon = await deriveReporterKeys({ ...input, kdf: ARGON2ID_DEFAULT });
    const argonMs = performance.now() - t;
    t = performance.now();
    const pbkdf2 = await deriveReporterKeys({ ...input, kdf: PBKDF2_DEFAULT });
    const pbkdf2Ms = performance.now() - t;
    expect(toHex(argon.verifier)).not.toBe(toHex(pbkdf2.verifier));
    expect(toHex((await deriveReporterKeys({ ...input, kdf: ARGON2ID_DEFAULT })).verifier)).toBe(toHex(argon.verifier));
    // Not a speed check (npm run bench -- crypto is); a hint in the log.
    console.info(`argon2id-v1 ${argonMs.toFixed(0)} ms, pbkdf2-v1 ${pbkdf2Ms.toFixed(0)} ms`);
  });
});

describe('core handler keys', () => {
  it('key pairs sealed under a password open into non-extractable keys that still work', async () => {
    const keys = await makeHandlerKeys();
    const sealed = await sealPrivateKeys(keys, { password: 'handler pw' }, salt, FAST_ARGON, weak);
    const opened = await openPrivateKeys(sealed, { password: 'handler pw' }, salt, FAST_ARGON, weak);
    expect(opened.ecdh.privateKey.extractable).toBe(false);
    expect(opened.ecdsa.privateKey.extractable).toBe(false);
    expect(toHex(opened.ecdhSpki)).toBe(toHex(keys.ecdhSpki));
    expect(toHex(opened.ecdsaSpki)).toBe(toHex(keys.ecdsaSpki));
    // The opened ECDH key opens a box sealed to the handler's public key.
    const dk = makeDataKey();
    const info = { caseId: 'c', epoch: 0, recipientKeyId: await keyId(keys.ecdhSpki) };
    expect(toHex(await openSealedBox(opened.ecdh, await sealToPublicKey(keys.ecdhSpki, dk, info), info))).toBe(toHex(dk));
    // The opened ECDSA key signs what the public key verifies.
    const msg = new Uint8Array([1, 2, 3]);
    const sig = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, opened.ecdsa.privateKey, msg);
    expect(await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, keys.ecdsa.publicKey, sig, msg)).toBe(true);
  });

  it('refuses the wrong password, the wrong salt, and an altered blob', async () => {
    const keys = await makeHandlerKeys();
    const sealed = await sealPrivateKeys(keys, { password: 'pw' }, salt, FAST_PBKDF2, weak);
    expect(await refusal(openPrivateKeys(sealed, { password: 'pw ' }, salt, FAST_PBKDF2, weak))).toBe('authentication');
    expect(await refusal(openPrivateKeys(sealed, { password: 'pw' }, randomBytes(16), FAST_PBKDF2, weak))).toBe('authentication');
    const bad = sealed.slice();
    bad[40]! ^= 1;
    expect(await refusal(openPrivateKeys(bad, { password: 'pw' }, salt, FAST_PBKDF2, weak))).toBe('authentication');
  });

  it('a recovery code: 28 base32 symbols in groups, read back leniently, opening its own sealed copy only', async () => {
    const code = makeRecoveryCode();
    expect(code).toMatch(/^([0-9A-HJKMNP-TV-Z]{4}-){6}[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(makeRecoveryCode()).not.toBe(code);
    const typed = ` ${code.toLowerCase().replace(/0/g, 'o').replace(/1/g, 'l').replace(/-/g, ' ')} `;
    expect(normaliseRecoveryCode(typed)).toBe(code.replace(/-/g, ''));
    expect(() => normaliseRecoveryCode(code.slice(0, -1))).toThrow(EnvelopeError);
    const keys = await makeHandlerKeys();
    const byCode = await sealPrivateKeys(keys, { recoveryCode: code }, salt, FAST_ARGON, weak);
    expect(toHex((await openPrivateKeys(byCode, { recoveryCode: typed }, salt, FAST_ARGON, weak)).ecdsaSpki)).toBe(toHex(keys.ecdsaSpki));
    // The code's string as a password is another secret.
    expect(await refusal(openPrivateKeys(byCode, { password: code }, salt, FAST_ARGON, weak))).toBe('authentication');
  });

  it('the handler verifier is the same for the same password and independent of the keys key', async () => {
    const a = await deriveHandlerSecret({ password: 'pw' }, salt, FAST_PBKDF2, weak);
    const b = await deriveHandlerSecret({ password: 'pw' }, salt, FAST_PBKDF2, weak);
    expect(toHex(a.verifier)).toBe(toHex(b.verifier));
    const reporter = await deriveReporterKeys({ caseNumber: '1', password: 'pw', salt, kdf: FAST_PBKDF2 }, weak);
    expect(toHex(reporter.verifier)).not.toBe(toHex(a.verifier));
    expect(a.keysKey.extractable).toBe(false);
  });
});
