/**
 * The record of an oral report, proven (docs/decisions/record-versions.md): every
 * version is kept sealed with its SHA-256 and shown to both sides; approving names
 * a version by its hash; an edit after approval is a new version awaiting approval,
 * visible to both; the approved version downloads with its hash and approval time.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { call, expectError } from './api.ts';
import { Browser, newCase, signIn, type Tokens } from './identity-flow.ts';
import { companyByHost } from '../../server/companies/service.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';

let server: TestServer;
let handlerToken: string;
let handlerId: string;
let colleague: { id: string; token: string };
let phone: { caseNumber: string; tokens: Tokens };
const B = '/api/private/case';
const sha = (t: string) => createHash('sha256').update(t, 'utf8').digest('hex');

beforeAll(async () => {
  server = await startTestServer();
  const caseNumber = await newCase(server, { oral: true });
  phone = { caseNumber, tokens: await signIn(new Browser(server, 'localhost'), caseNumber, 'pass1234') };
  const company = await companyByHost(server.ctx.db, 'localhost');
  ({ token: handlerToken, id: handlerId } = await createHandlerAccount(server.ctx.db, company!.id, 'Hanne Handler'));
  colleague = await createHandlerAccount(server.ctx.db, company!.id, 'Carl Colleague');
});
afterAll(async () => server?.cleanup());

const reporter = () => ({ token: phone.tokens.access_token, host: 'localhost' });
const record = (text: string) => call(server, 'PUT', `/api/handler/cases/${phone.caseNumber}/report`, { token: handlerToken, json: { text } });
const handlerView = async () => (await call(server, 'GET', `/api/handler/cases/${phone.caseNumber}`, { token: handlerToken })).data;
const reporterView = async () => (await call(server, 'GET', `${B}/my-case`, reporter())).data;
const approve = (body?: unknown) => call(server, 'PUT', `${B}/approve`, { ...reporter(), json: body ?? {} });

const V1 = 'The caller said invoices from Acme were paid twice in March.';
const V2 = 'The caller said invoices from Acme were paid twice in March and April.';

describe('versions of the record', () => {
  it('refuses an approval before the handler wrote any record (409 NO_RECORD_YET), hash or not', async () => {
    expectError(await approve(), 409, 'NO_RECORD_YET');
    expectError(await approve({ sha256: sha(V1) }), 409, 'NO_RECORD_YET');
    expect((await reporterView()).approvedAt).toBeNull();
  });

  it('keeps each version sealed with its SHA-256, shown to both sides; the same text again is no new version', async () => {
    expect((await record(V1)).status).toBe(200);
    expect((await record(V1)).data.report.versions).toHaveLength(1);
    for (const view of [await handlerView(), await reporterView()]) expect(view.report).toMatchObject({ text: V1, version: 1, sha256: sha(V1) });
    // The handler sees who saved it; the reporter's view names no handler.
    expect((await handlerView()).report.versions).toEqual([{ version: 1, sha256: sha(V1), text: V1, createdAt: expect.any(String), approvedAt: null, author: 'Hanne Handler', authorId: handlerId }]);
    expect((await reporterView()).report.versions).toEqual([{ version: 1, sha256: sha(V1), text: V1, createdAt: expect.any(String), approvedAt: null }]);
    const rows = await server.ctx.db.selectFrom('case_record_version').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(Buffer.from(rows[0]!.text_enc).toString('latin1')).not.toContain('Acme');
    expect(rows[0]!.sha256).toBe(sha(V1));
  });

  it('approves one version by its hash: none named → 400, another hash → 409, the right one → approved', async () => {
    expectError(await approve(), 400, 'VALIDATION', 'sha256');
    expectError(await approve({ sha256: sha('something else') }), 409, 'RECORD_CHANGED', 'sha256');
    expectError(await approve({ sha256: 'not-a-hash' }), 400, 'VALIDATION');
    const ok = await approve({ sha256: sha(V1) });
    expect(ok.status).toBe(200);
    expect(ok.data.approvedAt).toMatch(/^\d{4}-/);
    expect(ok.data.report.versions[0].approvedAt).toBe(ok.data.approvedAt);
    expectError(await approve({ sha256: sha(V1) }), 409, 'ALREADY_APPROVED');
  });

  it('both sides download the approved version with its hash and approval time; an unapproved or unknown one is refused', async () => {
    const mine = await fetch(`${server.url}${B}/record/1/approved`, { headers: { authorization: `Bearer ${phone.tokens.access_token}`, 'x-company-host': 'localhost' } });
    expect(mine.status).toBe(200);
    expect(mine.headers.get('content-disposition')).toBe(`attachment; filename="record-${phone.caseNumber}-v1.txt"`);
    expect(mine.headers.get('x-record-sha256')).toBe(sha(V1));
    const approvedAt = (await reporterView()).approvedAt;
    expect(mine.headers.get('x-record-approved-at')).toBe(approvedAt);
    const body = await mine.text();
    expect(body).toContain(sha(V1));
    expect(body).toContain(approvedAt);
    // The hash is of exactly the text between the markers.
    const text = body.split('----- BEGIN RECORD -----\n')[1]!.split('\n----- END RECORD -----')[0]!;
    expect(sha(text)).toBe(sha(V1));
    const theirs = await fetch(`${server.url}/api/handler/cases/${phone.caseNumber}/record/1/approved`, { headers: { authorization: `Bearer ${handlerToken}` } });
    expect(await theirs.text()).toBe(body);
    expect((await fetch(`${server.url}/api/handler/cases/${phone.caseNumber}/record/9/approved`, { headers: { authorization: `Bearer ${handlerToken}` } })).status).toBe(404);
    expect((await fetch(`${server.url}/api/handler/cases/${phone.caseNumber}/record/x/approved`, { headers: { authorization: `Bearer ${handlerToken}` } })).status).toBe(400);
  });

  it('an edit after approval is a new version awaiting approval on both sides; the old approval stays with the old version', async () => {
    const res = await record(V2);
    expect(res.status).toBe(200);
    for (const view of [await handlerView(), await reporterView()]) {
      expect(view.approvedAt).toBeNull();
      expect(view.report).toMatchObject({ text: V2, version: 2, sha256: sha(V2) });
      expect(view.report.versions.map((v: any) => [v.version, v.sha256, !!v.approvedAt])).toEqual([
        [1, sha(V1), true],
        [2, sha(V2), false],
      ]);
    }
    expect((await fetch(`${server.url}/api/handler/cases/${phone.caseNumber}/record/2/approved`, { headers: { authorization: `Bearer ${handlerToken}` } })).status).toBe(409);
    // Approving the old text is refused: the approval must be of what is there now.
    expectError(await approve({ sha256: sha(V1) }), 409, 'RECORD_CHANGED');
    const ok = await approve({ sha256: sha(V2) });
    expect(ok.status).toBe(200);
    expect(ok.data.report.versions.map((v: any) => !!v.approvedAt)).toEqual([true, true]);
  });
});

describe('two handlers on one record: authors, conflicts, editing after approval', () => {
  const save = (json: unknown, token = handlerToken) => call(server, 'PUT', `/api/handler/cases/${phone.caseNumber}/report`, { token, json });
  const count = async () => (await server.ctx.db.selectFrom('case_record_version').select('version').execute()).length;
  const V3 = 'Hanne: the caller named the finance team.';
  const V3B = 'Carl: the caller named the finance team and a date.';

  it('refuses a save over a version someone else saved since the writer opened it (409 RECORD_VERSION_CONFLICT with the current number), storing nothing', async () => {
    // Both opened version 2 (approved above). Hanne saves first.
    const first = await save({ text: V3, baseVersion: 2 });
    expect(first.status, JSON.stringify(first.data)).toBe(200);
    expect(first.data.report.versions.at(-1)).toMatchObject({ version: 3, author: 'Hanne Handler', authorId: handlerId, approvedAt: null });
    const before = await count();
    const late = await save({ text: V3B, baseVersion: 2 }, colleague.token);
    expectError(late, 409, 'RECORD_VERSION_CONFLICT', 'baseVersion');
    expect(late.data.error.currentVersion).toBe(3);
    expect(await count()).toBe(before);
    expect((await handlerView()).report.text).toBe(V3);
    // The same text as the latest is no conflict and no new version, whatever the base.
    expect((await save({ text: V3, baseVersion: 1 }, colleague.token)).status).toBe(200);
    expect(await count()).toBe(before);
    // On top of theirs, Carl's text is version 4, his.
    const onTop = await save({ text: V3B, baseVersion: 3 }, colleague.token);
    expect(onTop.status).toBe(200);
    expect(onTop.data.report.versions.map((v: any) => [v.version, v.author])).toEqual([[1, 'Hanne Handler'], [2, 'Hanne Handler'], [3, 'Hanne Handler'], [4, 'Carl Colleague']]);
    const reporter = await reporterView();
    for (const v of reporter.report.versions) expect(Object.keys(v).sort()).toEqual(['approvedAt', 'createdAt', 'sha256', 'text', 'version']);
    expect(JSON.stringify(reporter)).not.toMatch(/Hanne Handler|Carl Colleague|authorId/);
  });

  it('refuses a base version that is not a version number (400 VALIDATION)', async () => {
    for (const baseVersion of [-1, 1.5, '4', null]) expectError(await save({ text: 'x', baseVersion }, colleague.token), 400, 'VALIDATION');
  });

  it('after the approval an edit is a new version awaiting approval; the approved one still downloads with its hash and time', async () => {
    const ok = await approve({ sha256: sha(V3B) });
    expect(ok.status).toBe(200);
    const approvedAt = ok.data.approvedAt as string;
    const edited = await save({ text: `${V3B} Amended.`, baseVersion: 4 });
    expect(edited.status).toBe(200);
    expect(edited.data.approvedAt).toBeNull();
    expect(edited.data.report.versions.slice(-2).map((v: any) => [v.version, v.approvedAt, v.author])).toEqual([[4, approvedAt, 'Carl Colleague'], [5, null, 'Hanne Handler']]);
    const doc = await fetch(`${server.url}/api/handler/cases/${phone.caseNumber}/record/4/approved`, { headers: { authorization: `Bearer ${handlerToken}` } });
    expect(doc.status).toBe(200);
    const body = await doc.text();
    expect(body).toContain(`Approved by the reporter: ${approvedAt}`);
    expect(body).toContain(sha(V3B));
    expect(body.split('----- BEGIN RECORD -----\n')[1]!.split('\n----- END RECORD -----')[0]).toBe(V3B);
  });
});
