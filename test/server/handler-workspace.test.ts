/**
 * The handlers' web workspace over the real server (issue 14): enrolment with the
 * one-time code, sign-in with password and TOTP, no lock by address, the idle
 * timeout, the officer tie (404 everywhere), the audit trail and the legal clocks.
 */
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, expectError, form, oralDto, PDF } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { addMessage } from '../../server/cases/service.ts';
import { nextDeadline } from '../../server/handlers/cases.ts';
import { keyBundle, signInProof } from '../helpers/handler-keys.ts';

const HOST = 'acme.test';
const PASSWORD = 'correct horse battery';
let server: TestServer;
let officerA: string;
let officerB: string;
let caseA: string;
let caseB: string;
let phoneA: string;

/** A tiny cookie jar: the workspace's session is an HttpOnly cookie. */
class Client {
  cookie = '';
  constructor(readonly host = HOST) {}
  async call(method: string, p: string, opts: { json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {}) {
    const r = await call(server, method, p, { host: this.host, ...opts, headers: { ...(this.cookie ? { cookie: this.cookie } : {}), ...(opts.headers ?? {}) } });
    const set = r.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0]!.endsWith('=') ? '' : set.split(';')[0]!;
    return r;
  }
}

const proof = (email: string, password: string) => signInProof((p, json) => call(server, 'POST', p, { host: HOST, json }), email, password);

function totp(secret: string, offsetSteps = 0): string {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });
}

async function enrol(email: string, officers: string[] = []) {
  const account = await createHandlerAccount(server.ctx.db, 'acme', email.split('@')[0]!, { email, officers });
  const start = await call(server, 'POST', '/api/handler/enrolment/start', { host: HOST, json: { code: account.enrolmentCode } });
  expect(start.status).toBe(200);
  const fin = await call(server, 'POST', '/api/handler/enrolment/finish', { host: HOST, json: { code: account.enrolmentCode, keys: await keyBundle(PASSWORD), totpCode: totp(start.data.secret) } });
  expect(fin.status).toBe(200);
  return { ...account, secret: start.data.secret as string, recoveryCodes: fin.data.recoveryCodes as string[] };
}

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, identity: { throttle: { freeFailures: 100, lockAfter: 3, delayBaseMs: 0 } } });
  [officerA, officerB] = (await addCompany(server.ctx.db, { id: 'acme', hosts: [HOST], officers: 2 })).officerIds as [string, string];
  await addCompany(server.ctx.db, { id: 'other', hosts: ['other.test'] });
  caseA = (await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, body: form('caseDto', caseDto(officerA), [{ name: 'a.pdf', bytes: PDF }]) })).data.caseDto.caseNumber;
  caseB = (await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, body: form('caseDto', caseDto(officerB), [{ name: 'b.pdf', bytes: PDF }]) })).data.caseDto.caseNumber;
  phoneA = (await call(server, 'POST', '/api/public/case/new/by-phone', { host: HOST, json: oralDto(officerA) })).data.caseDto.caseNumber;
});
afterAll(async () => server?.cleanup());

