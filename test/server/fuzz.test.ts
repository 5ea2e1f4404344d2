/**
 * "Never a 5xx for bad input" (issue 11): a property-based fuzz test with fast-check
 * over every route of the API (public, private, handler, admin, and the runtime
 * config), read from the app's own route list, so a route added later is fuzzed too.
 * Thousands of generated requests (methods, paths with odd ids, query strings,
 * headers, tokens good and bad, bodies JSON, text and multipart) go through
 * `app.inject` into the real server on a real database. Every answer must be below
 * 500, and every 4xx must carry the product's error body with a code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, form, oralDto, PDF, solveChallenge } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { Browser, signIn } from './identity-flow.ts';

const HOST = 'acme.test';
const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);

let server: TestServer;
let caseNumber: string;
let fileId: string;
let handlerToken: string;
let reporterToken: string;
const proofs: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  const officer = (await addCompany(server.ctx.db, { id: 'acme', hosts: [HOST] })).officerIds[0]!;
  const created = await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, body: form('caseDto', caseDto(officer), [{ name: 'a.pdf', bytes: PDF }]) });
  expect(created.status).toBe(201);
  caseNumber = created.data.caseDto.caseNumber;
  await call(server, 'POST', '/api/public/case/new/by-phone', { host: HOST, json: oralDto(officer) });
  handlerToken = (await createHandlerAccount(server.ctx.db, 'acme', 'Fuzz')).token;
  const view = await call(server, 'GET', `/api/handler/cases/${caseNumber}`, { token: handlerToken });
  fileId = view.data.files[0].id;
  reporterToken = (await signIn(new Browser(server, HOST), caseNumber, 'pass1234')).access_token;
  // Solved challenges, so some generated submissions get past the proof-of-work.
  for (let i = 0; i < 200; i++) proofs.push(Object.values(await solveChallenge(server))[0]!);
}, 120_000);
afterAll(() => server?.cleanup());

const ODD_SEGMENTS = [
  '------------------------------------', // 36 characters, not a UUID
  'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '1234567890123456',
  '1234 5678 9012 3456',
  '1234-5678-9012-3456',
  '%31%32%33%34%35%36%37%38%39%30%31%32%33%34%35%36',
  '%00',
  '%',
  '%zz',
  '%C0%AF',
  '%ED%A0%80',
  '..',
  '%2e%2e',
  '%2F',
  'a%00b',
  'x'.repeat(3000),
  '%E2%80%AE',
  'null',
  '-1',
  '1e400',
  '[]',
  '{}',
];

const segment = () =>
  fc.oneof(
    fc.constantFrom(...ODD_SEGMENTS),
    fc.constant('__case__'),
    fc.constant('__file__'),
    fc.uuid().map(String),
    fc.stringMatching(/^[0-9a-f-]{36}$/),
    fc.string({ maxLength: 60 }).map(encodeURIComponent),
    fc.string({ unit: 'binary', maxLength: 40 }).map(encodeURIComponent),
  );

const headerValue = () => fc.oneof(fc.string({ maxLength: 80 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')), fc.constantFrom('', ' ', 'null', '\t'));

const jsonBody = () =>
  fc.oneof(
    fc.json({ maxDepth: 3 }),
    fc.constantFrom('{', '{"a":', '[1,2', 'null', '""', '0', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}'),
    fc.record(
      {
        whistleblowerRelation: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
        protectionOfficer: fc.oneof(fc.record({ id: fc.string() }), fc.string(), fc.constant(null)),
        description: fc.oneof(fc.string({ maxLength: 300 }), fc.constant('\u0000'), fc.constant(null)),
        caseAccount: fc.oneof(fc.record({ follow: fc.boolean(), password: fc.oneof(fc.string(), fc.constant(null)) }), fc.constant(null)),
        status: fc.oneof(fc.constantFrom('RECEIVED', 'CLOSED', 'BEING_INVESTIGATED', 'PENDING_WHISTLEBLOWER_CONTACT'), fc.string()),
        text: fc.oneof(fc.string(), fc.integer()),
        comment: fc.oneof(fc.string(), fc.integer()),
        message: fc.oneof(fc.string(), fc.integer()),
        company: fc.oneof(fc.constant(HOST), fc.string()),
        name: fc.string(),
        file: fc.anything({ maxDepth: 2 }),
      },
      { requiredKeys: [] },
    ).map((o) => JSON.stringify(o)),
  );

function multipart(boundary: string, parts: Array<{ name: string; filename?: string; type?: string; content: string }>, cut: boolean) {
  let body = '';
  for (const p of parts) {
    body += `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}\r\n`;
    if (p.type) body += `Content-Type: ${p.type}\r\n`;
    body += `\r\n${p.content}\r\n`;
  }
  return cut ? body.slice(0, Math.max(0, body.length - 7)) : body + `--${boundary}--\r\n`;
}

const multipartBody = () =>
  fc
    .record({
      boundary: fc.constantFrom('FuzzBoundary', 'x', '----WebKitFormBoundary7MA4YWxkTrZu0gW'),
      declared: fc.boolean(),
      cut: fc.boolean(),
      parts: fc.array(
        fc.record({
          name: fc.oneof(fc.constantFrom('caseDto', 'messageDto', 'files', 'other', ''), fc.string({ maxLength: 10 })),
          filename: fc.option(fc.oneof(fc.constantFrom('a.pdf', 'evil.exe', '../../x.pdf', 'a\u202Efdp.exe', 'x'.repeat(400) + '.pdf', ''), fc.string({ maxLength: 30 })), { nil: undefined }),
          type: fc.option(fc.constantFrom('application/json', 'application/pdf', 'text/plain', 'image/png'), { nil: undefined }),
          content: fc.oneof(jsonBody(), fc.constant(PDF.toString('latin1')), fc.string({ maxLength: 200 })),
        }),
        { maxLength: 7 },
      ),
    })
    .map((m) => ({
      contentType: `multipart/form-data${m.declared ? `; boundary=${m.boundary}` : ''}`,
      payload: multipart(m.boundary, m.parts.map((p) => ({ ...p, name: p.name.replace(/["\r\n]/g, ''), filename: p.filename?.replace(/["\r\n]/g, '') })), m.cut),
    }));

const body = () =>
  fc.oneof(
    fc.constant(undefined),
    jsonBody().map((payload) => ({ contentType: 'application/json', payload })),
    multipartBody(),
    fc.record({
      contentType: fc.oneof(fc.constantFrom('text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'multipart/mixed', '*/*', 'garbage'), headerValue()),
      payload: fc.string({ maxLength: 200 }),
    }),
  );

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

