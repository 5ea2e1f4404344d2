/**
 * The server's log never holds a client's IP address, user agent or referrer,
 * even at the most verbose level (DESIGN.md §4).
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, form, oralDto, PDF } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';

let server: TestServer;
let log = '';
let caseNumber = '';
const CLIENT = {
  'user-agent': 'UA-MARKER-Browser/9.9 (Reporter Laptop)',
  'x-forwarded-for': '203.0.113.77',
  'x-real-ip': '198.51.100.23',
  referer: 'https://ref-marker.example/page?secret=1',
};

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, cb) {
      log += chunk.toString();
      cb();
    },
  });
  server = await startTestServer({ seedDemo: false, logLevel: 'trace' }, { logStream: sink });
  const officer = (await addCompany(server.ctx.db, { hosts: ['acme.test'] })).officerIds[0]!;
  const headers = { ...CLIENT };
  await call(server, 'GET', '/api/public/case/company-info?lang=da', { host: 'acme.test', headers });
  await call(server, 'GET', '/api/public/case/company-info', { host: 'nobody.test', headers });
  await call(server, 'POST', '/api/public/case/new/by-form', { host: 'acme.test', headers, body: form('caseDto', caseDto(officer), [{ name: 'a.pdf', bytes: PDF }]) });
  caseNumber = (await call(server, 'POST', '/api/public/case/new/by-phone', { host: 'acme.test', headers, json: oralDto(officer) })).data.caseDto.caseNumber;
  const token = (await createHandlerAccount(server.ctx.db, 'acme', 'h')).token;
  expect((await call(server, 'GET', `/api/handler/cases/${caseNumber}`, { headers, token })).status).toBe(200);
  await call(server, 'POST', '/api/public/case/new/by-phone', { host: 'acme.test', headers, json: '{bad' });
  await call(server, 'GET', '/api/handler/cases', { headers, token: 'wrong' });
  await call(server, 'GET', '/no/such/page', { headers });
});
afterAll(async () => server?.cleanup());

describe('log privacy', () => {
  it('logs requests (the check below is not vacuous)', () => {
    expect(log).toContain('/api/public/case/company-info');
    expect(log).toContain('/api/public/case/new/by-form');
    expect(log.split('\n').filter(Boolean).length).toBeGreaterThan(10);
  });

  it('holds no client IP address, user agent, referrer, query string or case number', () => {
    expect(log).not.toContain('UA-MARKER');
    expect(log).not.toContain('203.0.113.77');
    expect(log).not.toContain('198.51.100.23');
    expect(log).not.toContain('ref-marker');
    expect(log).not.toContain('secret=1');
    expect(log).not.toContain('lang=da');
    expect(log).not.toContain(caseNumber);
    expect(log).toContain('/api/handler/cases/<case>');
    expect(log).not.toMatch(/remoteAddress|remotePort|user-agent|userAgent/i);
    // The client connects from 127.0.0.1; only the server's own "listening at" line may name that address.
    const lines = log.split('\n').filter((l) => l.includes('127.0.0.1'));
    expect(lines.every((l) => /listening at/i.test(l))).toBe(true);
  });
});
