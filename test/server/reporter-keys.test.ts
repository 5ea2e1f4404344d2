// Reporter keys on the server (issue 37, docs/decisions/blind-server.md): case-number
// reservations, the salt/kdf answer for sign-in (unknown numbers look alike), sign-in
// by verifier, the plain path of scripted clients, the legacy path of cases made
// before verifiers, and the new password as a verifier.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { call, caseDto, expectError, form, oralDto } from './api.ts';
import { Browser, MOUNT, deriveVerifier, formAction, kdfOf, newCase, officerOf, openSignIn, signIn, signInWithVerifier, withProof } from './identity-flow.ts';
import { ARGON2ID_DEFAULT, PBKDF2_DEFAULT, deriveReporterKeys, type Kdf } from '../../core/crypto/index.ts';

let server: TestServer;
let officer: string;
beforeAll(async () => {
  server = await startTestServer();
  officer = await officerOf(server, 'localhost');
});
afterAll(async () => server?.cleanup());

const b64u = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

async function reserve(host = 'localhost') {
  const res = await call(server, 'POST', '/api/public/case/reservation', { host });
  expect(res.status, JSON.stringify(res.data)).toBe(201);
  return res.data as { reservation: string; caseNumber: string; salt: string; expiresAt: string };
}

/** What the report form sends: the verifier of the reserved number, its salt and the kdf; never the password. */
async function derivedAccount(r: { reservation: string; caseNumber: string; salt: string }, password: string, kdf: Kdf = PBKDF2_DEFAULT) {
  const { verifier } = await deriveReporterKeys({ caseNumber: r.caseNumber, password, salt: Buffer.from(r.salt, 'base64url'), kdf });
  return { follow: true, reservation: r.reservation, verifier: b64u(verifier), kdf };
}

async function createDerived(account: unknown, host = 'localhost') {
  return call(server, 'POST', '/api/public/case/new/by-form', { host, body: form('caseDto', caseDto(officer, { caseAccount: account })) });
}

async function accountRow(caseNumber: string) {
  return server.ctx.db
    .selectFrom('case_account')
    .innerJoin('report_case', 'report_case.id', 'case_account.case_id')
    .select(['case_account.password_hash', 'case_account.salt', 'case_account.kdf', 'report_case.id'])
    .where('report_case.case_number', '=', caseNumber)
    .executeTakeFirstOrThrow();
}

