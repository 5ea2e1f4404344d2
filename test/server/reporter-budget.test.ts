/**
 * Budgets on a signed-in reporter's writes (issue 36, finding 4;
 * docs/decisions/submission-abuse.md): messages, comments, approvals and identity or
 * password changes share one budget per case, and every state-changing private call
 * one per client, against the real server, the real provider and the real database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { configFromEnv } from '../../server/config.ts';
import { call, expectError, form, PDF } from './api.ts';
import { Browser, newCase, signIn, type Tokens } from './identity-flow.ts';

const B = '/api/private/case';
const as = (t: Tokens) => ({ token: t.access_token, host: 'localhost' });

async function reporter(server: TestServer, oral = false) {
  const caseNumber = await newCase(server, { oral });
  return { caseNumber, tokens: await signIn(new Browser(server, 'localhost'), caseNumber, 'pass1234') };
}

async function messagesOf(server: TestServer, caseNumber: string) {
  const row = await server.ctx.db.selectFrom('report_case').select('id').where('case_number', '=', caseNumber).executeTakeFirstOrThrow();
  const r = await server.ctx.db.selectFrom('case_message').select((eb) => eb.fn.countAll().as('n')).where('case_id', '=', row.id).where('created_by', '=', caseNumber).executeTakeFirstOrThrow();
  return Number(r.n);
}

describe('the shipped budget', () => {
  let server: TestServer;
  beforeAll(async () => {
    // The defaults an operator gets, not the test helper's open ones.
    const shipped = configFromEnv({});
    server = await startTestServer({ caseWriteRateLimit: shipped.caseWriteRateLimit, reporterClientRateLimit: shipped.reporterClientRateLimit });
  });
  afterAll(async () => server?.cleanup());

  it("61 messages in a minute from one reporter: the budget's excess gets 429 RATE_LIMITED with Retry-After, and is not stored", async () => {
    const { max } = configFromEnv({}).caseWriteRateLimit;
    expect(max).toBeLessThan(61);
    const me = await reporter(server);
    const started = Date.now();
    const answers: Awaited<ReturnType<typeof call>>[] = [];
    // Ten at a time, every other one with a file: as fast as a script sends them.
    for (let batch = 0; batch < 61; batch += 10) {
      const n = Math.min(10, 61 - batch);
      answers.push(
        ...(await Promise.all(
          Array.from({ length: n }, (_, i) => {
            const k = batch + i;
            return call(server, 'POST', `${B}/messages/new`, { ...as(me.tokens), body: form('messageDto', { message: `part ${k}` }, k % 2 ? [{ name: `p${k}.pdf`, bytes: PDF }] : []) });
          }),
        )),
      );
    }
    expect(Date.now() - started).toBeLessThan(60_000);
    const created = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status === 429);
    expect(created).toHaveLength(max);
    expect(refused).toHaveLength(61 - max);
    for (const r of refused) {
      expectError(r, 429, 'RATE_LIMITED');
      const wait = Number(r.headers.get('retry-after'));
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(configFromEnv({}).caseWriteRateLimit.windowSeconds);
    }
    expect(await messagesOf(server, me.caseNumber)).toBe(max);
  });
});

describe('what shares the budget', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ caseWriteRateLimit: { max: 3, windowSeconds: 600 }, reporterClientRateLimit: { max: 1000, windowSeconds: 600 } });
  });
  afterAll(async () => server?.cleanup());

  it("comments on the record, approvals and identity or password changes count against the case's budget too", async () => {
    const me = await reporter(server, true);
    for (let i = 0; i < 3; i++) expect((await call(server, 'POST', `${B}/comments`, { ...as(me.tokens), json: { comment: `comment ${i}` } })).status).toBe(201);
    const refused = [
      await call(server, 'POST', `${B}/comments`, { ...as(me.tokens), json: { comment: 'one more' } }),
      await call(server, 'PUT', `${B}/approve`, { ...as(me.tokens), json: {} }),
      await call(server, 'POST', `${B}/messages/new`, { ...as(me.tokens), body: form('messageDto', { message: 'hello' }) }),
      await call(server, 'POST', `${B}/whistleblower/update`, { ...as(me.tokens), json: { name: 'Ann Reporter', email: 'ann@example.com' } }),
      await call(server, 'PUT', `${B}/password/request-update`, as(me.tokens)),
    ];
    for (const r of refused) {
      expectError(r, 429, 'RATE_LIMITED');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const row = await server.ctx.db.selectFrom('report_case').select('id').where('case_number', '=', me.caseNumber).executeTakeFirstOrThrow();
    const comments = await server.ctx.db.selectFrom('case_comment').select('id').where('case_id', '=', row.id).execute();
    expect(comments).toHaveLength(3);
    // Another reporter's case has a budget of its own.
    const other = await reporter(server);
    expect((await call(server, 'POST', `${B}/messages/new`, { ...as(other.tokens), body: form('messageDto', { message: 'mine' }) })).status).toBe(201);
  });

  it('keys the case budget by a keyed hash, never the case id or number', async () => {
    const me = await reporter(server);
    await call(server, 'POST', `${B}/messages/new`, { ...as(me.tokens), body: form('messageDto', { message: 'hello' }) });
    const row = await server.ctx.db.selectFrom('report_case').select('id').where('case_number', '=', me.caseNumber).executeTakeFirstOrThrow();
    const keys = (await server.ctx.db.selectFrom('rate_limit').select('key').execute()).map((r) => r.key);
    expect(keys.some((k) => k.startsWith('case-write:'))).toBe(true);
    expect(keys.some((k) => k.startsWith('reporter:'))).toBe(true);
    for (const k of keys) {
      expect(k).not.toContain(row.id);
      expect(k).not.toContain(me.caseNumber);
      expect(k).not.toContain('127.0.0.1');
    }
  });
});

describe('the budget per client', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ caseWriteRateLimit: { max: 1000, windowSeconds: 600 }, reporterClientRateLimit: { max: 6, windowSeconds: 600 } });
  });
  afterAll(async () => server?.cleanup());

  it('holds a client spread over several cases, and counts refused tokens too', async () => {
    const a = await reporter(server);
    const b = await reporter(server);
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) {
      statuses.push((await call(server, 'POST', `${B}/messages/new`, { ...as(a.tokens), body: form('messageDto', { message: `a${i}` }) })).status);
      statuses.push((await call(server, 'POST', `${B}/messages/new`, { ...as(b.tokens), body: form('messageDto', { message: `b${i}` }) })).status);
    }
    expect(statuses).toEqual([201, 201, 201, 201]);
    // A guessed token is a 401, and it costs the budget all the same.
    expectError(await call(server, 'POST', `${B}/comments`, { host: 'localhost', token: 'not.a.jwt', json: { comment: 'x' } }), 401, 'UNAUTHORIZED');
    expect((await call(server, 'POST', `${B}/upload-sessions`, as(a.tokens))).status).toBe(201);
    const past = [
      await call(server, 'POST', `${B}/messages/new`, { ...as(b.tokens), body: form('messageDto', { message: 'b2' }) }),
      await call(server, 'POST', `${B}/comments`, { host: 'localhost', token: 'not.a.jwt', json: { comment: 'x' } }),
    ];
    for (const r of past) {
      expectError(r, 429, 'RATE_LIMITED');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Reading is never held back.
    expect((await call(server, 'GET', `${B}/my-case`, as(a.tokens))).status).toBe(200);
  });
});
