/**
 * The company editor's API (issue 39 item 5, docs/decisions/company-editor.md) against
 * the real server and database: versions, atomic saves, reverts, the shared rules'
 * refusals, image checks, and export → import giving the same company.
 */
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { call, expectError, PNG } from './api.ts';
import { addCompany } from './fixtures/company.ts';

let server: TestServer;
const HOST = 'acme.test';
const base = '/api/admin/companies/acme';
const op = (method: string, p: string, json?: unknown) => call(server, method, `${base}${p}`, { token: server.ctx.adminToken, json });

async function editor() {
  const res = await op('GET', '/editor');
  expect(res.status).toBe(200);
  return res.data as { version: number; file: any; images: Record<string, { sha256: string; contentType: string }>; canEditHosts: boolean };
}

async function publicHeading(lang: string) {
  const res = await call(server, 'GET', `/api/public/site-look-and-feel/language/${lang}`, { host: HOST });
  expect(res.status).toBe(200);
  return res.data.siteFrontPage.heading as string;
}

const PASSWORD = 'correct horse battery staple';

/** A signed-in workspace session of a new account of acme (cookie jar of one cookie). */
async function signedIn(email: string, roles: { admin: boolean; handler: boolean }) {
  const made = await call(server, 'POST', '/api/admin/handlers', { token: server.ctx.adminToken, json: { company: 'acme', name: email.split('@')[0], email, ...roles, token: false } });
  expect(made.status).toBe(201);
  const start = await call(server, 'POST', '/api/handler/enrolment/start', { host: HOST, json: { code: made.data.enrolmentCode } });
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(start.data.secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
  const fin = await call(server, 'POST', '/api/handler/enrolment/finish', { host: HOST, json: { code: made.data.enrolmentCode, password: PASSWORD, totpCode: totp } });
  expect(fin.status).toBe(200);
  const session = await call(server, 'POST', '/api/handler/session', { host: HOST, json: { email, password: PASSWORD, code: fin.data.recoveryCodes[0] } });
  expect(session.status).toBe(200);
  const cookie = session.headers.get('set-cookie')!.split(';')[0]!;
  return (method: string, p: string, json?: unknown) => call(server, method, p, { host: HOST, json, headers: { cookie } });
}

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false });
  await addCompany(server.ctx.db, { id: 'acme', hosts: [HOST], languages: ['da', 'en'] });
  await addCompany(server.ctx.db, { id: 'other', hosts: ['other.test'] });
});
afterAll(async () => {
  await server?.cleanup();
});