describe('case number reservations', () => {
  it('a reservation gives a 16-digit number and a 16-byte salt; the case takes that number and stores the verifier hash, salt and kdf, no password', async () => {
    const r = await reserve();
    expect(r.caseNumber).toMatch(/^\d{16}$/);
    expect(Buffer.from(r.salt, 'base64url')).toHaveLength(16);
    const password = 'a reserved password';
    const account = await derivedAccount(r, password);
    const res = await createDerived(account);
    expect(res.status, JSON.stringify(res.data)).toBe(201);
    expect(res.data.caseDto.caseNumber).toBe(r.caseNumber);
    const row = await accountRow(r.caseNumber);
    expect(Buffer.from(row.salt!).toString('base64url')).toBe(r.salt);
    expect(JSON.parse(row.kdf!)).toEqual(PBKDF2_DEFAULT);
    expect(await server.ctx.passwords.verify(row.password_hash, account.verifier)).toBe(true);
    expect(await server.ctx.passwords.verify(row.password_hash, password)).toBe(false);
  });

  it('is single use: the second case with the same reservation is refused 409 RESERVATION_UNKNOWN', async () => {
    const r = await reserve();
    const account = await derivedAccount(r, 'once only');
    expect((await createDerived(account)).status).toBe(201);
    expectError(await createDerived(account), 409, 'RESERVATION_UNKNOWN', 'caseAccount.reservation');
  });

  it('expires, and belongs to the company it was made at', async () => {
    const r = await reserve();
    const account = await derivedAccount(r, 'too late');
    await server.ctx.db.updateTable('case_reservation').set({ expires_at: new Date(Date.now() - 1000) }).where('case_number', '=', r.caseNumber).execute();
    expectError(await createDerived(account), 409, 'RESERVATION_UNKNOWN');
    const other = await reserve();
    const elsewhere = await call(server, 'GET', '/api/public/case/company-info', { host: 'acme.localhost' });
    if (elsewhere.status === 200) {
      const res = await call(server, 'POST', '/api/public/case/new/by-form', {
        host: 'acme.localhost',
        body: form('caseDto', caseDto(elsewhere.data.protectionOfficers[0].id, { caseAccount: await derivedAccount(other, 'elsewhere') })),
      });
      expectError(res, 409, 'RESERVATION_UNKNOWN');
    }
    // A refused case leaves the reservation for the next try.
    const res = await createDerived({ ...(await derivedAccount(other, 'mine')) });
    expect(res.status).toBe(201);
  });

  it('needs a proof-of-work and counts against the submission budget', async () => {
    expectError(await call(server, 'POST', '/api/public/case/reservation', { host: 'localhost', pow: false }), 403, 'POW_REQUIRED');
    const tight = await startTestServer({ submitRateLimit: { max: 2, windowSeconds: 3600 } });
    try {
      for (let i = 0; i < 2; i++) expect((await call(tight, 'POST', '/api/public/case/reservation', { host: 'localhost' })).status).toBe(201);
      const third = await call(tight, 'POST', '/api/public/case/reservation', { host: 'localhost' });
      expectError(third, 429, 'RATE_LIMITED');
    } finally {
      await tight.cleanup();
    }
  });

  it('the case named by a live reservation in X-Case-Reservation costs no second budget or proof, once; another reservation in the body is refused', async () => {
    const tight = await startTestServer({ submitRateLimit: { max: 1, windowSeconds: 3600 } });
    try {
      const tightOfficer = await officerOf(tight, 'localhost');
      const res = await call(tight, 'POST', '/api/public/case/reservation', { host: 'localhost' });
      expect(res.status).toBe(201);
      const r = res.data;
      const headers = { 'x-case-reservation': r.reservation };
      // Another account in the body than the header's reservation: refused, and the pass is spent.
      const mismatch = await call(tight, 'POST', '/api/public/case/new/by-phone', { host: 'localhost', pow: false, headers, json: oralDto(tightOfficer) });
      expectError(mismatch, 400, 'RESERVATION_MISMATCH');
      const again = await call(tight, 'POST', '/api/public/case/new/by-phone', { host: 'localhost', pow: false, headers, json: oralDto(tightOfficer, { caseAccount: await derivedAccount(r, 'tight one') }) });
      // The pass is spent: the budget (used by the reservation) counts again, before any proof.
      expectError(again, 429, 'RATE_LIMITED');
      const r2 = await call(tight, 'POST', '/api/public/case/reservation', { host: 'localhost' });
      expectError(r2, 429, 'RATE_LIMITED');
    } finally {
      await tight.cleanup();
    }
    const roomy = await startTestServer({ submitRateLimit: { max: 1, windowSeconds: 3600 } });
    try {
      const roomyOfficer = await officerOf(roomy, 'localhost');
      const r = (await call(roomy, 'POST', '/api/public/case/reservation', { host: 'localhost' })).data;
      const made = await call(roomy, 'POST', '/api/public/case/new/by-phone', {
        host: 'localhost',
        pow: false,
        headers: { 'x-case-reservation': r.reservation },
        json: oralDto(roomyOfficer, { caseAccount: await derivedAccount(r, 'roomy one') }),
      });
      // The budget of one was the reservation's; the case passed on it, with no proof.
      expect(made.status, JSON.stringify(made.data)).toBe(201);
      expect(made.data.caseDto.caseNumber).toBe(r.caseNumber);
    } finally {
      await roomy.cleanup();
    }
  });

  it('refuses a derivation weaker than the defaults, a malformed verifier, and an oral case takes a reservation too', async () => {
    const r = await reserve();
    const weak = { ...(await derivedAccount(r, 'weak')), kdf: { name: 'pbkdf2-v1', iterations: 1000 } };
    expectError(await createDerived(weak), 400, 'BAD_KDF', 'caseAccount.kdf');
    const bad = await createDerived({ ...(await derivedAccount(r, 'x1234')), verifier: 'A'.repeat(42) });
    expect(bad.status).toBe(400);
    const oral = await call(server, 'POST', '/api/public/case/new/by-phone', { host: 'localhost', json: oralDto(officer, { caseAccount: await derivedAccount(r, 'oral one') }) });
    expect(oral.status, JSON.stringify(oral.data)).toBe(201);
    expect(oral.data.caseDto.caseNumber).toBe(r.caseNumber);
  });
});

