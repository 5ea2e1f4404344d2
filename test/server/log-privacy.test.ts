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
let handlerToken = '';
let spellings: string[] = [];
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
  handlerToken = token;
  // Issue 11, finding 9: the case number in every spelling a client might put in a URL,
  // in handler, private, public, identity and unknown paths, and tokens where they do not belong.
  const d = caseNumber;
  const groups = d.match(/.{4}/g)!;
  spellings = [
    d,
    groups.join(' '),
    groups.join('-'),
    groups.join('.'),
    groups.join('+'),
    groups.join('\u00a0'),
    d.replace(/(\d{2})/g, '$1 '),
  ];
  const encoded = [
    ...spellings.map(encodeURIComponent),
    [...d].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(''),
    [...d].map((c, i) => (i % 2 ? `%${c.charCodeAt(0).toString(16).toUpperCase()}` : c)).join(''),
    groups.join('%2D'),
    groups.join('%20'),
  ];
  for (const e of encoded) {
    await call(server, 'GET', `/api/handler/cases/${e}`, { headers, token });
    await call(server, 'GET', `/api/handler/cases/${e}/files/${e}`, { headers, token });
    await call(server, 'GET', `/api/private/case/files/${e}`, { headers });
    await call(server, 'GET', `/api/public/case/protection-officer/${e}/logo`, { host: 'acme.test', headers });
    await call(server, 'GET', `/idp/realms/whistleblower/interaction/${e}`, { headers });
    await call(server, 'GET', `/private/${e}`, { headers });
    await call(server, 'GET', `/api/${e}?caseNumber=${e}`, { headers });
  }
  await call(server, 'GET', `/api/handler/cases/${token}`, { headers, token });
  await call(server, 'GET', `/api/nothing/${token}/x`, { headers });
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

  it('holds the case number in no spelling (spaced, hyphenated, dotted, percent-encoded in whole or part) and no token', () => {
    expect(log).toContain('<case>');
    // What a reader of the log could reassemble: decode percent-encoded digits, drop separators.
    const flattened = log
      .replace(/%3([0-9])/gi, '$1')
      .replace(/%(20|2d|2b|2e|c2%a0)/gi, '')
      .replace(/\\u00a0|\u00a0|[\s.+_-]/g, '');
    expect(flattened).not.toContain(caseNumber);
    for (const s of spellings) expect(log).not.toContain(s);
    expect(log).not.toContain(handlerToken);
    expect(log).not.toContain(handlerToken.slice(0, 20));
  });
});
