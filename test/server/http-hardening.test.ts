/**
 * Finding 11 of issue 11, the API half: HSTS over HTTPS (direct or from a trusted
 * proxy), `Cache-Control: no-store` on every private, handler and admin answer,
 * percent-encoded paths normalised once before routing, the admin API's token on every
 * request (loopback is no credential), and X-Forwarded-For believed only from the
 * proxies named in TRUST_PROXY.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, expectError, oralDto } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { normalizePath } from '../../server/app.ts';

const HOST = 'acme.test';
let server: TestServer;
let officer: string;
let handlerToken: string;

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false });
  officer = (await addCompany(server.ctx.db, { id: 'acme', hosts: [HOST] })).officerIds[0]!;
  handlerToken = (await createHandlerAccount(server.ctx.db, 'acme', 'H')).token;
});
afterAll(() => server?.cleanup());

describe('Strict-Transport-Security', () => {
  it('is not sent over plain HTTP, nor for a forwarded-proto from a proxy nobody trusts', async () => {
    expect((await call(server, 'GET', '/api/public/case/company-info', { host: HOST })).headers.get('strict-transport-security')).toBeNull();
    const spoofed = await call(server, 'GET', '/api/public/case/company-info', { host: HOST, headers: { 'x-forwarded-proto': 'https' } });
    expect(spoofed.headers.get('strict-transport-security')).toBeNull();
  });

  it('is sent when a trusted proxy says the request came over HTTPS', async () => {
    const proxied = await startTestServer({ seedDemo: false, trustProxy: ['127.0.0.1'] });
    try {
      await addCompany(proxied.ctx.db, { id: 'acme', hosts: [HOST] });
      const res = await call(proxied, 'GET', '/api/public/case/company-info', { host: HOST, headers: { 'x-forwarded-proto': 'https' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('strict-transport-security')).toMatch(/^max-age=\d{7,}/);
    } finally {
      await proxied.cleanup();
    }
  });
});

describe('Cache-Control: no-store', () => {
  it('on every handler, private and admin answer, errors included', async () => {
    const answers = [
      await call(server, 'GET', '/api/handler/me', { token: handlerToken }),
      await call(server, 'GET', '/api/handler/cases', { token: handlerToken }),
      await call(server, 'GET', '/api/handler/cases/1234567890123456', { token: handlerToken }),
      await call(server, 'GET', '/api/handler/cases'),
      await call(server, 'GET', '/api/private/case/my-case'),
      await call(server, 'GET', '/api/private/case/nope'),
      await call(server, 'POST', '/api/admin/handlers', { json: {} }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 404, 401, 401, 404, 401]);
    for (const a of answers) expect(a.headers.get('cache-control')).toBe('no-store');
  });
});

describe('percent-encoded paths', () => {
  it('normalises unreserved characters once, and leaves the rest encoded', () => {
    expect(normalizePath('/%61pi/public/x?q=%61')).toBe('/api/public/x?q=%61');
    expect(normalizePath('/%2561pi/x')).toBe('/%2561pi/x');
    expect(normalizePath('/a%2fb%e2%80%ae')).toBe('/a%2Fb%E2%80%AE');
  });

  it('/%61pi is /api everywhere: routed the same, and guarded the same', async () => {
    const plain = await call(server, 'GET', '/api/public/case/company-info', { host: HOST });
    const encoded = await call(server, 'GET', '/%61pi/public/case/company-info', { host: HOST });
    expect(encoded.status).toBe(200);
    expect(encoded.data).toEqual(plain.data);
    // The cross-site guard and no-store apply to the encoded spelling as well.
    expectError(await call(server, 'POST', '/%61pi/public/case/new/by-phone', { host: HOST, json: oralDto(officer), headers: { origin: 'https://evil.example' }, pow: false }), 403, 'CROSS_SITE_REQUEST');
    expectError(await call(server, 'POST', '/%61%70%69/public/case/new/by-phone', { host: HOST, json: oralDto(officer), pow: false }), 403, 'POW_REQUIRED');
    expect((await call(server, 'GET', '/%61pi/handler/me', { token: handlerToken })).headers.get('cache-control')).toBe('no-store');
    // Encoded twice is another path, not the API: a client route of the SPA when it is
    // built (the SPA shows its not-found page), the product's 404 when it is not.
    const twice = await call(server, 'GET', '/%2561pi/public/case/company-info', { host: HOST });
    expect(twice.data).not.toEqual(plain.data);
    if (twice.status === 200) expect(twice.headers.get('content-type')).toMatch(/^text\/html/);
    else expectError(twice, 404, 'NOT_FOUND');
  });
});

describe('admin API', () => {
  it('needs its token on every request, even over loopback', async () => {
    expectError(await call(server, 'POST', '/api/admin/handlers', { json: { company: HOST } }), 401, 'UNAUTHORIZED');
    expectError(await call(server, 'POST', '/api/admin/handlers', { json: { company: HOST }, token: 'wrong' }), 401, 'UNAUTHORIZED');
    expect((await call(server, 'POST', '/api/admin/handlers', { json: { company: HOST }, token: server.ctx.adminToken })).status).toBe(201);
  });

  it('answers nothing to a request a local reverse proxy forwarded, token or not', async () => {
    const proxiedHeaders: Array<Record<string, string>> = [{ 'x-forwarded-for': '203.0.113.9' }, { forwarded: 'for=203.0.113.9' }, { 'x-real-ip': '203.0.113.9' }];
    for (const headers of proxiedHeaders) {
      expectError(await call(server, 'POST', '/api/admin/handlers', { json: { company: HOST }, token: server.ctx.adminToken, headers }), 404, 'NOT_FOUND');
    }
  });
});

describe('X-Forwarded-For', () => {
  const post = (s: TestServer, xff: string) => call(s, 'POST', '/api/public/case/new/by-phone', { host: HOST, json: oralDto(officer), headers: { 'x-forwarded-for': xff } });

  it('is ignored without TRUST_PROXY: a client cannot buy a new budget by naming another address', async () => {
    const strict = await startTestServer({ seedDemo: false, submitRateLimit: { max: 1, windowSeconds: 600 } });
    try {
      officer = (await addCompany(strict.ctx.db, { id: 'acme', hosts: [HOST] })).officerIds[0]!;
      expect((await post(strict, '203.0.113.1')).status).toBe(201);
      expectError(await post(strict, '203.0.113.2'), 429, 'RATE_LIMITED');
    } finally {
      await strict.cleanup();
    }
  });

  it('is believed from a proxy named in TRUST_PROXY: each forwarded client has its own budget', async () => {
    const proxied = await startTestServer({ seedDemo: false, submitRateLimit: { max: 1, windowSeconds: 600 }, trustProxy: ['127.0.0.1'] });
    try {
      officer = (await addCompany(proxied.ctx.db, { id: 'acme', hosts: [HOST] })).officerIds[0]!;
      expect((await post(proxied, '203.0.113.1')).status).toBe(201);
      expect((await post(proxied, '203.0.113.2')).status).toBe(201);
      expectError(await post(proxied, '203.0.113.1'), 429, 'RATE_LIMITED');
    } finally {
      await proxied.cleanup();
    }
  });
});