describe('the salt and kdf answer before sign-in', () => {
  it('a known case gets its salt and kdf; an unknown number a look-alike of the same shape, the same each time', async () => {
    const r = await reserve();
    await createDerived(await derivedAccount(r, 'known one', ARGON2ID_DEFAULT));
    const b = new Browser(server);
    const known = await kdfOf(b, r.caseNumber);
    expect(known.status).toBe(200);
    expect(known.data).toEqual({ salt: r.salt, kdf: ARGON2ID_DEFAULT });
    let unknownNumber = '9' + r.caseNumber.slice(1);
    if (unknownNumber === r.caseNumber) unknownNumber = '8' + r.caseNumber.slice(1);
    const unknown = await kdfOf(b, unknownNumber);
    expect(unknown.status).toBe(200);
    // Same keys, same types, same lengths: nothing in the shape tells them apart.
    const shape = (d: any) => ({ keys: Object.keys(d).sort(), salt: Buffer.from(d.salt, 'base64url').length, saltChars: d.salt.length, kdf: d.kdf });
    expect(shape(unknown.data)).toEqual(shape(known.data));
    expect((await kdfOf(b, unknownNumber)).data.salt).toBe(unknown.data.salt);
    expect((await kdfOf(b, unknownNumber.replace(/(\d{4})(?=\d)/g, '$1 '))).data.salt).toBe(unknown.data.salt);
    expect((await kdfOf(b, '1' + unknownNumber.slice(1, 15) + '0')).data.salt).not.toBe(unknown.data.salt);
    expect((await kdfOf(b, '')).status).toBe(400);
  });

  it('is rate-limited per client', async () => {
    const tight = await startTestServer({ signinKdfRateLimit: { max: 2, windowSeconds: 600 } });
    try {
      const b = new Browser(tight);
      expect((await kdfOf(b, '1234567812345678')).status).toBe(200);
      expect((await kdfOf(b, '1234567812345679')).status).toBe(200);
      expect((await kdfOf(b, '1234567812345670')).status).toBe(429);
    } finally {
      await tight.cleanup();
    }
  });
});

describe('sign-in by verifier', () => {
  it('the verifier signs in; a wrong password’s verifier, an unknown number and a malformed verifier are refused alike', async () => {
    const r = await reserve();
    await createDerived(await derivedAccount(r, 'right password'));
    const b = new Browser(server);
    expect((await signInWithVerifier(b, r.caseNumber, 'right password')).tokens?.access_token).toBeTruthy();
    const wrong = await signInWithVerifier(new Browser(server), r.caseNumber, 'wrong password');
    expect(wrong.refused?.status).toBe(400);
    // Another first digit: a number that is surely not this case's (the case's own may start with a 9 and end with a 1).
    const unknown = await signInWithVerifier(new Browser(server), (r.caseNumber[0] === '9' ? '8' : '9') + r.caseNumber.slice(1, 15) + '1', 'right password');
    expect(unknown.refused?.status).toBe(400);
    const clean = (t: string) => t.replace(/interaction\/[\w-]+/g, '').replace(/value="[^"]*"/g, '');
    expect(clean(unknown.refused!.text)).toBe(clean(wrong.refused!.text));
    const { page } = await openSignIn(new Browser(server));
    const b2 = new Browser(server);
    const opened = await openSignIn(b2);
    const malformed = await b2.postForm(formAction(opened.page.text), withProof(opened.page.text, { caseNumber: r.caseNumber, verifier: 'not-a-verifier' }));
    expect(malformed.status).toBe(400);
    expect(page.text).not.toContain('name="password" type="password"');
  });
});

describe('the plain path of scripted clients', () => {
  it('a plain password makes the same account: the server derived the verifier, which the page’s derivation matches; plain sign-in works too', async () => {
    const caseNumber = await newCase(server, { password: 'scripted pass' });
    const row = await accountRow(caseNumber);
    expect(JSON.parse(row.kdf!)).toEqual(ARGON2ID_DEFAULT);
    expect(row.salt).toHaveLength(16);
    expect(await server.ctx.passwords.verify(row.password_hash, 'scripted pass')).toBe(false);
    const b = new Browser(server);
    const { verifier } = await deriveVerifier(b, caseNumber, 'scripted pass');
    expect(await server.ctx.passwords.verify(row.password_hash, verifier)).toBe(true);
    expect((await signInWithVerifier(new Browser(server), caseNumber, 'scripted pass')).tokens).toBeTruthy();
    expect((await signIn(new Browser(server), caseNumber, 'scripted pass')).access_token).toBeTruthy();
  });
});