describe('enrolment', () => {
  it('sets a password and a TOTP factor once, and shows ten recovery codes', async () => {
    const account = await createHandlerAccount(server.ctx.db, 'acme', 'Hanne', { email: 'hanne@example.org' });
    expectError(await call(server, 'POST', '/api/handler/enrolment/start', { host: HOST, json: { code: 'x'.repeat(43) } }), 404, 'ENROLMENT_INVALID');
    // The code belongs to one company: another host does not open it.
    expectError(await call(server, 'POST', '/api/handler/enrolment/start', { host: 'other.test', json: { code: account.enrolmentCode } }), 404, 'ENROLMENT_INVALID');
    const start = await call(server, 'POST', '/api/handler/enrolment/start', { host: HOST, json: { code: account.enrolmentCode } });
    expect(start.status).toBe(200);
    expect(start.data).toMatchObject({ name: 'Hanne', email: 'hanne@example.org', companyName: 'acme Ltd' });
    expect(start.data.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(start.data.uri).toMatch(/^otpauth:\/\/totp\/.*secret=/);
    const row = await server.ctx.db.selectFrom('handler_account').select('totp_secret_enc').where('id', '=', account.id).executeTakeFirstOrThrow();
    expect(Buffer.from(row.totp_secret_enc!).toString('latin1')).not.toContain(Buffer.from(OTPAuth.Secret.fromBase32(start.data.secret).bytes).toString('latin1'));

    const code = account.enrolmentCode;
    const keys = await keyBundle(PASSWORD);
    // The password never comes (the page checks its length): a weakened derivation or a bundle without keys is refused.
    expectError(await call(server, 'POST', '/api/handler/enrolment/finish', { host: HOST, json: { code, password: PASSWORD, totpCode: totp(start.data.secret) } }), 400, 'VALIDATION');
    expectError(await call(server, 'POST', '/api/handler/enrolment/finish', { host: HOST, json: { code, keys: { ...keys, kdf: { name: 'pbkdf2-v1', iterations: 1000 } }, totpCode: totp(start.data.secret) } }), 400, 'KEY_INVALID', 'kdf');
    expectError(await call(server, 'POST', '/api/handler/enrolment/finish', { host: HOST, json: { code, keys: { ...keys, ecdhSpki: keys.ecdsaSpki.slice(0, 40) }, totpCode: totp(start.data.secret) } }), 400, 'KEY_INVALID', 'ecdhSpki');
    expectError(await call(server, 'POST', '/api/handler/enrolment/finish', { host: HOST, json: { code, keys: { ...keys, recoveryVerifier: keys.verifier }, totpCode: totp(start.data.secret) } }), 400, 'KEY_INVALID', 'recoveryVerifier');
    expectError(await call(server, 'POST', '/api/handler/enrolment/finish', { host: HOST, json: { code, keys, totpCode: totp(start.data.secret, 10) } }), 400, 'TOTP_INVALID', 'totpCode');
    const fin = await call(server, 'POST', '/api/handler/enrolment/finish', { host: HOST, json: { code, keys, totpCode: totp(start.data.secret) } });
    expect(fin.status).toBe(200);
    expect(fin.data.recoveryCodes).toHaveLength(10);
    expect(new Set(fin.data.recoveryCodes).size).toBe(10);
    // The link works once.
    expectError(await call(server, 'POST', '/api/handler/enrolment/start', { host: HOST, json: { code } }), 404, 'ENROLMENT_INVALID');
    const stored = await server.ctx.db.selectFrom('handler_recovery_code').select('code_hash').where('handler_id', '=', account.id).execute();
    expect(stored.map((s) => s.code_hash)).not.toContain(fin.data.recoveryCodes[0]);
  });

  it('refuses an expired link', async () => {
    const account = await createHandlerAccount(server.ctx.db, 'acme', 'Late', { email: 'late@example.org', now: new Date(Date.now() - 73 * 3600_000) });
    expectError(await call(server, 'POST', '/api/handler/enrolment/start', { host: HOST, json: { code: account.enrolmentCode } }), 404, 'ENROLMENT_INVALID');
  });
});

describe('sign-in', () => {
  it('needs e-mail, password and a current code; a code works once; a recovery code stands in once', async () => {
    const h = await enrol('sara@example.org');
    const c = new Client();
    expectError(await c.call('GET', '/api/handler/session'), 401, 'UNAUTHORIZED');
    expectError(await c.call('POST', '/api/handler/session', { json: { ...(await proof('sara@example.org', 'wrong password!')), code: totp(h.secret, 1) } }), 401, 'SIGNIN_FAILED');
    expectError(await c.call('POST', '/api/handler/session', { json: { ...(await proof('sara@example.org', PASSWORD)), code: '000000' } }), 401, 'SIGNIN_FAILED');
    // The code used at enrolment (same time step) does not sign in again; the next step's does.
    const ok = await c.call('POST', '/api/handler/session', { json: { ...(await proof(' Sara@Example.org', PASSWORD)), code: totp(h.secret, 1) } });
    expect(ok.status).toBe(200);
    // For every /api/ path (the administration takes the same session), and the cookie of the older path cleared.
    expect(ok.headers.get('set-cookie')).toMatch(/^wb_handler=[\w-]{43}; Max-Age=43200; Path=\/api\/; HttpOnly; SameSite=Strict, wb_handler=; Max-Age=0; Path=\/api\/handler; HttpOnly; SameSite=Strict$/);
    expect(ok.data).toMatchObject({ handler: { name: 'sara', email: 'sara@example.org', companyId: 'acme', officers: [] }, idleTimeoutMs: 15 * 60_000 });
    expect((await c.call('GET', '/api/handler/session')).status).toBe(200);
    // Nothing in the database works as the cookie.
    const sessions = await server.ctx.db.selectFrom('handler_session').select('token_hash').execute();
    expect(sessions.map((s) => s.token_hash)).not.toContain(c.cookie.split('=')[1]);

    const replay = new Client();
    expectError(await replay.call('POST', '/api/handler/session', { json: { ...(await proof('sara@example.org', PASSWORD)), code: totp(h.secret, 1) } }), 401, 'SIGNIN_FAILED');
    expect((await replay.call('POST', '/api/handler/session', { json: { ...(await proof('sara@example.org', PASSWORD)), code: h.recoveryCodes[0] } })).status).toBe(200);
    expectError(await new Client().call('POST', '/api/handler/session', { json: { ...(await proof('sara@example.org', PASSWORD)), code: h.recoveryCodes[0] } }), 401, 'SIGNIN_FAILED');

    // The session is the host's company only.
    const elsewhere = new Client('other.test');
    elsewhere.cookie = c.cookie;
    expectError(await elsewhere.call('GET', '/api/handler/cases'), 401, 'UNAUTHORIZED');
    // An unsafe call from another origin is refused even with the cookie.
    expectError(await c.call('PUT', `/api/handler/cases/${caseA}/status`, { json: { status: 'BEING_INVESTIGATED' }, headers: { origin: 'https://evil.example' } }), 403, 'CROSS_SITE_REQUEST');

    expect((await c.call('DELETE', '/api/handler/session')).status).toBe(204);
    expect(c.cookie).toBe('');
    expect(await server.ctx.db.selectFrom('handler_session').select('token_hash').where('handler_id', '=', h.id).execute()).toHaveLength(1);
  });

  it('never locks the account by its address (issue 39): past the old lock the owner signs in, and is told of the failures', async () => {
    const h = await enrol('lock@example.org');
    // lockAfter is 3 here: the old per-account lock would refuse the right answer now.
    for (let i = 0; i < 5; i++) expectError(await new Client().call('POST', '/api/handler/session', { json: { ...(await proof('lock@example.org', 'not the password')), code: '123456' } }), 401, 'SIGNIN_FAILED');
    const ok = await new Client().call('POST', '/api/handler/session', { json: { ...(await proof('lock@example.org', PASSWORD)), code: h.recoveryCodes[1] } });
    expect(ok.status).toBe(200);
    expect(ok.data.signIn).toEqual({ failedSignIns: 5, previousSignInAt: null });
    // The count starts again after a success.
    const again = await new Client().call('POST', '/api/handler/session', { json: { ...(await proof('lock@example.org', PASSWORD)), code: h.recoveryCodes[2] } });
    expect(again.data.signIn).toMatchObject({ failedSignIns: 0, previousSignInAt: expect.any(String) });
    expect(await server.ctx.db.selectFrom('signin_throttle').select('key').where('key', 'like', 'case:%').execute()).toEqual([]);
  });

  it('ends a session after 15 minutes without a call', async () => {
    const h = await enrol('idle@example.org');
    const c = new Client();
    expect((await c.call('POST', '/api/handler/session', { json: { ...(await proof('idle@example.org', PASSWORD)), code: h.recoveryCodes[0] } })).status).toBe(200);
    await server.ctx.db.updateTable('handler_session').set({ last_seen_at: new Date(Date.now() - 14 * 60_000) }).where('handler_id', '=', h.id).execute();
    expect((await c.call('POST', '/api/handler/session/refresh')).status).toBe(200);
    await server.ctx.db.updateTable('handler_session').set({ last_seen_at: new Date(Date.now() - 15 * 60_000 - 1000) }).where('handler_id', '=', h.id).execute();
    expectError(await c.call('GET', '/api/handler/cases'), 401, 'UNAUTHORIZED');
  });
});

describe('officer tie', () => {
  it('a handler tied to officer A gets 404 for officer B\'s case on every call, by session and by token', async () => {
    const h = await enrol('tied@example.org', [officerA]);
    const c = new Client();
    expect((await c.call('POST', '/api/handler/session', { json: { ...(await proof('tied@example.org', PASSWORD)), code: h.recoveryCodes[0] } })).data.handler.officers).toEqual([officerA]);
    const fileB = (await call(server, 'GET', `/api/handler/cases/${caseB}`, { token: (await createHandlerAccount(server.ctx.db, 'acme', 'all')).token })).data.files[0].id;
    for (const as of ['session', 'token'] as const) {
      const go = (method: string, p: string, opts: { json?: unknown; body?: BodyInit } = {}) => (as === 'session' ? c.call(method, p, opts) : call(server, method, p, { ...opts, token: h.token }));
      const list = await go('GET', '/api/handler/cases');
      expect(list.status).toBe(200);
      expect(list.data.cases.map((x: { caseNumber: string }) => x.caseNumber).sort()).toEqual([caseA, phoneA].sort());
      expectError(await go('GET', `/api/handler/cases/${caseB}`), 404, 'CASE_NOT_FOUND');
      expectError(await go('GET', `/api/handler/cases/${caseB}/files/${fileB}`), 404, 'CASE_NOT_FOUND');
      expectError(await go('POST', `/api/handler/cases/${caseB}/messages`, { body: form('messageDto', { message: 'hello' }) }), 404, 'CASE_NOT_FOUND');
      expectError(await go('PUT', `/api/handler/cases/${caseB}/status`, { json: { status: 'CLOSED' } }), 404, 'CASE_NOT_FOUND');
      expect((await go('GET', `/api/handler/cases/${caseA}`)).status).toBe(200);
    }
    // An untied handler sees both.
    const all = await call(server, 'GET', '/api/handler/cases', { token: (await createHandlerAccount(server.ctx.db, 'acme', 'all2')).token });
    expect(all.data.cases.map((x: { caseNumber: string }) => x.caseNumber)).toEqual(expect.arrayContaining([caseA, caseB, phoneA]));
  });
});

describe('audit trail and clocks', () => {
  it('lists every read and action in order, sealed and append-only', async () => {
    const h = await enrol('audit@example.org');
    const c = new Client();
    await c.call('POST', '/api/handler/session', { json: { ...(await proof('audit@example.org', PASSWORD)), code: h.recoveryCodes[0] } });
    const first = await c.call('GET', `/api/handler/cases/${phoneA}`);
    expect(first.data.audit.map((e: { action: string }) => e.action)).toEqual(['CASE_READ']);
    const created = await c.call('POST', `/api/handler/cases/${caseA}/messages`, { body: form('messageDto', { message: 'We have your report.', type: 'CONFIRMATION' }) });
    expect(created.status).toBe(201);
    const view = await c.call('GET', `/api/handler/cases/${caseA}`);
    const file = view.data.files[0].id;
    expect((await c.call('GET', `/api/handler/cases/${caseA}/files/${file}`)).status).toBe(200);
    expect((await c.call('PUT', `/api/handler/cases/${caseA}/status`, { json: { status: 'BEING_INVESTIGATED' } })).status).toBe(200);
    expect((await c.call('PUT', `/api/handler/cases/${phoneA}/report`, { json: { text: 'The caller said…' } })).status).toBe(200);
    const whole = (await c.call('GET', `/api/handler/cases/${caseA}`)).data.audit as { action: string; handlerId: string; handlerName: string; detail: Record<string, unknown>; at: string }[];
    // Earlier tests' handlers read this case too: their entries come first.
    expect(whole.some((e) => e.handlerId !== h.id)).toBe(true);
    const a = whole.filter((e) => e.handlerId === h.id);
    expect(whole.slice(-a.length)).toEqual(a);
    // Opening the case again in the same sitting writes no second "opened" (issue 38).
    expect(a.map((e) => e.action)).toEqual(['MESSAGE_SENT', 'CASE_READ', 'FILE_DOWNLOADED', 'STATUS_CHANGED']);
    expect(a.every((e) => e.handlerName === 'audit')).toBe(true);
    expect(a[0]!.detail).toMatchObject({ type: 'CONFIRMATION' });
    expect(a[3]!.detail).toEqual({ from: 'RECEIVED', to: 'BEING_INVESTIGATED' });
    expect(whole.map((e) => e.at)).toEqual(whole.map((e) => e.at).sort());
    const p = (await c.call('GET', `/api/handler/cases/${phoneA}`)).data.audit.filter((e: { handlerId: string }) => e.handlerId === h.id).map((e: { action: string }) => e.action);
    expect(p).toEqual(['CASE_READ', 'RECORD_EDITED']);
    // The reporter's view has no trail.
    const raw = await server.ctx.db.selectFrom('case_audit').select(['id', 'entry_enc']).execute();
    expect(Buffer.concat(raw.map((r) => Buffer.from(r.entry_enc))).toString('latin1')).not.toContain('STATUS_CHANGED');
    await expect(server.ctx.db.updateTable('case_audit').set({ at: new Date() }).execute()).rejects.toThrow(/append-only/);
    await expect(server.ctx.db.deleteFrom('case_audit').execute()).rejects.toThrow(/append-only/);
  });

  it('acknowledgement is due 7 days after receipt, then feedback 3 months after; unread reporter messages count', async () => {
    const token = (await createHandlerAccount(server.ctx.db, 'acme', 'clock')).token;
    const fresh = (await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, body: form('caseDto', caseDto(officerA)) })).data.caseDto.caseNumber;
    const row = () => call(server, 'GET', '/api/handler/cases', { token }).then((r) => r.data.cases.find((x: { caseNumber: string }) => x.caseNumber === fresh));
    const r0 = await row();
    const received = new Date(r0.receivedDate).getTime();
    expect(r0.deadline).toEqual({ kind: 'ACKNOWLEDGEMENT', due: new Date(received + 7 * 86_400_000).toISOString() });
    expect(r0).toMatchObject({ creationChannel: 'BY_ONLINE_FORM', unreadMessages: 0, pendingWhistleblowerAction: false });

    const send = (type: string, answerWanted = false) => call(server, 'POST', `/api/handler/cases/${fresh}/messages`, { token, body: form('messageDto', { message: `a ${type}`, type, answerWanted }) });
    expect((await send('STANDARD', true)).status).toBe(201);
    expect((await row()).deadline.kind).toBe('ACKNOWLEDGEMENT');
    expect((await send('CONFIRMATION')).status).toBe(201);
    const r1 = await row();
    const due = new Date(received);
    due.setUTCMonth(due.getUTCMonth() + 3);
    expect(r1.deadline.kind).toBe('FEEDBACK');
    expect(Math.abs(new Date(r1.deadline.due).getTime() - due.getTime())).toBeLessThan(4 * 86_400_000);
    expect(r1.pendingWhistleblowerAction).toBe(true);

    const dbRow = await server.ctx.db.selectFrom('report_case').select(['id', 'wrapped_key']).where('case_number', '=', fresh).executeTakeFirstOrThrow();
    await addMessage(server.ctx, dbRow, { type: 'STANDARD', createdBy: fresh, text: 'from the reporter', fromReporter: true, files: [] });
    expect((await row()).unreadMessages).toBe(1);
    await call(server, 'GET', `/api/handler/cases/${fresh}`, { token });
    expect((await row()).unreadMessages).toBe(0);

    expect((await send('FEEDBACK')).status).toBe(201);
    expect((await row()).deadline).toBeNull();
  });

  it('nextDeadline: none before receipt or once closed; feedback runs 3 months from the acknowledgement; month ends clamp', () => {
    const none = { acknowledgedAt: null, feedbackAt: null };
    expect(nextDeadline({ status: 'PENDING_WHISTLEBLOWER_CONTACT', received: null, ...none })).toBeNull();
    expect(nextDeadline({ status: 'CLOSED', received: new Date(), ...none })).toBeNull();
    const received = new Date('2025-11-20T10:00:00Z');
    expect(nextDeadline({ status: 'RECEIVED', received, ...none })).toEqual({ kind: 'ACKNOWLEDGEMENT', due: '2025-11-27T10:00:00.000Z' });
    // Acknowledged five days after receipt: feedback is due 3 months after that, not after receipt.
    expect(nextDeadline({ status: 'RECEIVED', received, acknowledgedAt: new Date('2025-11-25T10:00:00Z'), feedbackAt: null })).toEqual({ kind: 'FEEDBACK', due: '2026-02-25T10:00:00.000Z' });
    // Acknowledged late (day 11): the 3 months run from the end of the 7 days.
    expect(nextDeadline({ status: 'RECEIVED', received, acknowledgedAt: new Date('2025-12-01T10:00:00Z'), feedbackAt: null })).toEqual({ kind: 'FEEDBACK', due: '2026-02-27T10:00:00.000Z' });
    // 30 November + 3 months is the last day of February.
    expect(nextDeadline({ status: 'RECEIVED', received: new Date('2025-11-23T10:00:00Z'), acknowledgedAt: new Date('2025-11-30T10:00:00Z'), feedbackAt: null })).toEqual({ kind: 'FEEDBACK', due: '2026-02-28T10:00:00.000Z' });
    expect(nextDeadline({ status: 'RECEIVED', received, acknowledgedAt: new Date('2025-11-30T10:00:00Z'), feedbackAt: new Date('2026-01-10T10:00:00Z') })).toBeNull();
  });
});
