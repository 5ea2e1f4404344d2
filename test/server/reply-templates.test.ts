/**
 * Reply templates (issue 38 Build 7, docs/decisions/reply-templates.md) against the real
 * server and database: a company's administrator creates, edits and removes them, each
 * in the trail; its handlers read them and cannot change them; another company's
 * administrator neither sees nor changes them; bad input is a 400 with its code; the
 * demo seed gives both demo companies two templates in all their languages.
 */
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { call, expectError } from './api.ts';
import { addCompany } from './fixtures/company.ts';
import { keyBundle, signInProof } from '../helpers/handler-keys.ts';
import { DEMO_TEMPLATES } from '../../server/companies/demo-templates.ts';
import { REPLY_TEMPLATE_LIMITS } from '../../machines/schema.ts';

let server: TestServer;
const HOST = 'acme.test';
const OTHER_HOST = 'other.test';
const PASSWORD = 'correct horse battery staple';
type Caller = (method: string, p: string, json?: unknown) => ReturnType<typeof call>;

/** A signed-in workspace session of a new account of `company` (on its host). */
async function signedIn(company: string, host: string, email: string, roles: { admin: boolean; handler: boolean }): Promise<Caller> {
  const made = await call(server, 'POST', '/api/admin/handlers', { token: server.ctx.adminToken, json: { company, name: email.split('@')[0], email, ...roles, token: false } });
  expect(made.status).toBe(201);
  const start = await call(server, 'POST', '/api/handler/enrolment/start', { host, json: { code: made.data.enrolmentCode } });
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(start.data.secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
  const fin = await call(server, 'POST', '/api/handler/enrolment/finish', { host, json: { code: made.data.enrolmentCode, keys: await keyBundle(PASSWORD), totpCode: totp } });
  expect(fin.status).toBe(200);
  const session = await call(server, 'POST', '/api/handler/session', { host, json: { ...(await signInProof((p, json) => call(server, 'POST', p, { host, json }), email, PASSWORD)), code: fin.data.recoveryCodes[0] } });
  expect(session.status).toBe(200);
  const cookie = session.headers.get('set-cookie')!.split(';')[0]!;
  return (method, p, json) => call(server, method, p, { host, json, headers: { cookie } });
}

const base = '/api/admin/companies/acme/templates';
const ack = { name: 'Acknowledgement', texts: { da: 'Vi har modtaget din indberetning.', en: 'We have received your report.' } };
let admin: Caller;
let handler: Caller;
let otherAdmin: Caller;

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false });
  await addCompany(server.ctx.db, { id: 'acme', hosts: [HOST], languages: ['da', 'en'] });
  await addCompany(server.ctx.db, { id: 'other', hosts: [OTHER_HOST] });
  admin = await signedIn('acme', HOST, 'admin@acme.test', { admin: true, handler: false });
  handler = await signedIn('acme', HOST, 'handler@acme.test', { admin: false, handler: true });
  otherAdmin = await signedIn('other', OTHER_HOST, 'admin@other.test', { admin: true, handler: true });
});
afterAll(async () => {
  await server?.cleanup();
});

