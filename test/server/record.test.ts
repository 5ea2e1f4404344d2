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
let phone: { caseNumber: string; tokens: Tokens };
const B = '/api/private/case';
const sha = (t: string) => createHash('sha256').update(t, 'utf8').digest('hex');

beforeAll(async () => {
  server = await startTestServer();
  const caseNumber = await newCase(server, { oral: true });
  phone = { caseNumber, tokens: await signIn(new Browser(server, 'localhost'), caseNumber, 'pass1234') };
  const company = await companyByHost(server.ctx.db, 'localhost');
  handlerToken = (await createHandlerAccount(server.ctx.db, company!.id, 'Hanne Handler')).token;
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
    for (const view of [await handlerView(), await reporterView()]) {
      expect(view.report).toMatchObject({ text: V1, version: 1, sha256: sha(V1) });
      expect(view.report.versions).toEqual([{ version: 1, sha256: sha(V1), text: V1, createdAt: expect.any(String), approvedAt: null }]);
    }
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
