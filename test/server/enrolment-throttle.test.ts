/**
 * The handlers' enrolment-link endpoints have a per-client budget like the other
 * public-facing calls (server/security/abuse.ts, docs/decisions/submission-abuse.md):
 * past it, 429 with Retry-After and the product's error body, the right link
 * included, and only for that client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as OTPAuth from 'otpauth';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, expectError } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { keyBundle } from '../helpers/handler-keys.ts';

const HOST = 'acme.test';
const BUDGET = 4;
let server: TestServer;

beforeAll(async () => {
  // A proxy on loopback is trusted, so X-Forwarded-For tells clients apart.
  server = await startTestServer({ seedDemo: false, enrolRateLimit: { max: BUDGET, windowSeconds: 600 }, trustProxy: ['127.0.0.1'] });
  await addCompany(server.ctx.db, { id: 'acme', hosts: [HOST] });
});
afterAll(async () => server?.cleanup());

const from = (address: string) => ({ 'x-forwarded-for': address });

describe('the enrolment-link budget', () => {
  it('counts start and finish together; past the budget every call is 429 with Retry-After and a code, the right link too', async () => {
    const account = await createHandlerAccount(server.ctx.db, 'acme', 'Ada', { email: 'ada@acme.test', officers: [] });
    const me = from('198.51.100.7');
    // Guessing at links: each wrong one is a 404 until the budget is spent.
    for (let i = 0; i < BUDGET - 1; i++) {
      expectError(await call(server, 'POST', '/api/handler/enrolment/start', { host: HOST, json: { code: `guess-${i}`.padEnd(43, 'x') }, headers: me }), 404, 'ENROLMENT_INVALID');
    }
    expectError(await call(server, 'POST', '/api/handler/enrolment/finish', { host: HOST, json: { code: 'y'.repeat(43), keys: await keyBundle('a long enough password'), totpCode: '123456' }, headers: me }), 404, 'ENROLMENT_INVALID');
    for (const p of ['/api/handler/enrolment/start', '/api/handler/enrolment/finish']) {
      const res = await call(server, 'POST', p, { host: HOST, json: { code: account.enrolmentCode, keys: await keyBundle('a long enough password'), totpCode: '123456' }, headers: me });
      expectError(res, 429, 'RATE_LIMITED');
      const retry = Number(res.headers.get('retry-after'));
      expect(retry).toBeGreaterThan(0);
      expect(retry).toBeLessThanOrEqual(600);
    }
    // The link was not spent by the refused calls: another client enrols with it.
    const other = from('203.0.113.9');
    const start = await call(server, 'POST', '/api/handler/enrolment/start', { host: HOST, json: { code: account.enrolmentCode }, headers: other });
    expect(start.status, JSON.stringify(start.data)).toBe(200);
    const totpCode = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(start.data.secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
    const fin = await call(server, 'POST', '/api/handler/enrolment/finish', { host: HOST, json: { code: account.enrolmentCode, keys: await keyBundle('a long enough password'), totpCode }, headers: other });
    expect(fin.status, JSON.stringify(fin.data)).toBe(200);
  });

  it('keeps the counter under a keyed hash of the address, in its own bucket', async () => {
    const rows = await server.ctx.db.selectFrom('rate_limit').select('key').where('key', 'like', 'enrol:%').execute();
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      expect(r.key).toMatch(/^enrol:[\w-]{43}$/);
      expect(r.key).not.toMatch(/198\.51|203\.0/);
    }
  });
});