function request() {
  const routes = server.routes.filter((r) => /^\/(api|config|healthz)/.test(r.url));
  return fc.record({
    route: fc.constantFrom(...routes),
    otherMethod: fc.option(fc.constantFrom(...METHODS), { freq: 4, nil: undefined }),
    params: fc.array(segment(), { minLength: 3, maxLength: 3 }),
    extraPath: fc.option(fc.constantFrom('/', '//', '/x', '/..', '/%2e%2e/admin', '?'), { freq: 6, nil: undefined }),
    query: fc.option(fc.dictionary(fc.string({ maxLength: 8 }).map(encodeURIComponent), fc.string({ maxLength: 20 }).map(encodeURIComponent), { maxKeys: 4 }), { nil: undefined }),
    auth: fc.constantFrom('none', 'handler', 'reporter', 'garbage', 'basic', 'empty'),
    host: fc.oneof(fc.constantFrom(HOST, 'nobody.test', 'localhost', ''), headerValue()),
    sendHost: fc.boolean(),
    proof: fc.constantFrom('none', 'valid', 'garbage'),
    site: fc.option(fc.constantFrom('cross', 'same', 'origin-evil', 'origin-null'), { freq: 5, nil: undefined }),
    extraHeaders: fc.dictionary(fc.constantFrom('accept', 'accept-language', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'range', 'if-none-match', 'content-encoding'), headerValue(), { maxKeys: 3 }),
    body: body(),
  });
}

