/**
 * /api/openapi.json lists every route registered under /api (and no route that is
 * gone), and its request schemas are the validators': each documented required field,
 * left out, is what the real route refuses.
 */
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toJsonSchema } from '@valibot/to-json-schema';
import { OPERATIONS, SCHEMAS, openApiDocument, type Operation } from '../../server/openapi.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { companyByHost } from '../../server/companies/service.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { Browser, newCase, signIn } from './identity-flow.ts';
import { needsProof, solveChallenge } from './api.ts';

let server: TestServer;
let doc: any;
const tokens: Record<Operation['auth'], string | undefined> = { none: undefined, reporter: undefined, handler: undefined, handlerSession: undefined, admin: undefined, companyAdmin: undefined, uploadSession: undefined };
/** A workspace session's cookie (the handler's own tokens need one). */
let sessionCookie = '';
let accountId = '';
let caseNumber: string;

beforeAll(async () => {
  server = await startTestServer();
  const res = await fetch(`${server.url}/api/openapi.json`);
  expect(res.status).toBe(200);
  doc = await res.json();
  caseNumber = await newCase(server, { oral: true });
  tokens.reporter = (await signIn(new Browser(server), caseNumber, 'pass1234')).access_token;
  const company = await companyByHost(server.ctx.db, 'localhost');
  tokens.handler = (await createHandlerAccount(server.ctx.db, company!.id, 'Hanne')).token;
  tokens.admin = server.ctx.adminToken;
  tokens.companyAdmin = server.ctx.adminToken;
  const web = await createHandlerAccount(server.ctx.db, company!.id, 'Wera', { email: 'wera@example.org', token: false });
  accountId = web.id;
  const host = { 'content-type': 'application/json', 'x-company-host': 'localhost' };
  const start = await (await fetch(`${server.url}/api/handler/enrolment/start`, { method: 'POST', headers: host, body: JSON.stringify({ code: web.enrolmentCode }) })).json();
  const totp = () => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(start.secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
  const fin = await (await fetch(`${server.url}/api/handler/enrolment/finish`, { method: 'POST', headers: host, body: JSON.stringify({ code: web.enrolmentCode, password: 'correct horse battery', totpCode: totp() }) })).json();
  const signed = await fetch(`${server.url}/api/handler/session`, { method: 'POST', headers: host, body: JSON.stringify({ email: 'wera@example.org', password: 'correct horse battery', code: fin.recoveryCodes[0] }) });
  expect(signed.status).toBe(200);
  sessionCookie = signed.headers.get('set-cookie')!.split(';')[0]!;
});
afterAll(async () => server?.cleanup());

const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

describe('the API description', () => {
  it('is OpenAPI 3.1 with JSON Schema 2020-12', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.jsonSchemaDialect).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(doc).toEqual(JSON.parse(JSON.stringify(openApiDocument(server.ctx.version))));
  });

  it('lists exactly the routes registered under /api', () => {
    // Fastify adds a HEAD to every GET; a HEAD of its own (tus) is described like any call.
    const hasGet = (url: string) => server.routes.some((g) => g.method === 'GET' && g.url === url);
    const registered = server.routes.filter((r) => r.url.startsWith('/api/') && (r.method !== 'HEAD' || !hasGet(r.url))).map((r) => key(r.method, r.url.replace(/:(\w+)/g, '{$1}')));
    const described = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, ops]) => Object.keys(ops).map((m) => key(m, p)));
    expect(new Set(registered).size).toBeGreaterThanOrEqual(28);
    expect([...new Set(registered)].sort()).toEqual([...new Set(described)].sort());
  });

  it('names a security scheme for every call that needs a caller', () => {
    const schemes = Object.keys(doc.components.securitySchemes);
    for (const op of OPERATIONS) {
      const described = doc.paths[op.path.replace(/:(\w+)/g, '{$1}')][op.method.toLowerCase()];
      if (op.auth === 'none') {
        // Said outright, so no tool takes a document-wide default for it.
        expect(described.security, `${op.method} ${op.path}`).toEqual([]);
        continue;
      }
      const named = (described.security as Record<string, unknown>[]).flatMap((alt) => Object.keys(alt));
      expect(named.length, `${op.method} ${op.path}`).toBeGreaterThan(0);
      for (const name of named) expect(schemes, `${op.method} ${op.path}`).toContain(name);
      // The workspace cookie is the session's, and the handler routes take it besides the token.
      if (op.auth === 'handlerSession' || op.auth === 'handler') expect(named).toContain('handlerSession');
    }
    expect(doc.components.securitySchemes.handlerSession).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'wb_handler' });
  });

  it('asks for the proof-of-work exactly where the server does', () => {
    for (const op of OPERATIONS) {
      const described = doc.paths[op.path.replace(/:(\w+)/g, '{$1}')][op.method.toLowerCase()];
      const header = (described.parameters ?? []).find((p: { name: string }) => p.name === 'X-Proof-Of-Work');
      expect(Boolean(op.pow), `${op.method} ${op.path}`).toBe(needsProof(op.method, op.path));
      expect(Boolean(header?.required), `${op.method} ${op.path}`).toBe(needsProof(op.method, op.path));
    }
  });

  it('takes every body schema from the validator the route uses', () => {
    for (const [name, schema] of Object.entries(SCHEMAS)) {
      const { $schema: _d, ...expected } = toJsonSchema(schema, { target: 'draft-2020-12', typeMode: 'input', errorMode: 'ignore' });
      expect(doc.components.schemas[name], name).toEqual(JSON.parse(JSON.stringify(expected)));
    }
  });

  it('each documented required field, left out, is refused by the real route and named', async () => {
    let checked = 0;
    for (const op of OPERATIONS.filter((o) => o.body)) {
      const schema = doc.components.schemas[op.body!.schema];
      const required: string[] = schema.required ?? [];
      if (!required.length) continue;
      const path = op.path.replace(':caseNumber', caseNumber).replace(':company', 'localhost').replace(':account', accountId);
      // A submission needs a solved proof-of-work to get as far as validation.
      const headers: Record<string, string> = { 'x-company-host': 'localhost', ...(op.pow ? await solveChallenge(server) : {}) };
      if (op.auth === 'handlerSession') headers.cookie = sessionCookie;
      else if (tokens[op.auth]) headers.authorization = `Bearer ${tokens[op.auth]}`;
      let body: BodyInit;
      if (op.body!.multipart) {
        const fd = new FormData();
        fd.append(op.body!.multipart.part, '{}');
        body = fd;
      } else {
        headers['content-type'] = 'application/json';
        body = '{}';
      }
      const res = await fetch(`${server.url}${path}`, { method: op.method, headers, body });
      const answer = (await res.json()) as { error?: { code: string; field?: string } };
      expect(res.status, `${op.method} ${op.path}: ${JSON.stringify(answer)}`).toBe(400);
      expect(required, `${op.method} ${op.path}: ${JSON.stringify(answer)}`).toContain(answer.error?.field?.split('.')[0]);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(8);
  });
});