describe('reply templates', () => {
  let id: string;

  it('lets the company administrator create, list, edit and delete a template, each in the trail', async () => {
    const empty = await admin('GET', base);
    expect(empty.status).toBe(200);
    expect(empty.data).toEqual({ templates: [], languages: ['da', 'en'], defaultLanguage: 'da' });

    const made = await admin('POST', base, { ...ack, name: '  Acknowledgement  ' });
    expect(made.status).toBe(201);
    expect(made.data.template).toMatchObject({ name: 'Acknowledgement', texts: ack.texts });
    id = made.data.template.id;

    const edited = await admin('PUT', `${base}/${id}`, { name: 'Receipt', texts: { ...ack.texts, en: 'Thank you: we have received your report.' } });
    expect(edited.status).toBe(200);
    expect(edited.data.template).toMatchObject({ id, name: 'Receipt', texts: { en: 'Thank you: we have received your report.' } });

    const second = await admin('POST', base, { name: 'Feedback', texts: { da: 'Tilbagemelding.', en: 'Feedback.' } });
    expect(second.status).toBe(201);
    const list = await admin('GET', base);
    expect(list.data.templates.map((t: { name: string }) => t.name)).toEqual(['Receipt', 'Feedback']);

    const gone = await admin('DELETE', `${base}/${second.data.template.id}`);
    expect(gone.status).toBe(204);
    expect((await admin('GET', base)).data.templates.map((t: { id: string }) => t.id)).toEqual([id]);
    expectError(await admin('DELETE', `${base}/${second.data.template.id}`), 404, 'UNKNOWN_TEMPLATE');

    const trail = await call(server, 'GET', '/api/admin/companies/acme/trail', { token: server.ctx.adminToken });
    expect(trail.status).toBe(200);
    const acts = (trail.data.entries as { action: string; actor: { name: string } }[]).filter((e) => e.action.startsWith('TEMPLATE_'));
    expect(acts.map((e) => e.action).sort()).toEqual(['TEMPLATE_CREATED', 'TEMPLATE_CREATED', 'TEMPLATE_DELETED', 'TEMPLATE_UPDATED']);
    expect(acts.every((e) => e.actor.name === 'admin')).toBe(true);
  });

  it('lets a handler read the templates of their own company, and not change them', async () => {
    const read = await handler('GET', '/api/handler/templates');
    expect(read.status).toBe(200);
    expect(read.data.defaultLanguage).toBe('da');
    expect(read.data.templates).toEqual([expect.objectContaining({ id, name: 'Receipt' })]);
    expectError(await handler('GET', base), 403, 'FORBIDDEN');
    expectError(await handler('POST', base, ack), 403, 'FORBIDDEN');
    expectError(await handler('PUT', `${base}/${id}`, ack), 403, 'FORBIDDEN');
    expectError(await handler('DELETE', `${base}/${id}`), 403, 'FORBIDDEN');
    // An administrator who reads no cases has no handler's read.
    expectError(await admin('GET', '/api/handler/templates'), 403, 'FORBIDDEN');
    expect((await admin('GET', base)).data.templates[0].name).toBe('Receipt');
  });

  it("keeps another company's administrator out: its list, edits and deletes answer as if acme did not exist", async () => {
    expectError(await otherAdmin('GET', base), 404, 'UNKNOWN_COMPANY');
    expectError(await otherAdmin('POST', base, ack), 404, 'UNKNOWN_COMPANY');
    expectError(await otherAdmin('PUT', `${base}/${id}`, ack), 404, 'UNKNOWN_COMPANY');
    expectError(await otherAdmin('DELETE', `${base}/${id}`), 404, 'UNKNOWN_COMPANY');
    // Through its own company's routes, acme's template id is unknown.
    const own = '/api/admin/companies/other/templates';
    const languages = (await otherAdmin('GET', own)).data.languages as string[];
    const otherAck = { name: 'Ack', texts: Object.fromEntries(languages.map((l) => [l, `ack ${l}`])) };
    expectError(await otherAdmin('PUT', `${own}/${id}`, otherAck), 404, 'UNKNOWN_TEMPLATE');
    expectError(await otherAdmin('DELETE', `${own}/${id}`), 404, 'UNKNOWN_TEMPLATE');
    // Its handlers' read holds only its own.
    expect((await otherAdmin('GET', '/api/handler/templates')).data.templates).toEqual([]);
    expect((await otherAdmin('POST', own, otherAck)).status).toBe(201);
    expect((await handler('GET', '/api/handler/templates')).data.templates.map((t: { name: string }) => t.name)).toEqual(['Receipt']);
    // Acme's template is untouched.
    expect((await admin('GET', base)).data.templates[0]).toMatchObject({ id, name: 'Receipt' });
  });

  it('refuses bad input with 400 and its code, naming the field', async () => {
    const refused = async (body: unknown, field: string) => {
      const res = await admin('POST', base, body);
      expectError(res, 400, 'VALIDATION', field);
    };
    await refused({ name: '', texts: ack.texts }, 'name');
    await refused({ name: 'x'.repeat(REPLY_TEMPLATE_LIMITS.nameMax + 1), texts: ack.texts }, 'name');
    await refused({ name: 'Missing Danish', texts: { en: 'Hello' } }, 'texts.da');
    await refused({ name: 'Blank English', texts: { da: 'Hej', en: '   ' } }, 'texts.en');
    await refused({ name: 'Too long', texts: { da: 'Hej', en: 'x'.repeat(REPLY_TEMPLATE_LIMITS.textMax + 1) } }, 'texts.en');
    await refused({ name: 'Not offered', texts: { ...ack.texts, pl: 'Dzień dobry' } }, 'texts.pl');
    await refused({ name: 7, texts: ack.texts }, 'name');
    expectError(await admin('POST', base, '[1, 2]'), 400, 'VALIDATION');
    expectError(await admin('PUT', `${base}/${id}`, { name: 'x', texts: { da: 'Hej' } }), 400, 'VALIDATION', 'texts.en');
    expectError(await admin('PUT', `${base}/not-a-uuid`, ack), 404, 'UNKNOWN_TEMPLATE');
    expectError(await admin('PUT', `${base}/00000000-0000-4000-8000-000000000000`, ack), 404, 'UNKNOWN_TEMPLATE');
    const list = await admin('GET', base);
    expect(list.data.templates).toHaveLength(1);
  });

  it(`keeps at most ${REPLY_TEMPLATE_LIMITS.perCompany} templates per company`, async () => {
    const have = (await admin('GET', base)).data.templates.length as number;
    for (let i = have; i < REPLY_TEMPLATE_LIMITS.perCompany; i++) expect((await admin('POST', base, { ...ack, name: `T${i}` })).status).toBe(201);
    expectError(await admin('POST', base, ack), 409, 'TEMPLATE_LIMIT');
  });

  it('seeds the demo companies with two templates in all their languages', async () => {
    const demo = await startTestServer({});
    try {
      for (const host of ['localhost', 'group.localhost']) {
        const company = (await demo.ctx.db.selectFrom('company_host').select('company_id').where('host', '=', host).executeTakeFirstOrThrow()).company_id;
        const res = await call(demo, 'GET', `/api/admin/companies/${company}/templates`, { token: demo.ctx.adminToken });
        expect(res.status).toBe(200);
        expect(res.data.templates).toHaveLength(2);
        for (const [i, t] of (res.data.templates as { name: string; texts: Record<string, string> }[]).entries()) {
          expect(Object.keys(t.texts).sort()).toEqual([...res.data.languages].sort());
          expect(t.name).toBe(DEMO_TEMPLATES[i]!.names[res.data.defaultLanguage as 'da']);
          // Real translations: no two languages share a text.
          expect(new Set(Object.values(t.texts)).size).toBe(res.data.languages.length);
        }
      }
    } finally {
      await demo.cleanup();
    }
  });
});