describe('fuzzing every API route', () => {
  it(`${RUNS} generated requests: never a 5xx, and every 4xx carries the product's error body with a code`, async () => {
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(request(), async (r) => {
        let i = 0;
        let url = r.route.url.replace(/:(\w+)/g, (_, name: string) => {
          const v = r.params[i++ % 3]!;
          if (v === '__case__') return caseNumber;
          if (v === '__file__') return fileId;
          return v;
        });
        if (url.endsWith('*')) url = url.slice(0, -1) + (r.params[0] === '__case__' ? 'x' : r.params[0]);
        if (r.extraPath) url += r.extraPath;
        if (r.query) {
          const q = Object.entries(r.query).map(([k, v]) => `${k}=${v}`).join('&');
          if (q) url += (url.includes('?') ? '&' : '?') + q;
        }
        const method = r.otherMethod ?? r.route.method;
        const headers: Record<string, string> = { ...r.extraHeaders };
        if (r.sendHost) headers['x-company-host'] = r.host;
        if (r.auth === 'handler') headers.authorization = `Bearer ${handlerToken}`;
        if (r.auth === 'reporter') headers.authorization = `Bearer ${reporterToken}`;
        if (r.auth === 'garbage') headers.authorization = 'Bearer eyJhbGciOiJub25lIn0.e30.';
        if (r.auth === 'basic') headers.authorization = 'Basic Zm9vOmJhcg==';
        if (r.auth === 'empty') headers.authorization = '';
        if (r.proof === 'valid' && proofs.length) headers['x-proof-of-work'] = proofs.pop()!;
        if (r.proof === 'garbage') headers['x-proof-of-work'] = 'v1.4.1.a.b:zz';
        if (r.site === 'cross') headers['sec-fetch-site'] = 'cross-site';
        if (r.site === 'same') headers['sec-fetch-site'] = 'same-origin';
        if (r.site === 'origin-evil') headers.origin = 'https://evil.example';
        if (r.site === 'origin-null') headers.origin = 'null';
        const withBody = r.body && method !== 'GET' && method !== 'HEAD';
        if (withBody) headers['content-type'] = r.body!.contentType;
        const res = await server.app.inject({ method: method as 'GET', url, headers, ...(withBody ? { payload: r.body!.payload } : {}) });
        const key = `${res.statusCode}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
        const where = `${method} ${url.slice(0, 200)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
        expect(res.statusCode, where).toBeLessThan(500);
        if (res.statusCode >= 400 && method !== 'HEAD') {
          expect(res.headers['content-type'], where).toMatch(/^application\/json/);
          const parsed = JSON.parse(res.body) as { error?: { code?: unknown; message?: unknown } };
          expect(typeof parsed.error?.code, where).toBe('string');
          expect(parsed.error!.code, where).toMatch(/^[A-Z][A-Z0-9_]+$/);
          expect(typeof parsed.error?.message, where).toBe('string');
        }
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
    // The generator must reach past the front doors, not only bounce off them.
    console.log('fuzz status counts:', Object.fromEntries([...seen].sort()));
    expect([...seen.keys()].filter((s) => s.startsWith('2')).length).toBeGreaterThan(0);
    expect(seen.size).toBeGreaterThan(5);
  }, 120_000);
});

describe('bad input the fuzzer found, and finding 6 of issue 11, as fixed cases', () => {
  const DASHES = '-'.repeat(36);

  it('a 36-character id that is no UUID is a 404 on the handler and the private file route, not a 5xx', async () => {
    const h = await server.app.inject({ url: `/api/handler/cases/${caseNumber}/files/${DASHES}`, headers: { authorization: `Bearer ${handlerToken}` } });
    expect({ status: h.statusCode, code: h.json().error.code }).toEqual({ status: 404, code: 'FILE_NOT_FOUND' });
    // A fresh sign-in: the fuzzer may have ended the first token's sessions (a generated
    // PUT password/request-update with the good token does, and the token is then refused, as it should be).
    const fresh = (await signIn(new Browser(server, HOST), caseNumber, 'pass1234')).access_token;
    const p = await server.app.inject({ url: `/api/private/case/files/${DASHES}`, headers: { authorization: `Bearer ${fresh}`, 'x-company-host': HOST, host: HOST } });
    expect({ status: p.statusCode, code: p.json().error.code }).toEqual({ status: 404, code: 'FILE_NOT_FOUND' });
    // The real id still works.
    const ok = await server.app.inject({ url: `/api/handler/cases/${caseNumber}/files/${fileId}`, headers: { authorization: `Bearer ${handlerToken}` } });
    expect(ok.statusCode).toBe(200);
  });

  it('a URL the router cannot decode gets the product error body', async () => {
    const res = await server.app.inject({ url: '/api/handler/cases/%E0%A4%A/files/%' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: { code: 'BAD_URL' } });
  });

  it('framework refusals come in the product shape: bad JSON, wrong content type, too large, not multipart, multipart without a boundary', async () => {
    const post = async (url: string, contentType: string, payload: string) =>
      server.app.inject({ method: 'POST', url, headers: { 'content-type': contentType, 'x-company-host': HOST, ...(await solveChallenge(server)) }, payload });
    const codes = [
      await post('/api/public/case/new/by-phone', 'application/json', '{'),
      await post('/api/public/case/new/by-phone', 'application/xml', '<x/>'),
      await post('/api/public/case/new/by-phone', 'application/json', JSON.stringify({ x: 'a'.repeat(1024 * 1024 + 10) })),
      await post('/api/public/case/new/by-form', 'application/json', '{}'),
      await post('/api/public/case/new/by-form', 'multipart/form-data', '--x\r\n'),
    ].map((r) => [r.statusCode, r.json().error.code]);
    expect(codes).toEqual([
      [400, 'BAD_JSON'],
      [415, 'UNSUPPORTED_MEDIA_TYPE'],
      [413, 'BODY_TOO_LARGE'],
      [415, 'NOT_MULTIPART'],
      [400, 'BAD_MULTIPART'],
    ]);
  });

  it('a request Node cannot parse gets a JSON 400, not plain text', async () => {
    const net = await import('node:net');
    const socket = net.connect(server.port, '127.0.0.1');
    const answer = await new Promise<string>((resolve) => {
      let data = '';
      socket.on('data', (d) => (data += d.toString()));
      socket.on('close', () => resolve(data));
      socket.write('GET /api/handler/me HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: { code: 'BAD_REQUEST' } });
  });
});
