/**
 * Assignment, sharing, the inbox's new columns and filters, unread record comments and
 * one "opened" per sitting (issue 38; docs/decisions/handler-everyday-work.md), over the
 * real server and database.
 */
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, expectError, form, oralDto } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { addComment } from '../../server/cases/reporter.ts';
import { keyBundle, signInProof } from '../helpers/handler-keys.ts';

const HOST = 'acme.test';
const PASSWORD = 'correct horse battery';
let server: TestServer;
let officerA: string;
let officerB: string;

class Client {
  cookie = '';
  async call(method: string, p: string, opts: { json?: unknown; body?: BodyInit } = {}) {
    const r = await call(server, method, p, { host: HOST, ...opts, headers: this.cookie ? { cookie: this.cookie } : {} });
    const set = r.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0]!.endsWith('=') ? '' : set.split(';')[0]!;
    return r;
  }
}

const totp = (secret: string) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();

async function signedIn(email: string, officers: string[] = []) {
  const account = await createHandlerAccount(server.ctx.db, 'acme', email.split('@')[0]!, { email, officers });
  const start = await call(server, 'POST', '/api/handler/enrolment/start', { host: HOST, json: { code: account.enrolmentCode } });
  const fin = await call(server, 'POST', '/api/handler/enrolment/finish', { host: HOST, json: { code: account.enrolmentCode, keys: await keyBundle(PASSWORD), totpCode: totp(start.data.secret) } });
  expect(fin.status).toBe(200);
  const c = new Client();
  const proof = await signInProof((p, json) => call(server, 'POST', p, { host: HOST, json }), email, PASSWORD);
  expect((await c.call('POST', '/api/handler/session', { json: { ...proof, code: fin.data.recoveryCodes[0] } })).status).toBe(200);
  return { id: account.id, name: email.split('@')[0]!, c };
}

const newCase = async (officer: string) => (await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, body: form('caseDto', caseDto(officer)) })).data.caseDto.caseNumber as string;
const actions = (audit: { action: string }[]) => audit.map((e) => e.action);

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, identity: { throttle: { freeFailures: 100, lockAfter: 3, delayBaseMs: 0 } } });
  [officerA, officerB] = (await addCompany(server.ctx.db, { id: 'acme', hosts: [HOST], officers: 2 })).officerIds as [string, string];
  await addCompany(server.ctx.db, { id: 'other', hosts: ['other.test'] });
});
afterAll(async () => server?.cleanup());

describe('assignment and sharing', () => {
  it('assigns, hands over, shares and stops sharing among entitled colleagues, each in the audit trail', async () => {
    const anna = await signedIn('anna@example.org', [officerA]);
    const bo = await signedIn('bo@example.org');
    const carl = await signedIn('carl@example.org', [officerB]);
    const n = await newCase(officerA);

    const a0 = await anna.c.call('GET', `/api/handler/cases/${n}/assignment`);
    expect(a0.data.assignee).toBeNull();
    expect(a0.data.shares).toEqual([]);
    // Carl is tied to officer B: not a choice for officer A's case.
    expect(a0.data.colleagues.map((x: { name: string }) => x.name)).toEqual(['anna', 'bo']);

    expect((await anna.c.call('PUT', `/api/handler/cases/${n}/assignee`, { json: { handlerId: anna.id } })).data.assignee).toEqual({ id: anna.id, name: 'anna' });
    expectError(await anna.c.call('PUT', `/api/handler/cases/${n}/assignee`, { json: { handlerId: anna.id } }), 409, 'ASSIGNEE_UNCHANGED', 'handlerId');
    const handed = await anna.c.call('PUT', `/api/handler/cases/${n}/assignee`, { json: { handlerId: bo.id } });
    expect(handed.data.assignee).toEqual({ id: bo.id, name: 'bo' });
    expect((await anna.c.call('POST', `/api/handler/cases/${n}/shares`, { json: { handlerId: anna.id } })).data.shares).toEqual([{ id: anna.id, name: 'anna' }]);
    expectError(await anna.c.call('POST', `/api/handler/cases/${n}/shares`, { json: { handlerId: anna.id } }), 409, 'ALREADY_SHARED', 'handlerId');
    expect((await bo.c.call('DELETE', `/api/handler/cases/${n}/shares/${anna.id}`)).data.shares).toEqual([]);
    expectError(await bo.c.call('DELETE', `/api/handler/cases/${n}/shares/${anna.id}`), 404, 'SHARE_NOT_FOUND', 'handlerId');
    expect((await bo.c.call('PUT', `/api/handler/cases/${n}/assignee`, { json: { handlerId: null } })).data.assignee).toBeNull();

    const audit = (await bo.c.call('GET', `/api/handler/cases/${n}`)).data.audit as { action: string; handlerName: string; detail: Record<string, unknown> }[];
    const acts = audit.filter((e) => e.action !== 'CASE_READ');
    expect(acts.map((e) => [e.action, e.handlerName, e.detail])).toEqual([
      ['ASSIGNED', 'anna', { to: 'anna' }],
      ['ASSIGNED', 'anna', { to: 'bo', from: 'anna' }],
      ['SHARED', 'anna', { with: 'anna' }],
      ['UNSHARED', 'bo', { with: 'anna' }],
      ['UNASSIGNED', 'bo', { from: 'bo' }],
    ]);
  });

  it('refuses a colleague who is not entitled and stores nothing', async () => {
    const dana = await signedIn('dana@example.org', [officerA]);
    const erik = await signedIn('erik@example.org', [officerB]);
    const otherCompany = await createHandlerAccount(server.ctx.db, 'other', 'olga', { email: 'olga@example.org' });
    const invited = await createHandlerAccount(server.ctx.db, 'acme', 'ivan', { email: 'ivan@example.org' });
    const n = await newCase(officerA);
    const stored = async () => {
      const row = await server.ctx.db.selectFrom('report_case').select(['id', 'assignee_id']).where('case_number', '=', n).executeTakeFirstOrThrow();
      const shares = await server.ctx.db.selectFrom('case_share').selectAll().where('case_id', '=', row.id).execute();
      const audit = await server.ctx.db.selectFrom('case_audit').select('id').where('case_id', '=', row.id).execute();
      return { assignee: row.assignee_id, shares: shares.length, audit: audit.length };
    };
    await dana.c.call('GET', `/api/handler/cases/${n}`);
    const before = await stored();
    for (const id of [erik.id, otherCompany.id, invited.id, '00000000-0000-4000-8000-000000000000']) {
      expectError(await dana.c.call('PUT', `/api/handler/cases/${n}/assignee`, { json: { handlerId: id } }), 400, 'COLLEAGUE_NOT_ENTITLED', 'handlerId');
      expectError(await dana.c.call('POST', `/api/handler/cases/${n}/shares`, { json: { handlerId: id } }), 400, 'COLLEAGUE_NOT_ENTITLED', 'handlerId');
    }
    expectError(await dana.c.call('PUT', `/api/handler/cases/${n}/assignee`, { json: { handlerId: 'nobody' } }), 400, 'VALIDATION');
    expectError(await dana.c.call('PUT', `/api/handler/cases/${n}/assignee`, { json: {} }), 400, 'VALIDATION');
    expect(await stored()).toEqual(before);
    // Erik cannot reach the case at all: the officer tie answers 404 as for a case that does not exist.
    expectError(await erik.c.call('PUT', `/api/handler/cases/${n}/assignee`, { json: { handlerId: erik.id } }), 404, 'CASE_NOT_FOUND');
    expect(await stored()).toEqual(before);
  });
});

