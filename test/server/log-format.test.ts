/**
 * The operations log: every line one JSON object with level and time; every line a
 * request writes carries its request id (also answered as x-request-id) and, once the
 * company is known, the company id; no secret a request carried appears.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { companyByHost } from '../../server/companies/service.ts';
import { call } from './api.ts';
import { Browser, newCase, signIn } from './identity-flow.ts';

let server: TestServer;
let log = '';
let companyId: string;
let caseNumber: string;
const secrets: string[] = [];
const answeredIds: string[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, cb) {
      log += chunk.toString();
      cb();
    },
  });
  server = await startTestServer({ logLevel: 'info' }, { logStream: sink });
  companyId = (await companyByHost(server.ctx.db, 'localhost'))!.id;
  caseNumber = await newCase(server, { password: 'log-pass-1' });
  const tokens = await signIn(new Browser(server), caseNumber, 'log-pass-1');
  const handlerToken = (await createHandlerAccount(server.ctx.db, companyId, 'Hanne')).token;
  secrets.push(caseNumber, 'log-pass-1', tokens.access_token, tokens.refresh_token, handlerToken);
  for (const r of [
    await call(server, 'GET', '/api/private/case/my-case', { host: 'localhost', token: tokens.access_token }),
    await call(server, 'GET', `/api/handler/cases/${caseNumber}`, { token: handlerToken }),
    await call(server, 'GET', '/api/public/case/company-info', { host: 'localhost' }),
  ]) {
    expect(r.status).toBe(200);
    answeredIds.push(r.headers.get('x-request-id')!);
  }
});
afterAll(async () => server?.cleanup());

const lines = () => log.split('\n').filter(Boolean);
const parsed = () => lines().map((l) => JSON.parse(l) as Record<string, unknown>);

describe('the operations log', () => {
  it('is one JSON object a line, each with a numeric level and a time', () => {
    expect(lines().length).toBeGreaterThan(10);
    for (const line of lines()) {
      const o = JSON.parse(line) as Record<string, unknown>;
      expect(typeof o.level, line).toBe('number');
      expect(typeof o.time, line).toBe('number');
    }
  });

  it('puts the request id on every line of a request and answers it as x-request-id', () => {
    const requestLines = parsed().filter((o) => o.req || o.res);
    expect(requestLines.length).toBeGreaterThan(6);
    for (const o of requestLines) expect(o.reqId).toMatch(/^[0-9a-f-]{36}$/);
    for (const id of answeredIds) {
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(parsed().filter((o) => o.reqId === id).length).toBe(2); // incoming, completed
    }
  });

  it('names the company on the lines of public, reporter and handler requests', () => {
    for (const id of answeredIds) {
      const completed = parsed().find((o) => o.reqId === id && o.res);
      expect(completed?.companyId, JSON.stringify(completed)).toBe(companyId);
    }
  });

  it('holds no case number, password or token', () => {
    for (const s of secrets) expect(log).not.toContain(s);
  });
});
