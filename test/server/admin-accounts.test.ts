/**
 * Administration over the real server (issue 39; docs/decisions/administration.md):
 * roles checked by one entry point, a company's accounts through their whole life
 * (invite, enrol, edit, disable, enable, reset, end sessions, remove), every act in the
 * append-only trail, API tokens that expire, are revoked, are refused for a disabled
 * account (401 on every handler and administration route, enumerated from the app), and
 * are made only with a fresh second factor or by the operator.
 */
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, expectError, form } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { OPERATIONS } from '../../server/openapi.ts';

const HOST = 'acme.test';
const OTHER = 'other.test';
const PASSWORD = 'correct horse battery';
let server: TestServer;
let officers: string[];
let caseNumber: string;

class Client {
  cookie = '';
  constructor(readonly host = HOST) {}
  async call(method: string, p: string, opts: { json?: unknown; headers?: Record<string, string>; token?: string } = {}) {
    const r = await call(server, method, p, { host: this.host, ...opts, headers: { ...(this.cookie ? { cookie: this.cookie } : {}), ...(opts.headers ?? {}) } });
    const set = r.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0]!.endsWith('=') ? '' : set.split(';')[0]!;
    return r;
  }
}

function totp(secret: string, offsetSteps = 0): string {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });
}

/** Enrols with the code of an enrolment link (the part after #). */
async function enrolWith(link: string, host = HOST) {
  const code = link.split('#')[1]!;
  const start = await call(server, 'POST', '/api/handler/enrolment/start', { host, json: { code } });
  expect(start.status, JSON.stringify(start.data)).toBe(200);
  const fin = await call(server, 'POST', '/api/handler/enrolment/finish', { host, json: { code, password: PASSWORD, totpCode: totp(start.data.secret) } });
  expect(fin.status, JSON.stringify(fin.data)).toBe(200);
  return { secret: start.data.secret as string, recoveryCodes: fin.data.recoveryCodes as string[] };
}

async function signedIn(email: string, code: string, host = HOST) {
  const c = new Client(host);
  const r = await c.call('POST', '/api/handler/session', { json: { email, password: PASSWORD, code } });
  expect(r.status, JSON.stringify(r.data)).toBe(200);
  return c;
}

/** The company's first administrator, made by the operator (admin token), enrolled and signed in. */
async function firstAdmin(company: string, email: string, host: string) {
  const made = await call(server, 'POST', '/api/admin/handlers', { token: server.ctx.adminToken, json: { company, name: 'Ada Admin', email, admin: true, handler: false, token: false } });
  expect(made.status, JSON.stringify(made.data)).toBe(201);
  expect(made.data.token).toBeNull();
  const e = await enrolWith(made.data.enrolmentLink, host);
  return { id: made.data.id as string, client: await signedIn(email, e.recoveryCodes[0]!, host), ...e };
}

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false });
  officers = (await addCompany(server.ctx.db, { id: 'acme', hosts: [HOST], officers: 2 })).officerIds;
  await addCompany(server.ctx.db, { id: 'other', hosts: [OTHER] });
  caseNumber = (await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, body: form('caseDto', caseDto(officers[0]!)) })).data.caseDto.caseNumber;
});
afterAll(async () => server?.cleanup());