describe('inbox', () => {
  it('names officer, subsidiary and assignee, and filters by assignment and open cases', async () => {
    const fay = await signedIn('fay@example.org', [officerB]);
    const mine = await newCase(officerB);
    const free = await newCase(officerB);
    const closed = await newCase(officerB);
    await fay.c.call('PUT', `/api/handler/cases/${mine}/assignee`, { json: { handlerId: fay.id } });
    await fay.c.call('PUT', `/api/handler/cases/${closed}/status`, { json: { status: 'CLOSED' } });
    const list = async (q: string) => ((await fay.c.call('GET', `/api/handler/cases${q}`)).data.cases as { caseNumber: string }[]).map((c) => c.caseNumber);
    expect(await list('?assigned=ME')).toEqual([mine]);
    expect(await list('?assigned=UNASSIGNED&open=true')).toEqual([free]);
    expect((await list('?assigned=UNASSIGNED')).sort()).toEqual([free, closed].sort());
    expect(await list('?open=true')).not.toContain(closed);
    expectError(await fay.c.call('GET', '/api/handler/cases?assigned=THEM'), 400, 'VALIDATION');
    const row = ((await fay.c.call('GET', '/api/handler/cases')).data.cases as Record<string, unknown>[]).find((c) => c.caseNumber === mine)!;
    expect(row).toMatchObject({ assignee: { id: fay.id, name: 'fay' }, sharedWithMe: false, protectionOfficerId: officerB });
    expect(typeof row.officerName).toBe('string');
  });

  it('counts a reporter\'s comment on the record and an approval as unread', async () => {
    const gus = await signedIn('gus@example.org');
    const phone = (await call(server, 'POST', '/api/public/case/new/by-phone', { host: HOST, json: oralDto(officerA) })).data.caseDto.caseNumber as string;
    await gus.c.call('PUT', `/api/handler/cases/${phone}/report`, { json: { text: 'What the caller said.' } });
    const unread = async () => ((await gus.c.call('GET', '/api/handler/cases')).data.cases as { caseNumber: string; unreadMessages: number }[]).find((c) => c.caseNumber === phone)!.unreadMessages;
    await gus.c.call('GET', `/api/handler/cases/${phone}`);
    expect(await unread()).toBe(0);
    const row = await server.ctx.db.selectFrom('report_case').selectAll().where('case_number', '=', phone).executeTakeFirstOrThrow();
    await addComment(server.ctx, row, 'One detail is wrong.');
    expect(await unread()).toBe(1);
    await gus.c.call('GET', `/api/handler/cases/${phone}`);
    expect(await unread()).toBe(0);
  });
});

describe('audit once per sitting', () => {
  it('writes "opened the case" once per session and again in a new session', async () => {
    const hal = await signedIn('hal@example.org');
    const n = await newCase(officerA);
    for (let i = 0; i < 3; i++) expect((await hal.c.call('GET', `/api/handler/cases/${n}`)).status).toBe(200);
    const mine = (audit: { action: string; handlerId: string }[]) => actions(audit.filter((e) => e.handlerId === hal.id));
    expect(mine((await hal.c.call('GET', `/api/handler/cases/${n}`)).data.audit)).toEqual(['CASE_READ']);
    // Another sitting (a second sign-in of the same account) opens it anew.
    const again = await signedIn('hal2@example.org');
    await again.c.call('GET', `/api/handler/cases/${n}`);
    const token = (await createHandlerAccount(server.ctx.db, 'acme', 'script')).token;
    await call(server, 'GET', `/api/handler/cases/${n}`, { host: HOST, token });
    const last = await call(server, 'GET', `/api/handler/cases/${n}`, { host: HOST, token });
    const byName = (last.data.audit as { action: string; handlerName: string }[]).filter((e) => e.action === 'CASE_READ').map((e) => e.handlerName);
    expect(byName).toEqual(['hal', 'hal2', 'script']);
  });
});
