/**
 * A fast API without stale answers: my-case answers 304 to the ETag it gave while
 * nothing changed, and the companies the server keeps in memory are dropped when a
 * company is imported or its row changes by any other way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { call, form } from './api.ts';
import { Browser, newCase, signIn, type Tokens } from './identity-flow.ts';
import { companyByHost, importCompany, validateBundle } from '../../server/companies/service.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { companyFixture } from './fixtures/company.ts';

let server: TestServer;
let tokens: Tokens;
let caseNumber: string;
beforeAll(async () => {
  server = await startTestServer();
  caseNumber = await newCase(server, {});
  tokens = await signIn(new Browser(server, 'localhost'), caseNumber, 'pass1234');
});
afterAll(async () => server?.cleanup());

const MY_CASE = '/api/private/case/my-case';

describe('my-case with an ETag', () => {
  it('answers 304 without a body while the case is unchanged, and 200 with a new ETag once it changes', async () => {
    const first = await call(server, 'GET', MY_CASE, { host: 'localhost', token: tokens.access_token });
    expect(first.status).toBe(200);
    expect(first.data.caseNumber).toBe(caseNumber);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/".+"$/);
    expect(first.headers.get('cache-control')).toBe('no-store');

    const same = await call(server, 'GET', MY_CASE, { host: 'localhost', token: tokens.access_token, headers: { 'if-none-match': etag } });
    expect(same.status).toBe(304);
    expect(same.data).toBeUndefined();
    expect(same.headers.get('etag')).toBe(etag);

    // A handler's message changes the case: the old ETag no longer matches.
    const company = await companyByHost(server.ctx.db, 'localhost');
    const { token } = await createHandlerAccount(server.ctx.db, company!.id, 'Hanne Handler');
    const sent = await call(server, 'POST', `/api/handler/cases/${caseNumber}/messages`, { token, body: form('messageDto', { message: 'Can you tell us more?', answerWanted: true }) });
    expect(sent.status).toBe(201);
    const changed = await call(server, 'GET', MY_CASE, { host: 'localhost', token: tokens.access_token, headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(changed.data.messages.map((m: { message: string }) => m.message)).toContain('Can you tell us more?');
    expect(changed.data.pendingWhistleblowerAction).toBe(true);
  });

  it('still checks the token before a 304: no token, no answer', async () => {
    const first = await call(server, 'GET', MY_CASE, { host: 'localhost', token: tokens.access_token });
    const res = await call(server, 'GET', MY_CASE, { host: 'localhost', headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(res.status).toBe(401);
  });

  it('reads the case as before: events, files in order, decrypted names and messages', async () => {
    const withFiles = await newCase(server, { files: [{ name: 'a.txt', bytes: 'first\n' }, { name: 'b.txt', bytes: 'second\n' }] });
    const t = await signIn(new Browser(server, 'localhost'), withFiles, 'pass1234');
    const view = (await call(server, 'GET', MY_CASE, { host: 'localhost', token: t.access_token })).data;
    expect(view.files.map((f: { name: string }) => f.name)).toEqual(['a.txt', 'b.txt']);
    expect(view.files[0].size).toBe(6);
    expect(view.events.map((e: { status: string }) => e.status)).toEqual(['RECEIVED']);
    expect(view.receivedDate).toBe(view.events[0].dateTime);
    expect(new Date(view.created).getTime()).toBeLessThanOrEqual(Date.now());
    expect(view.caseAccount).toEqual({ follow: true });
    expect(view.messages).toEqual([]);
    // The handler's read of the same case is the same view, plus what only a handler
    // sees: the legal clock and the audit trail.
    const company = await companyByHost(server.ctx.db, 'localhost');
    const { token } = await createHandlerAccount(server.ctx.db, company!.id, 'Hanne Handler 2');
    const { deadline, audit, reporterLanguage, ...handlerView } = (await call(server, 'GET', `/api/handler/cases/${withFiles}`, { token })).data;
    expect(handlerView).toEqual(view);
    // The page language the report was sent in; this one came by the API without one.
    expect(reporterLanguage).toBeNull();
    expect(deadline.kind).toBe('ACKNOWLEDGEMENT');
    expect(audit.map((a: { action: string }) => a.action)).toEqual(['CASE_READ']);
  });
});

describe('company cache', () => {
  const laf = (host: string) => call(server, 'GET', '/api/public/site-look-and-feel/language/da', { host });

  it('serves a re-imported company at once, and a new host as soon as it is imported', async () => {
    const f = companyFixture({ id: 'cached-co', hosts: ['cached.test'], languages: ['da'] });
    expect((await laf('cached.test')).status).toBe(404); // unknown, and remembered as unknown
    await importCompany(server.ctx.db, validateBundle(f.file, f.assets));
    const before = await laf('cached.test');
    expect(before.status).toBe(200);
    expect(before.data.siteFrontPage.heading).toBe('Whistleblower scheme');
    // Same object twice: parsed once, kept.
    expect(await companyByHost(server.ctx.db, 'cached.test')).toBe(await companyByHost(server.ctx.db, 'CACHED.test:443'));

    f.file.lookAndFeel.da!.siteFrontPage.heading = 'A new heading';
    f.file.hosts = ['cached.test', 'second.test'];
    await importCompany(server.ctx.db, validateBundle(f.file, f.assets));
    expect((await laf('cached.test')).data.siteFrontPage.heading).toBe('A new heading');
    expect((await laf('second.test')).data.siteFrontPage.heading).toBe('A new heading');
    expect((await call(server, 'GET', '/', { headers: { host: 'cached.test' } })).status).toBeLessThan(500);

    // Import through the admin API (what the CLI does while the server runs).
    f.file.lookAndFeel.da!.siteFrontPage.heading = 'Via the admin API';
    const assets = Object.fromEntries(Object.entries(f.assets).map(([p, a]) => [p, { contentType: a.contentType, base64: a.bytes.toString('base64') }]));
    const res = await fetch(`${server.url}/api/admin/companies`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.ctx.adminToken}` },
      body: JSON.stringify({ file: f.file, assets }),
    });
    expect(res.status).toBeLessThan(300);
    expect((await laf('second.test')).data.siteFrontPage.heading).toBe('Via the admin API');
  });

  it('drops a company changed in the database by another way (another process, a hand edit)', async () => {
    const f = companyFixture({ id: 'edited-co', hosts: ['edited.test'], languages: ['da'] });
    await importCompany(server.ctx.db, validateBundle(f.file, f.assets));
    expect((await laf('edited.test')).data.contactPerson).toBe('Jane Contact');
    const row = await server.ctx.db.selectFrom('company').select('settings').where('id', '=', 'edited-co').executeTakeFirstOrThrow();
    const settings = structuredClone(row.settings) as { contactPerson: string };
    settings.contactPerson = 'Edited By Hand';
    // Not through importCompany: only the database's notification can tell the cache.
    await server.ctx.db.updateTable('company').set({ settings: JSON.stringify(settings) } as never).where('id', '=', 'edited-co').execute();
    await expect.poll(async () => (await laf('edited.test')).data.contactPerson).toBe('Edited By Hand');
    await server.ctx.db.deleteFrom('company_host').where('host', '=', 'edited.test').execute();
    await expect.poll(async () => (await laf('edited.test')).status).toBe(404);
  });
});

describe('public answers made once per company', () => {
  it('company-info and the look and feel carry an ETag, answer 304 to it, come compressed, and change with the company', async () => {
    const f = companyFixture({ id: 'bodies-co', hosts: ['bodies.test'], languages: ['da'] });
    await importCompany(server.ctx.db, validateBundle(f.file, f.assets));
    for (const p of ['/api/public/case/company-info', '/api/public/site-look-and-feel/language/da']) {
      const first = await call(server, 'GET', p, { host: 'bodies.test' });
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^W\/".+"$/);
      const again = await call(server, 'GET', p, { host: 'bodies.test' });
      expect(again.data).toEqual(first.data);
      expect(again.headers.get('etag')).toBe(etag);
      expect((await call(server, 'GET', p, { host: 'bodies.test', headers: { 'if-none-match': etag } })).status).toBe(304);
      // The same bytes Brotli-compressed for a client that takes them.
      const raw = await fetch(`${server.url}${p}`, { headers: { 'x-company-host': 'bodies.test', 'accept-encoding': 'br' } });
      expect(raw.headers.get('content-encoding')).toBe(Buffer.byteLength(JSON.stringify(first.data)) >= 1024 ? 'br' : null);
      expect(await raw.json()).toEqual(first.data);
    }
    const before = await call(server, 'GET', '/api/public/case/company-info', { host: 'bodies.test' });
    f.file.subsidiaries = [...(f.file.subsidiaries ?? []), { id: 'sub-new', name: 'A new subsidiary' } as never];
    f.file.lookAndFeel.da!.siteFrontPage.heading = 'Changed heading';
    await importCompany(server.ctx.db, validateBundle(f.file, f.assets));
    const after = await call(server, 'GET', '/api/public/case/company-info', { host: 'bodies.test', headers: { 'if-none-match': before.headers.get('etag')! } });
    expect(after.status).toBe(200);
    expect(after.data.subsidiaries.map((s: { name: string }) => s.name)).toContain('A new subsidiary');
    expect((await call(server, 'GET', '/api/public/site-look-and-feel/language/da', { host: 'bodies.test' })).data.siteFrontPage.heading).toBe('Changed heading');
    expect((await call(server, 'GET', '/api/public/site-look-and-feel/language/xx', { host: 'bodies.test' })).status).toBe(404);
  });
});
