/**
 * Handlers' keys on the server (docs/decisions/blind-server.md, "Handlers";
 * server/handlers/keys.ts): enrolment stores what the browser made, sign-in proves the
 * password with the verifier only, an unknown e-mail gets a look-alike salt, the sealed
 * keys come back and open only with the password (or the key recovery code), a legacy
 * account is upgraded at its next sign-in, and the first handler with keys may set the
 * company's recovery key from the workspace.
 */
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, expectError } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { fromBase64, handlerSignInProof, keyId, makeHandlerKeyBundle, makeHandlerKeys, openPrivateKeys, PBKDF2_DEFAULT, toBase64, EnvelopeError, type Kdf } from '../../core/crypto/index.ts';
import { verifierFor } from '../helpers/handler-keys.ts';

const HOST = 'hk.test';
const PASSWORD = 'correct horse battery';
let server: TestServer;

class Client {
  cookie = '';
  async call(method: string, p: string, json?: unknown) {
    const r = await call(server, method, p, { host: HOST, json, headers: this.cookie ? { cookie: this.cookie } : {} });
    const set = r.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0]!;
    return r;
  }
}

const totp = (secret: string, step = 0) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + step * 30_000 });
const salt = async (email: string) => (await call(server, 'POST', '/api/handler/session/salt', { host: HOST, json: { email } })).data as { salt: string; kdf: Kdf; legacy?: true };

async function enrol(email: string) {
  const account = await createHandlerAccount(server.ctx.db, 'hk', email.split('@')[0]!, { email });
  const start = await call(server, 'POST', '/api/handler/enrolment/start', { host: HOST, json: { code: account.enrolmentCode } });
  const made = await makeHandlerKeyBundle(PASSWORD, { kdf: { ...PBKDF2_DEFAULT } });
  const fin = await call(server, 'POST', '/api/handler/enrolment/finish', { host: HOST, json: { code: account.enrolmentCode, keys: made.bundle, totpCode: totp(start.data.secret) } });
  expect(fin.status, JSON.stringify(fin.data)).toBe(200);
  return { id: account.id, email, secret: start.data.secret as string, bundle: made.bundle, keyRecoveryCode: made.recoveryCode, signInCodes: fin.data.recoveryCodes as string[] };
}

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, identity: { throttle: { freeFailures: 100, delayBaseMs: 0 } } });
  await addCompany(server.ctx.db, { id: 'hk', hosts: [HOST] });
});
afterAll(async () => server?.cleanup());

describe('enrolment with keys made in the browser', () => {
  it('stores the public keys and both sealed copies; the password hash is of the verifier, not of the password', async () => {
    const h = await enrol('sealed@example.org');
    const row = await server.ctx.db.selectFrom('handler_account').selectAll().where('id', '=', h.id).executeTakeFirstOrThrow();
    expect(toBase64(new Uint8Array(row.ecdh_spki!))).toBe(h.bundle.ecdhSpki);
    expect(toBase64(new Uint8Array(row.keys_sealed!))).toBe(h.bundle.sealedKeys);
    expect(toBase64(new Uint8Array(row.keys_sealed_recovery!))).toBe(h.bundle.sealedKeysRecovery);
    expect(await server.ctx.passwords.verify(row.password_hash!, h.bundle.verifier)).toBe(true);
    expect(await server.ctx.passwords.verify(row.password_hash!, PASSWORD)).toBe(false);
    expect(await server.ctx.passwords.verify(row.recovery_verifier_hash!, h.bundle.recoveryVerifier)).toBe(true);
    expect(JSON.stringify(row)).not.toContain(h.keyRecoveryCode);
    // Nothing stored holds the password.
    expect(JSON.stringify(row)).not.toContain(PASSWORD);
  });
});

describe('the sign-in salt', () => {
  it('answers a known account its own salt and an unknown e-mail a stable look-alike of the same shape', async () => {
    const h = await enrol('known@example.org');
    const known = await salt('known@example.org');
    expect(known).toEqual({ salt: h.bundle.salt, kdf: h.bundle.kdf });
    const a = await salt('nobody@example.org');
    const b = await salt(' Nobody@Example.org');
    expect(a).toEqual(b);
    expect(Object.keys(a).sort()).toEqual(['kdf', 'salt']);
    expect(fromBase64(a.salt)).toHaveLength(fromBase64(known.salt).length);
    expect(a.salt).not.toBe((await salt('someone-else@example.org')).salt);
    // Another company's server key and id: the same e-mail gets another salt there.
    await addCompany(server.ctx.db, { id: 'hk2', hosts: ['hk2.test'] });
    const there = (await call(server, 'POST', '/api/handler/session/salt', { host: 'hk2.test', json: { email: 'nobody@example.org' } })).data;
    expect(there.salt).not.toBe(a.salt);
    expectError(await call(server, 'POST', '/api/handler/session/salt', { host: HOST, json: {} }), 400, 'VALIDATION');
  });
});