describe('cases made before verifiers (legacy)', () => {
  it('answer kdf legacy; the password signs in once with a fresh verifier, which replaces the old hash', async () => {
    const caseNumber = await newCase(server, { password: 'old password' });
    const { id } = await accountRow(caseNumber);
    await server.ctx.db.updateTable('case_account').set({ password_hash: await server.ctx.passwords.hash('old password'), salt: null, kdf: null }).where('case_id', '=', id).execute();
    const b = new Browser(server);
    const answer = await kdfOf(b, caseNumber);
    expect(answer.data.kdf).toEqual({ name: 'legacy' });
    expect(Buffer.from(answer.data.salt, 'base64url')).toHaveLength(16);
    // A verifier cannot open it: only the password, once.
    const salt = Buffer.alloc(16, 7);
    const tryVerifier = new Browser(server);
    const opened = await openSignIn(tryVerifier);
    const asVerifier = await deriveReporterKeys({ caseNumber, password: 'old password', salt: Buffer.from(answer.data.salt, 'base64url'), kdf: ARGON2ID_DEFAULT });
    expect((await tryVerifier.postForm(formAction(opened.page.text), withProof(opened.page.text, { caseNumber, verifier: b64u(asVerifier.verifier) }))).status).toBe(400);
    const next = await deriveReporterKeys({ caseNumber, password: 'old password', salt, kdf: PBKDF2_DEFAULT });
    const { page } = await openSignIn(b);
    const res = await b.postForm(formAction(page.text), withProof(page.text, { caseNumber, password: 'old password', newVerifier: b64u(next.verifier), newSalt: salt.toString('base64url'), newKdf: JSON.stringify(PBKDF2_DEFAULT) }));
    expect(res.status, res.text).toBe(303);
    const row = await accountRow(caseNumber);
    expect(JSON.parse(row.kdf!)).toEqual(PBKDF2_DEFAULT);
    expect(Buffer.from(row.salt!)).toEqual(salt);
    expect(await server.ctx.passwords.verify(row.password_hash, b64u(next.verifier))).toBe(true);
    expect((await signInWithVerifier(new Browser(server), caseNumber, 'old password')).tokens).toBeTruthy();
  });
});

describe('the new password as a verifier', () => {
  it('the new-password step takes verifier, fresh salt and kdf, swaps them in, and the old password no longer signs in', async () => {
    const caseNumber = await newCase(server, { password: 'before change' });
    const tokens = await signIn(new Browser(server), caseNumber, 'before change');
    const asked = await call(server, 'PUT', '/api/private/case/password/request-update', { host: 'localhost', token: tokens.access_token });
    expect(asked.status, JSON.stringify(asked.data)).toBe(200);
    const b = new Browser(server);
    const { page } = await openSignIn(b);
    const { verifier } = await deriveVerifier(b, caseNumber, 'before change');
    const step = await b.postForm(formAction(page.text), withProof(page.text, { caseNumber, verifier }));
    expect(step.status).toBe(200);
    expect(step.text).toContain(`data-case-number="${caseNumber}"`);
    expect(step.text).not.toMatch(/name="newPassword"/);
    const salt = Buffer.alloc(16, 9);
    const next = await deriveReporterKeys({ caseNumber, password: 'after change', salt, kdf: PBKDF2_DEFAULT });
    const weak = await b.postForm(formAction(step.text), { verifier: b64u(next.verifier), salt: salt.toString('base64url'), kdf: JSON.stringify({ name: 'pbkdf2-v1', iterations: 10 }) });
    expect(weak.status).toBe(400);
    const done = await b.postForm(formAction(weak.text), { verifier: b64u(next.verifier), salt: salt.toString('base64url'), kdf: JSON.stringify(PBKDF2_DEFAULT) });
    expect(done.status, done.text).toBe(303);
    const row = await accountRow(caseNumber);
    expect(Buffer.from(row.salt!)).toEqual(salt);
    expect((await kdfOf(b, caseNumber)).data).toEqual({ salt: salt.toString('base64url'), kdf: PBKDF2_DEFAULT });
    expect((await signInWithVerifier(new Browser(server), caseNumber, 'before change')).refused?.status).toBe(400);
    expect((await signInWithVerifier(new Browser(server), caseNumber, 'after change')).tokens).toBeTruthy();
  });
});
void MOUNT;
