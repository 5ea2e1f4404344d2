/**
 * The reporter's case and token check answered from the process's memory
 * (server/cases/view-cache.ts) are never stale: every write that changes the case
 * is in the very next read, and sign-out or a password change refuses the old
 * access token at once. Each test first reads the case, so the copy is in memory
 * when the write comes. On PostgreSQL (DATABASE_URL), a second process's writes reach
 * the first through LISTEN/NOTIFY.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, startTestServer, type TestServer } from '../helpers/server.ts';
import { startChildServer, type ChildServer } from '../helpers/child-server.ts';
import { call, form } from './api.ts';
import { Browser, newCase, signIn, type Tokens } from './identity-flow.ts';
import { companyByHost } from '../../server/companies/service.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { CaseCache, caseCacheOf, type CachedView } from '../../server/cases/view-cache.ts';

const MY_CASE = '/api/private/case/my-case';
const B = '/api/private/case';

describe('the case cache on one process (PGlite)', () => {
  let server: TestServer;
  let handlerToken: string;
  beforeAll(async () => {
    server = await startTestServer();
    const company = await companyByHost(server.ctx.db, 'localhost');
    handlerToken = (await createHandlerAccount(server.ctx.db, company!.id, 'Hanne Handler')).token;
  });
  afterAll(async () => server?.cleanup());

  async function signedIn(): Promise<{ caseNumber: string; tokens: Tokens }> {
    const caseNumber = await newCase(server, { password: 'pass1234' });
    return { caseNumber, tokens: await signIn(new Browser(server, 'localhost'), caseNumber, 'pass1234') };
  }
  const myCase = (t: Tokens) => call(server, 'GET', MY_CASE, { host: 'localhost', token: t.access_token });

  it('keeps the case in memory after a read, so the next read is the same answer', async () => {
    const { tokens } = await signedIn();
    const first = await myCase(tokens);
    expect(first.status).toBe(200);
    expect(caseCacheOf(server.ctx.db)!.size).toBeGreaterThan(0);
    const second = await myCase(tokens);
    expect(second.data).toEqual(first.data);
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
  });

  it("shows each write in the next read: the reporter's message, the handler's message, status and identity", async () => {
    const { caseNumber, tokens } = await signedIn();
    expect((await myCase(tokens)).data.messages).toEqual([]);

    expect((await call(server, 'POST', `${B}/messages/new`, { host: 'localhost', token: tokens.access_token, body: form('messageDto', { message: 'More about it' }) })).status).toBe(201);
    expect((await myCase(tokens)).data.messages.map((m: { message: string }) => m.message)).toEqual(['More about it']);

    expect((await call(server, 'POST', `/api/handler/cases/${caseNumber}/messages`, { token: handlerToken, body: form('messageDto', { message: 'Who else saw it?', answerWanted: true }) })).status).toBe(201);
    const afterHandler = (await myCase(tokens)).data;
    expect(afterHandler.messages.map((m: { message: string }) => m.message)).toContain('Who else saw it?');
    expect(afterHandler.pendingWhistleblowerAction).toBe(true);

    expect((await call(server, 'PUT', `/api/handler/cases/${caseNumber}/status`, { token: handlerToken, json: { status: 'BEING_INVESTIGATED' } })).status).toBe(200);
    expect((await myCase(tokens)).data.status).toBe('BEING_INVESTIGATED');

    expect((await call(server, 'PUT', `${B}/whistleblower/update`, { host: 'localhost', token: tokens.access_token, json: { name: 'Ann Reporter', email: 'ann@example.com' } })).status).toBe(200);
    expect((await myCase(tokens)).data.whistleblower).toMatchObject({ name: 'Ann Reporter', email: 'ann@example.com' });
  });

  it('shows a write made on the database in a transaction, outside every route, in the next read', async () => {
    const { caseNumber, tokens } = await signedIn();
    expect((await myCase(tokens)).data.status).toBe('RECEIVED');
    await server.ctx.db.transaction().execute(async (trx) => {
      await sql`update report_case set status = 'CLOSED' where case_number = ${caseNumber}`.execute(trx);
    });
    expect((await myCase(tokens)).data.status).toBe('CLOSED');
  });

  it('refuses the access token at once after a password change is asked for, and after the case is deleted', async () => {
    const asked = await signedIn();
    expect((await myCase(asked.tokens)).status).toBe(200);
    expect((await call(server, 'PUT', `${B}/password/request-update`, { host: 'localhost', token: asked.tokens.access_token })).status).toBe(200);
    expect((await myCase(asked.tokens)).status).toBe(401);

    const purged = await signedIn();
    expect((await myCase(purged.tokens)).status).toBe(200);
    await server.ctx.db.deleteFrom('report_case').where('case_number', '=', purged.caseNumber).execute();
    const res = await myCase(purged.tokens);
    expect(res.status).toBe(401);
    expect(JSON.stringify(res.data)).not.toContain(purged.caseNumber);
  });

  it("never answers a case to another company's host, cached or not", async () => {
    const { tokens } = await signedIn();
    expect((await myCase(tokens)).status).toBe(200);
    const other = await call(server, 'GET', MY_CASE, { host: 'other.example', token: tokens.access_token });
    expect([401, 403]).toContain(other.status);
  });
});

describe('CaseCache', () => {
  const view = (n: number): CachedView => ({ companyId: 'c', body: String(n), etag: `"${n}"` });

  it('loads every time while invalidations may be missed (not live)', async () => {
    const cache = new CaseCache();
    let loads = 0;
    const load = async () => view(++loads);
    await cache.view('a', load);
    await cache.view('a', load);
    expect(loads).toBe(2);
  });

  it('keeps a load, drops it on invalidation, and does not keep a load that overlapped one', async () => {
    const cache = new CaseCache();
    cache.setLive(true);
    let loads = 0;
    expect((await cache.view('a', async () => view(++loads)))!.body).toBe('1');
    expect((await cache.view('a', async () => view(++loads)))!.body).toBe('1');
    cache.invalidate('a');
    expect((await cache.view('a', async () => view(++loads)))!.body).toBe('2');
    // A write lands while this load reads: its answer is used once, never kept.
    const overlapping = await cache.view('b', async () => {
      cache.invalidate('b');
      return view(++loads);
    });
    expect(overlapping!.body).toBe('3');
    expect((await cache.view('b', async () => view(++loads)))!.body).toBe('4');
  });

  it('forgets an entry after its time to live and keeps at most a bounded number', async () => {
    let now = 0;
    const cache = new CaseCache(() => now);
    cache.setLive(true);
    await cache.view('a', async () => view(1));
    now += 31_000;
    expect((await cache.view('a', async () => view(2)))!.body).toBe('2');
    for (let i = 0; i < 600; i++) await cache.view(`case-${i}`, async () => view(i));
    expect(cache.size).toBeLessThanOrEqual(500);
  });
});

describe.skipIf(!process.env.DATABASE_URL)('the case cache across two processes (PostgreSQL)', () => {
  let a: ChildServer;
  let b: ChildServer;
  let db: { url: string; drop: () => Promise<void> };
  let tmp: string;
  const masterKey = randomBytes(32).toString('base64');
  const pepper = randomBytes(32).toString('base64');

  beforeAll(async () => {
    db = await createTestDatabase();
    tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-case-cache-'));
    const env = { DATABASE_URL: db.url, MASTER_KEY: masterKey, PASSWORD_PEPPER: pepper };
    a = await startChildServer({ dataDir: path.join(tmp, 'shared'), env });
    b = await startChildServer({ dataDir: path.join(tmp, 'shared'), env });
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await db?.drop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  const as = (s: ChildServer) => ({ url: s.url, port: s.port }) as TestServer;

  it("a write on one process reaches the other's cached copy, and a password change there refuses the token here", async () => {
    const caseNumber = await newCase(as(a), { password: 'pass1234' });
    const tokens = await signIn(new Browser(as(a), 'localhost'), caseNumber, 'pass1234');
    const readOnA = () => call(as(a), 'GET', MY_CASE, { host: 'localhost', token: tokens.access_token });
    expect((await readOnA()).data.messages).toEqual([]);
    expect((await readOnA()).data.messages).toEqual([]);

    expect((await call(as(b), 'POST', `${B}/messages/new`, { host: 'localhost', token: tokens.access_token, body: form('messageDto', { message: 'Through B' }) })).status).toBe(201);
    // The notification travels through PostgreSQL; well before the cache's 30 s lifetime.
    await expect.poll(async () => (await readOnA()).data.messages.map((m: { message: string }) => m.message), { timeout: 10_000 }).toEqual(['Through B']);

    expect((await call(as(b), 'PUT', `${B}/password/request-update`, { host: 'localhost', token: tokens.access_token })).status).toBe(200);
    await expect.poll(async () => (await readOnA()).status, { timeout: 10_000 }).toBe(401);
  });
});