describe('sign-in with the verifier', () => {
  it('signs in with the verifier and the TOTP code; the plain password is refused for an account with keys', async () => {
    const h = await enrol('verifier@example.org');
    const c = new Client();
    // The password itself (with a bundle, as a legacy upgrade would send) is not accepted.
    expectError(await c.call('POST', '/api/handler/session', { email: h.email, password: PASSWORD, keys: h.bundle, code: totp(h.secret, 1) }), 401, 'SIGNIN_FAILED');
    expectError(await c.call('POST', '/api/handler/session', { email: h.email, verifier: await verifierFor('wrong password!', h.bundle), code: totp(h.secret, 1) }), 401, 'SIGNIN_FAILED');
    const ok = await c.call('POST', '/api/handler/session', { email: h.email, verifier: await verifierFor(PASSWORD, await salt(h.email)), code: totp(h.secret, 1) });
    expect(ok.status, JSON.stringify(ok.data)).toBe(200);
    // The sealed keys come back to the signed-in handler and open with the password or the key recovery code only.
    const keys = await c.call('GET', '/api/handler/keys');
    expect(keys.status).toBe(200);
    expect(keys.data).toEqual({ salt: h.bundle.salt, kdf: h.bundle.kdf, ecdhSpki: h.bundle.ecdhSpki, ecdsaSpki: h.bundle.ecdsaSpki, sealedKeys: h.bundle.sealedKeys, sealedKeysRecovery: h.bundle.sealedKeysRecovery });
    const opened = await openPrivateKeys(fromBase64(keys.data.sealedKeys), { password: PASSWORD }, fromBase64(keys.data.salt), keys.data.kdf);
    expect(toBase64(opened.ecdsaSpki)).toBe(h.bundle.ecdsaSpki);
    expect(opened.ecdh.privateKey.extractable).toBe(false);
    const byCode = await openPrivateKeys(fromBase64(keys.data.sealedKeysRecovery), { recoveryCode: h.keyRecoveryCode }, fromBase64(keys.data.salt), keys.data.kdf);
    expect(toBase64(byCode.ecdhSpki)).toBe(h.bundle.ecdhSpki);
    await expect(openPrivateKeys(fromBase64(keys.data.sealedKeys), { password: 'wrong password!' }, fromBase64(keys.data.salt), keys.data.kdf)).rejects.toBeInstanceOf(EnvelopeError);
    expectError(await new Client().call('GET', '/api/handler/keys'), 401, 'UNAUTHORIZED');
    // A lost password: the key recovery code's verifier signs in in its place.
    const proof = await handlerSignInProof({ recoveryCode: h.keyRecoveryCode }, h.bundle.salt, h.bundle.kdf);
    expect(proof.verifier).toBe(h.bundle.recoveryVerifier);
    expect((await new Client().call('POST', '/api/handler/session', { email: h.email, verifier: proof.verifier, code: h.signInCodes[0] })).status).toBe(200);
  });
});