describe("a company's accounts, administered in the browser's API", () => {
  it('invite, enrol, edit officers, disable (session and token stop), enable, reset (old credentials stop), end sessions, remove; all in the trail', async () => {
    const admin = await firstAdmin('acme', 'ada@acme.test', HOST);
    const base = '/api/admin/companies/acme/accounts';

    // An administrator who is not a handler reads no case.
    expectError(await admin.client.call('GET', '/api/handler/cases'), 403, 'FORBIDDEN');

    // Invite: no SMTP here, so the link is answered once.
    const inv = await admin.client.call('POST', base, { json: { name: 'Hans Handler', email: ' Hans@Acme.test ', officers: [officers[0]] } });
    expect(inv.status, JSON.stringify(inv.data)).toBe(201);
    expect(inv.data).toMatchObject({ mailed: false, account: { email: 'hans@acme.test', state: 'invited', enrolled: false, officers: [officers[0]], roles: { admin: false, handler: true } } });
    expect(inv.data.enrolmentLink).toMatch(/^http:\/\/acme\.test:\d+\/handler\/enrol#[\w-]{43}$/);
    const hansId = inv.data.account.id as string;
    expectError(await admin.client.call('POST', base, { json: { name: 'Again', email: 'hans@acme.test' } }), 409, 'EMAIL_TAKEN');
    expectError(await admin.client.call('POST', base, { json: { name: 'Bad', email: 'not-an-address' } }), 400, 'VALIDATION', 'email');
    expectError(await admin.client.call('POST', base, { json: { name: 'Bad', email: 'b@acme.test', officers: ['nobody'] } }), 400, 'UNKNOWN_OFFICER', 'officers');

    const hans = await enrolWith(inv.data.enrolmentLink);
    // The enrolment spent this step's code: the next step's signs in.
    const session = await signedIn('hans@acme.test', totp(hans.secret, 1));
    expect((await session.call('GET', `/api/handler/cases/${caseNumber}`)).status).toBe(200);
    const made = await session.call('POST', '/api/handler/tokens', { json: { label: 'script', code: hans.recoveryCodes[3] } });
    expect(made.status, JSON.stringify(made.data)).toBe(201);
    const token = made.data.token as string;
    expect(made.data).toMatchObject({ madeBy: 'handler', state: 'active', label: 'script' });
    expect((await call(server, 'GET', '/api/handler/cases', { token })).status).toBe(200);

    let list = await admin.client.call('GET', base);
    expect(list.data.accounts.find((a: { id: string }) => a.id === hansId)).toMatchObject({ state: 'active', enrolled: true, lastSignInAt: expect.any(String), activeSessions: 1, activeTokens: 1 });

    // Officers: tied to the second officer only, the first officer's case is 404 now.
    const edited = await admin.client.call('PATCH', `${base}/${hansId}`, { json: { officers: [officers[1]] } });
    expect(edited.data.officers).toEqual([officers[1]]);
    expectError(await session.call('GET', `/api/handler/cases/${caseNumber}`), 404, 'CASE_NOT_FOUND');
    await admin.client.call('PATCH', `${base}/${hansId}`, { json: { officers: [] } });

    // Disable: the open session and the token stop at the next request.
    const disabled = await admin.client.call('POST', `${base}/${hansId}/disable`);
    expect(disabled.data).toMatchObject({ state: 'disabled', activeSessions: 0 });
    expectError(await session.call('GET', '/api/handler/cases'), 401, 'UNAUTHORIZED');
    expectError(await call(server, 'GET', '/api/handler/cases', { token }), 401, 'UNAUTHORIZED');
    expectError(await new Client().call('POST', '/api/handler/session', { json: { email: 'hans@acme.test', password: PASSWORD, code: hans.recoveryCodes[0] } }), 401, 'SIGNIN_FAILED');
    // Not spent by the refused sign-in: only the one the token took is used (and code 0 signs in below).
    expect(await server.ctx.db.selectFrom('handler_recovery_code').select('used_at').where('handler_id', '=', hansId).where('used_at', 'is not', null).execute()).toHaveLength(1);

    // Enable: the token works again, and so does signing in.
    expect((await admin.client.call('POST', `${base}/${hansId}/enable`)).data.state).toBe('active');
    expect((await call(server, 'GET', '/api/handler/cases', { token })).status).toBe(200);
    const again = await signedIn('hans@acme.test', hans.recoveryCodes[0]!);

    // End sessions.
    expect((await admin.client.call('POST', `${base}/${hansId}/sessions/end`)).data).toEqual({ sessionsEnded: 1 });
    expectError(await again.call('GET', '/api/handler/session'), 401, 'UNAUTHORIZED');

    // Reset the second factor: the old password, codes, sessions and token stop; a new link enrols.
    const back = await signedIn('hans@acme.test', hans.recoveryCodes[1]!);
    const reset = await admin.client.call('POST', `${base}/${hansId}/reset`, { json: { what: 'secondFactor' } });
    expect(reset.status, JSON.stringify(reset.data)).toBe(200);
    expect(reset.data.account).toMatchObject({ state: 'invited', enrolled: false, activeSessions: 0, activeTokens: 0 });
    expectError(await back.call('GET', '/api/handler/cases'), 401, 'UNAUTHORIZED');
    expectError(await call(server, 'GET', '/api/handler/cases', { token }), 401, 'UNAUTHORIZED');
    expectError(await new Client().call('POST', '/api/handler/session', { json: { email: 'hans@acme.test', password: PASSWORD, code: hans.recoveryCodes[2] } }), 401, 'SIGNIN_FAILED');
    expect((await call(server, 'POST', '/api/handler/enrolment/start', { host: HOST, json: { code: inv.data.enrolmentLink.split('#')[1] } })).status).toBe(404);
    const renewed = await enrolWith(reset.data.enrolmentLink);
    await signedIn('hans@acme.test', totp(renewed.secret, 1));
    expectError(await admin.client.call('POST', `${base}/${hansId}/reset`, { json: { what: 'everything' } }), 400, 'VALIDATION', 'what');

    // An administrator does not remove or disable themself; removing another works.
    expectError(await admin.client.call('POST', `${base}/${admin.id}/disable`), 409, 'OWN_ACCOUNT');
    expect((await admin.client.call('DELETE', `${base}/${hansId}`)).status).toBe(204);
    expectError(await admin.client.call('DELETE', `${base}/${hansId}`), 404, 'ACCOUNT_NOT_FOUND');
    list = await admin.client.call('GET', base);
    expect(list.data.accounts.map((a: { email: string }) => a.email)).toEqual(['ada@acme.test']);

    // The trail, newest first, names every act and who did it.
    const trail = await admin.client.call('GET', '/api/admin/companies/acme/trail');
    expect(trail.data.entries.map((e: { action: string }) => e.action).reverse()).toEqual([
      'ACCOUNT_INVITED', // Ada, by the operator's CLI token
      'ACCOUNT_INVITED',
      'TOKEN_CREATED',
      'ACCOUNT_UPDATED',
      'ACCOUNT_UPDATED',
      'ACCOUNT_DISABLED',
      'ACCOUNT_ENABLED',
      'SESSIONS_ENDED',
      'ACCOUNT_RESET',
      'ACCOUNT_REMOVED',
    ]);
    expect(trail.data.entries.at(-1).actor).toEqual({ id: null, name: 'operator (command line)', role: 'operator-cli' });
    expect(trail.data.entries[0]).toMatchObject({ actor: { id: admin.id, name: 'Ada Admin', role: 'admin' }, target: { id: hansId, name: 'Hans Handler' } });
    // Append-only.
    await expect(sql`update admin_trail set action = 'X'`.execute(server.ctx.db)).rejects.toThrow(/append-only/);
    await expect(sql`delete from admin_trail`.execute(server.ctx.db)).rejects.toThrow(/append-only/);
  });

  it("a company's administrator reaches only their own company; a handler and a token administer nothing", async () => {
    const admin = await firstAdmin('other', 'olga@other.test', OTHER);
    expectError(await admin.client.call('GET', '/api/admin/companies/acme/accounts'), 404, 'UNKNOWN_COMPANY');
    expect((await admin.client.call('GET', '/api/admin/companies')).data).toEqual({ companies: [{ id: 'other', name: expect.any(String), hosts: [OTHER] }], operator: false });
    // Operator-only acts.
    expectError(await admin.client.call('POST', '/api/admin/companies', { json: { file: {} } }), 403, 'FORBIDDEN');
    expectError(await admin.client.call('POST', '/api/admin/operators', { json: { name: 'Me', email: 'me@other.test' } }), 403, 'FORBIDDEN');

    const plain = await createHandlerAccount(server.ctx.db, 'other', 'Paul', { email: 'paul@other.test' });
    const code = (await call(server, 'POST', '/api/admin/handlers', { token: server.ctx.adminToken, json: { company: 'other', name: 'x' } })).data;
    void code;
    const start = await call(server, 'POST', '/api/handler/enrolment/start', { host: OTHER, json: { code: plain.enrolmentCode } });
    const fin = await call(server, 'POST', '/api/handler/enrolment/finish', { host: OTHER, json: { code: plain.enrolmentCode, password: PASSWORD, totpCode: totp(start.data.secret) } });
    const paul = await signedIn('paul@other.test', fin.data.recoveryCodes[0], OTHER);
    expectError(await paul.call('GET', '/api/admin/companies/other/accounts'), 403, 'FORBIDDEN');
    expectError(await call(server, 'GET', '/api/admin/companies/other/accounts', { token: plain.token }), 403, 'SESSION_REQUIRED');
    // A token makes no token, and a session makes one only with a fresh code.
    expectError(await call(server, 'POST', '/api/handler/tokens', { host: OTHER, token: plain.token, json: { label: 'x', code: totp(start.data.secret) } }), 403, 'SESSION_REQUIRED');
    expectError(await paul.call('POST', '/api/handler/tokens', { json: { label: 'x', code: '000000' } }), 400, 'TOTP_INVALID', 'code');
    expectError(await paul.call('POST', '/api/handler/tokens', { json: { label: 'x' } }), 400, 'VALIDATION', 'code');
    // The operator makes one for automation, marked as such; the administrator revokes it.
    const auto = await call(server, 'POST', `/api/admin/companies/other/accounts/${plain.id}/tokens`, { token: server.ctx.adminToken, json: { label: 'nightly export' } });
    expect(auto.status).toBe(201);
    expect(auto.data).toMatchObject({ madeBy: 'operator', label: 'nightly export' });
    expectError(await admin.client.call('POST', `/api/admin/companies/other/accounts/${plain.id}/tokens`, { json: { label: 'x' } }), 403, 'FORBIDDEN');
    const tokens = await admin.client.call('GET', `/api/admin/companies/other/accounts/${plain.id}/tokens`);
    expect(tokens.data.tokens.map((t: { madeBy: string }) => t.madeBy).sort()).toEqual(['operator', 'operator']);
    const revoked = await admin.client.call('DELETE', `/api/admin/companies/other/accounts/${plain.id}/tokens/${auto.data.id}`);
    expect(revoked.data).toMatchObject({ state: 'revoked', revokedAt: expect.any(String) });
    expectError(await call(server, 'GET', '/api/handler/cases', { token: auto.data.token }), 401, 'UNAUTHORIZED');
    // The handler revokes their own.
    const own = await paul.call('POST', '/api/handler/tokens', { json: { label: 'mine', code: fin.data.recoveryCodes[1] } });
    expect(own.status).toBe(201);
    expect((await paul.call('GET', '/api/handler/tokens')).data.tokens).toHaveLength(3);
    expect((await paul.call('DELETE', `/api/handler/tokens/${own.data.id}`)).data.state).toBe('revoked');
    expectError(await paul.call('DELETE', `/api/handler/tokens/${auto.data.id}x`), 404, 'TOKEN_NOT_FOUND');
  });
});

describe('a token that is expired, revoked or of a disabled account', () => {
  it('answers 401 on every handler and administration route the app registers', async () => {
    const make = async (name: string) => createHandlerAccount(server.ctx.db, 'acme', name, { roles: { admin: true, handler: true } });
    const [expired, revoked, disabled, valid] = await Promise.all([make('Expired'), make('Revoked'), make('Disabled'), make('Valid')]);
    await server.ctx.db.updateTable('handler_token').set({ expires_at: new Date(Date.now() - 1000) }).where('handler_id', '=', expired.id).execute();
    await server.ctx.db.updateTable('handler_token').set({ revoked_at: new Date() }).where('handler_id', '=', revoked.id).execute();
    await server.ctx.db.updateTable('handler_account').set({ disabled_at: new Date() }).where('id', '=', disabled.id).execute();

    // Every route under /api/handler/ and /api/admin/, from the app itself; only those
    // that need no caller (enrolment, signing in and out) are left out, and they are
    // named from the API description, not by hand.
    const open = new Set(OPERATIONS.filter((o) => o.auth === 'none').map((o) => `${o.method} ${o.path}`));
    open.add('DELETE /api/handler/session'); // signing out clears the cookie whoever asks
    const hasGet = (url: string) => server.routes.some((g) => g.method === 'GET' && g.url === url);
    const routes = [...new Set(server.routes.filter((r) => /^\/api\/(handler|admin)\//.test(r.url) && (r.method !== 'HEAD' || !hasGet(r.url))).map((r) => `${r.method} ${r.url}`))].filter((k) => !open.has(k));
    expect(routes.length).toBeGreaterThanOrEqual(30);
    const fill = (url: string) =>
      url
        .replace(':caseNumber', caseNumber)
        .replace(':fileId', '00000000-0000-4000-8000-000000000000')
        .replace(':version', '1')
        .replace(':company', 'acme')
        .replace(':account', valid.id)
        .replace(':token', '00000000-0000-4000-8000-000000000000');
    const checked: string[] = [];
    for (const key of routes) {
      const [method, url] = key.split(' ') as [string, string];
      const json = ['POST', 'PUT', 'PATCH'].includes(method) ? {} : undefined;
      for (const t of [expired, revoked, disabled]) {
        const res = await call(server, method, fill(url), { host: HOST, token: t.token, json });
        expect({ route: key, status: res.status, code: res.data?.error?.code }).toEqual({ route: key, status: 401, code: 'UNAUTHORIZED' });
      }
      // The same call with a working token gets past the credential check (whatever it answers then).
      const ok = await call(server, method, fill(url), { host: HOST, token: valid.token, json });
      expect(ok.status, `${key} with a valid token`).not.toBe(401);
      checked.push(key);
    }
    expect(checked).toContain('GET /api/handler/cases');
    expect(checked).toContain('POST /api/admin/companies/:company/accounts');
  }, 120_000);
});