describe('the company editor API', () => {
  it('opens the company as its newest version, with its images by hash', async () => {
    const e = await editor();
    expect(e.version).toBe(1);
    expect(e.file.id).toBe('acme');
    expect(e.file.hosts).toEqual([HOST]);
    expect(Object.keys(e.images).sort()).toEqual(['logo.png', 'officer.svg']);
    expect(e.images['logo.png']!.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(e.canEditHosts).toBe(true);
  });

  it('saves a draft as a new version, and the public pages show it at once', async () => {
    const e = await editor();
    const file = structuredClone(e.file);
    file.lookAndFeel.da.siteFrontPage.heading = 'Sig det til os';
    file.lookAndFeel.en.siteFrontPage.heading = 'Tell us';
    file.siteColors.primaryColorCode = '#5a1a1a';
    expect(await publicHeading('da')).toBe('Whistleblower scheme'); // read once, so the cache holds it
    const res = await op('PUT', '/settings', { baseVersion: e.version, file, images: e.images });
    expect(res.status).toBe(200);
    expect(res.data.version).toBe(2);
    expect(await publicHeading('da')).toBe('Sig det til os');
    expect(await publicHeading('en')).toBe('Tell us');
    const laf = await call(server, 'GET', '/api/public/site-look-and-feel/language/en', { host: HOST });
    expect(laf.data.siteColors.primaryColorCode).toBe('#5a1a1a');
    const versions = await op('GET', '/versions');
    expect(versions.data.versions.map((v: any) => [v.version, v.action])).toEqual([
      [2, 'save'],
      [1, 'import'],
    ]);
  });

  it('saves all or nothing: a draft that fails half way leaves the company as it was', async () => {
    const e = await editor();
    const file = structuredClone(e.file);
    file.name = 'Half saved Ltd';
    // Valid by the schema, but the logo was never uploaded: the store refuses after it began writing.
    const images = { ...e.images, 'logo.png': { sha256: 'a'.repeat(64), contentType: 'image/png' } };
    expectError(await op('PUT', '/settings', { baseVersion: e.version, file, images }), 400, 'INVALID_COMPANY_FILE', 'logo.file');
    const after = await editor();
    expect(after.version).toBe(e.version);
    expect(after.file.name).toBe(e.file.name);
    const row = await server.ctx.db.selectFrom('company').select('name').where('id', '=', 'acme').executeTakeFirstOrThrow();
    expect(row.name).toBe(e.file.name);
  });

  it('refuses a draft made from an older version (409 VERSION_CONFLICT)', async () => {
    const e = await editor();
    expectError(await op('PUT', '/settings', { baseVersion: e.version - 1, file: e.file, images: e.images }), 409, 'VERSION_CONFLICT');
  });

  it('refuses what the company file refuses, with the field named', async () => {
    const e = await editor();
    const unreadable = structuredClone(e.file);
    unreadable.siteColors.primaryColorCode = '#f0f0f0';
    expectError(await op('PUT', '/settings', { baseVersion: e.version, file: unreadable, images: e.images }), 400, 'INVALID_COMPANY_FILE', 'siteColors.primaryColorCode');
    const dark = structuredClone(e.file);
    dark.siteColors.secondaryColorCode = '#333333';
    expectError(await op('PUT', '/settings', { baseVersion: e.version, file: dark, images: e.images }), 400, 'INVALID_COMPANY_FILE', 'siteColors.secondaryColorCode');
    const empty = structuredClone(e.file);
    empty.lookAndFeel.en.siteFrontPage.heading = '   ';
    expectError(await op('PUT', '/settings', { baseVersion: e.version, file: empty, images: e.images }), 400, 'INVALID_COMPANY_FILE', 'lookAndFeel.en.siteFrontPage.heading');
    expectError(await op('PUT', '/settings', { baseVersion: e.version, file: { ...e.file, colour: 'red' }, images: e.images }), 400, 'INVALID_COMPANY_FILE', 'colour');
    expectError(await op('PUT', '/settings', { baseVersion: e.version, file: { ...e.file, id: 'other' }, images: e.images }), 400, 'COMPANY_ID_MISMATCH', 'id');
    expectError(await op('PUT', '/settings', { baseVersion: 'one', file: e.file, images: e.images }), 400, 'VALIDATION');
    expectError(await op('PUT', '/settings', { baseVersion: e.version, file: { ...e.file, hosts: ['other.test'] }, images: e.images }), 400, 'INVALID_COMPANY_FILE', 'hosts.0');
    expect((await editor()).version).toBe(e.version);
  });

  it('answers 404 for an unknown company and 401 without the credential', async () => {
    expectError(await call(server, 'GET', '/api/admin/companies/nope/editor', { token: server.ctx.adminToken }), 404, 'UNKNOWN_COMPANY');
    expect((await call(server, 'GET', `${base}/editor`)).status).toBe(401);
  });

  it('reverts to an earlier version as a new version', async () => {
    const before = await editor();
    const res = await op('POST', '/versions/1/revert', { baseVersion: before.version });
    expect(res.status).toBe(200);
    expect(res.data.version).toBe(before.version + 1);
    expect(await publicHeading('da')).toBe('Whistleblower scheme');
    const versions = await op('GET', '/versions');
    expect(versions.data.versions[0]).toMatchObject({ version: before.version + 1, action: 'revert', revertedTo: 1 });
    expectError(await op('POST', '/versions/99/revert', { baseVersion: before.version + 1 }), 404, 'UNKNOWN_VERSION');
    expectError(await op('POST', '/versions/1/revert', { baseVersion: before.version }), 409, 'VERSION_CONFLICT');
  });

  it('takes a PNG logo (its metadata removed) and refuses an SVG with script or a PNG that is not one', async () => {
    const png = await op('POST', '/images', { contentType: 'image/png', base64: PNG.toString('base64') });
    expect(png.status).toBe(201);
    expect(png.data.file).toMatch(/^images\/[0-9a-f]{16}\.png$/);
    const got = await fetch(`${server.url}${base}/images/${png.data.sha256}`, { headers: { authorization: `Bearer ${server.ctx.adminToken}` } });
    expect(got.headers.get('content-type')).toBe('image/png');
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
    expectError(await op('POST', '/images', { contentType: 'image/svg+xml', base64: Buffer.from(svg).toString('base64') }), 400, 'IMAGE_REFUSED');
    const onload = '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="1" height="1"/></svg>';
    expectError(await op('POST', '/images', { contentType: 'image/svg+xml', base64: Buffer.from(onload).toString('base64') }), 400, 'IMAGE_REFUSED');
    const outside = '<svg xmlns="http://www.w3.org/2000/svg"><use href="https://evil.example/x.svg#a"/></svg>';
    expectError(await op('POST', '/images', { contentType: 'image/svg+xml', base64: Buffer.from(outside).toString('base64') }), 400, 'IMAGE_REFUSED');
    expectError(await op('POST', '/images', { contentType: 'image/jpeg', base64: PNG.toString('base64') }), 400, 'IMAGE_REFUSED');

    // The uploaded logo saved as the company's: the public logo is those bytes.
    const e = await editor();
    const file = { ...e.file, logo: { file: png.data.file, contentType: 'image/png' } };
    const saved = await op('PUT', '/settings', { baseVersion: e.version, file, images: { ...e.images, [png.data.file]: { sha256: png.data.sha256, contentType: 'image/png' } } });
    expect(saved.status).toBe(200);
    const laf = await call(server, 'GET', '/api/public/site-look-and-feel/language/da', { host: HOST });
    const logo = await fetch(`${server.url}/api/public/site-look-and-feel/logo/${laf.data.logoFileName}`, { headers: { 'x-company-host': HOST } });
    expect(logo.status).toBe(200);
    expect(Buffer.from(await logo.arrayBuffer()).equals(Buffer.from(await got.arrayBuffer()))).toBe(true);
  });

  it('exports the company file that, imported again, is the same company', async () => {
    const before = await editor();
    const exported = await op('GET', '/export');
    expect(exported.status).toBe(200);
    expect(exported.data.file).toEqual(before.file);
    expect(Object.keys(exported.data.assets).sort()).toEqual(Object.keys(before.images).sort());
    // Through the operator's import (the CLI's route), as `npm run company -- import` sends it.
    const imported = await call(server, 'POST', '/api/admin/companies', { token: server.ctx.adminToken, json: exported.data });
    expect(imported.status).toBe(200);
    const after = await editor();
    expect(after.version).toBe(before.version + 1);
    expect(after.file).toEqual(before.file);
    expect(after.images).toEqual(before.images);
    expect((await op('GET', '/export')).data).toEqual(exported.data);
    // And through the editor's own import.
    const again = await op('POST', '/import', { baseVersion: after.version, ...exported.data });
    expect(again.status).toBe(200);
    expect((await editor()).file).toEqual(before.file);
  });
});

describe('who may edit', () => {
  it("lets the company's administrator edit everything but the host names, and writes the trail", async () => {
    const admin = await signedIn('ada@example.org', { admin: true, handler: false });
    const res = await admin('GET', `${base}/editor`);
    expect(res.status).toBe(200);
    expect(res.data.canEditHosts).toBe(false);
    const { version, file, images } = res.data;
    expectError(await admin('PUT', `${base}/settings`, { baseVersion: version, file: { ...file, hosts: [HOST, 'www.acme.test'] }, images }), 403, 'HOSTS_OPERATOR_ONLY', 'hosts');
    const changed = structuredClone(file);
    changed.lookAndFeel.en.siteFrontPage.heading = 'Speak up';
    const saved = await admin('PUT', `${base}/settings`, { baseVersion: version, file: changed, images });
    expect(saved.status).toBe(200);
    expect(await publicHeading('en')).toBe('Speak up');
    const versions = await admin('GET', `${base}/versions`);
    expect(versions.data.versions[0]).toMatchObject({ version: saved.data.version, action: 'save', actorName: 'ada', actorRole: 'admin' });
    const trail = await admin('GET', '/api/admin/companies/acme/trail');
    expect(trail.data.entries[0]).toMatchObject({ action: 'COMPANY_SETTINGS_SAVED', actor: { name: 'ada', role: 'admin' }, detail: { version: saved.data.version } });
    // Another company is not there for this administrator.
    expectError(await admin('GET', '/api/admin/companies/other/editor'), 404, 'UNKNOWN_COMPANY');
    // The operator may change the hosts.
    const e = await editor();
    const moved = await op('PUT', '/settings', { baseVersion: e.version, file: { ...e.file, hosts: [HOST, 'www.acme.test'] }, images: e.images });
    expect(moved.status).toBe(200);
    expect((await call(server, 'GET', '/api/public/site-look-and-feel/language/en', { host: 'www.acme.test' })).status).toBe(200);
  });

  it('refuses a handler who is not an administrator', async () => {
    const handler = await signedIn('hal@example.org', { admin: false, handler: true });
    expectError(await handler('GET', `${base}/editor`), 403, 'FORBIDDEN');
    expectError(await handler('PUT', `${base}/settings`, { baseVersion: 1, file: {}, images: {} }), 403, 'FORBIDDEN');
  });
});