describe('a legacy account (a password hash, no keys)', () => {
  async function legacy(email: string) {
    const account = await createHandlerAccount(server.ctx.db, 'hk', email.split('@')[0]!, { email });
    const secret = new OTPAuth.Secret({ size: 20 });
    await server.ctx.db
      .updateTable('handler_account')
      .set({ password_hash: await server.ctx.passwords.hash(PASSWORD), totp_secret_enc: server.ctx.crypto.sealWithMaster(`handler-totp:${account.id}`, secret.bytes), enrolled_at: new Date(), enrolment_code_hash: null, enrolment_expires_at: null })
      .where('id', '=', account.id)
      .execute();
    return { id: account.id, email, secret: secret.base32 };
  }

  it('says so in its salt answer, signs in once with the password and the new keys, and from then on only with the verifier', async () => {
    const h = await legacy('old@example.org');
    const s = await salt(h.email);
    expect(s.legacy).toBe(true);
    const c = new Client();
    const made = await makeHandlerKeyBundle(PASSWORD, { kdf: { ...PBKDF2_DEFAULT } });
    // No verifier can match a hash of the password itself.
    expectError(await c.call('POST', '/api/handler/session', { email: h.email, verifier: await verifierFor(PASSWORD, s), code: totp(h.secret) }), 401, 'SIGNIN_FAILED');
    expectError(await c.call('POST', '/api/handler/session', { email: h.email, password: 'wrong password!', keys: made.bundle, code: totp(h.secret) }), 401, 'SIGNIN_FAILED');
    expectError(await c.call('POST', '/api/handler/session', { email: h.email, password: PASSWORD, keys: { ...made.bundle, ecdsaSpki: 'AAAA' }, code: totp(h.secret) }), 400, 'KEY_INVALID', 'ecdsaSpki');
    let row = await server.ctx.db.selectFrom('handler_account').select(['key_salt']).where('id', '=', h.id).executeTakeFirstOrThrow();
    expect(row.key_salt).toBeNull();
    const ok = await c.call('POST', '/api/handler/session', { email: h.email, password: PASSWORD, keys: made.bundle, code: totp(h.secret) });
    expect(ok.status, JSON.stringify(ok.data)).toBe(200);
    expect((await c.call('GET', '/api/handler/keys')).data.sealedKeys).toBe(made.bundle.sealedKeys);
    const after = await salt(h.email);
    expect(after).toEqual({ salt: made.bundle.salt, kdf: made.bundle.kdf });
    const again = await makeHandlerKeyBundle(PASSWORD, { kdf: { ...PBKDF2_DEFAULT } });
    expectError(await new Client().call('POST', '/api/handler/session', { email: h.email, password: PASSWORD, keys: again.bundle, code: totp(h.secret, 1) }), 401, 'SIGNIN_FAILED');
    expect((await new Client().call('POST', '/api/handler/session', { email: h.email, verifier: await verifierFor(PASSWORD, after), code: totp(h.secret, 1) })).status).toBe(200);
    row = await server.ctx.db.selectFrom('handler_account').select(['key_salt']).where('id', '=', h.id).executeTakeFirstOrThrow();
    expect(toBase64(new Uint8Array(row.key_salt!))).toBe(made.bundle.salt);
  });

  it('has no sealed keys to hand out before it has keys', async () => {
    const { token } = await createHandlerAccount(server.ctx.db, 'hk', 'Tokenonly');
    expectError(await call(server, 'GET', '/api/handler/keys', { host: HOST, headers: { authorization: `Bearer ${token}` } }), 404, 'KEYS_MISSING');
  });
});

describe('the recovery key from the workspace', () => {
  it('lets a signed-in handler with keys set an unset anchor once; colleagues with keys are listed for certifying', async () => {
    const h = await enrol('first@example.org');
    const c = new Client();
    expect((await c.call('POST', '/api/handler/session', { email: h.email, verifier: await verifierFor(PASSWORD, h.bundle), code: totp(h.secret, 1) })).status).toBe(200);
    const recovery = await makeHandlerKeys();
    const body = { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) };
    const set = await c.call('POST', '/api/handler/key-anchor', body);
    expect(set.status, JSON.stringify(set.data)).toBe(201);
    expect(set.data.fingerprint).toBe(await keyId(recovery.ecdsaSpki));
    expectError(await c.call('POST', '/api/handler/key-anchor', { ecdhSpki: toBase64((await makeHandlerKeys()).ecdhSpki), ecdsaSpki: body.ecdsaSpki }), 409, 'KEY_ANCHOR_SET');
    const colleagues = (await c.call('GET', '/api/handler/keys/colleagues')).data.handlers as { id: string; ecdsaSpki: string }[];
    expect(colleagues.find((x) => x.id === h.id)?.ecdsaSpki).toBe(h.bundle.ecdsaSpki);
    // A token-only account (no keys) cannot start a company's log.
    const tokenOnly = await createHandlerAccount(server.ctx.db, 'hk2', 'Nokeys');
    expectError(await call(server, 'POST', '/api/handler/key-anchor', { host: 'hk2.test', json: body, headers: { authorization: `Bearer ${tokenOnly.token}` } }), 409, 'KEYS_MISSING');
  });
});

