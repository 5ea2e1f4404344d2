import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany, companyFixture } from './fixtures/company.ts';
import { call, caseDto, countRows, expectError, expectStoredFiles, form, oralDto, PDF, PNG } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';

let server: TestServer;
let acmeOfficer: string;
let otherOfficer: string;
let token: string;
let otherToken: string;
let onlineCase: string;
let phoneCase: string;
let otherCase: string;
const FILE_TEXT = 'the ledger, page 4\n';

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false });
  acmeOfficer = (await addCompany(server.ctx.db, { id: 'acme', hosts: ['acme.test'] })).officerIds[0]!;
  otherOfficer = (await addCompany(server.ctx.db, { id: 'other', hosts: ['other.test'] })).officerIds[0]!;
  token = (await createHandlerAccount(server.ctx.db, 'acme', 'Hanne Handler')).token;
  otherToken = (await createHandlerAccount(server.ctx.db, 'other', 'Olaf Other')).token;
  const a = await call(server, 'POST', '/api/public/case/new/by-form', {
    host: 'acme.test',
    body: form('caseDto', caseDto(acmeOfficer, { whistleblower: { name: 'Ann Reporter', email: 'ann@example.com' } }), [
      { name: 'ledger; årsrapport 2024.txt', bytes: FILE_TEXT },
      { name: 'C:\\fakepath\\scan.pdf', bytes: PDF },
    ]),
  });
  onlineCase = a.data.caseDto.caseNumber;
  phoneCase = (await call(server, 'POST', '/api/public/case/new/by-phone', { host: 'acme.test', json: oralDto(acmeOfficer) })).data.caseDto.caseNumber;
  otherCase = (await call(server, 'POST', '/api/public/case/new/by-meeting', { host: 'other.test', json: oralDto(otherOfficer) })).data.caseDto.caseNumber;
});
afterAll(async () => server?.cleanup());

describe('handler authentication', () => {
  it('refuses a missing, malformed or unknown token with 401', async () => {
    expectError(await call(server, 'GET', '/api/handler/cases'), 401, 'UNAUTHORIZED');
    expectError(await call(server, 'GET', '/api/handler/cases', { headers: { authorization: 'Basic abc' } }), 401, 'UNAUTHORIZED');
    expectError(await call(server, 'GET', '/api/handler/cases', { token: 'wbh_not-a-real-token' }), 401, 'UNAUTHORIZED');
    expectError(await call(server, 'GET', `/api/handler/cases/${onlineCase}`, { token: token.slice(0, -1) }), 401, 'UNAUTHORIZED');
  });

  it('stores only a hash of the token', async () => {
    const rows = await server.ctx.db.selectFrom('handler_token').innerJoin('handler_account', 'handler_account.id', 'handler_token.handler_id').select(['handler_token.token_hash', 'handler_account.name']).execute();
    expect(rows.map((r) => r.name).sort()).toEqual(['Hanne Handler', 'Olaf Other']);
    for (const r of rows) {
      expect(r.token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(r.token_hash).not.toContain(token.slice(4));
    }
    const me = await call(server, 'GET', '/api/handler/me', { token });
    expect(me.data).toMatchObject({ name: 'Hanne Handler', companyId: 'acme' });
  });
});

describe('cases of the handler\'s own company', () => {
  it('lists only its own company\'s cases, newest first', async () => {
    const res = await call(server, 'GET', '/api/handler/cases', { token });
    expect(res.status).toBe(200);
    expect(res.data.cases.map((c: any) => c.caseNumber)).toEqual([phoneCase, onlineCase]);
    expect(res.data.cases[0]).toMatchObject({ status: 'PENDING_WHISTLEBLOWER_CONTACT', submission: { type: 'PHONE' }, pendingWhistleblowerAction: false, approvedAt: null });
    const other = await call(server, 'GET', '/api/handler/cases', { token: otherToken });
    expect(other.data.cases.map((c: any) => c.caseNumber)).toEqual([otherCase]);
  });

  it('shows one case in full: report text, identity, files, history', async () => {
    const res = await call(server, 'GET', `/api/handler/cases/${onlineCase}`, { token });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({
      caseNumber: onlineCase,
      status: 'RECEIVED',
      description: 'Someone took money from the till.',
      violation: 'THEFT',
      repeatedViolations: false,
      submission: { type: 'ONLINE_FORM' },
      creationChannel: 'BY_ONLINE_FORM',
      approvedAt: null,
      pendingWhistleblowerAction: false,
      whistleblowerRelation: 'Employee',
      reportedPersons: [{ name: 'John Doe', jobTitle: 'Cashier', phoneOrEmail: 'john@example.com' }],
      reportedUnit: null,
      subsidiary: null,
      caseAccount: { follow: true },
      whistleblower: { name: 'Ann Reporter', email: 'ann@example.com', notification: false },
      protectionOfficer: { id: acmeOfficer, name: 'Officer 1', jobTitle: 'Lawyer', company: 'Law & Co', customerRelation: 'INTERNAL' },
      messages: [],
      report: null,
      comments: [],
    });
    expect(res.data.caseStatusHistory).toEqual([{ status: 'RECEIVED', dateTime: res.data.created }]);
    expect(res.data.events).toEqual(res.data.caseStatusHistory);
    expect(res.data.receivedDate).toBe(res.data.created);
    expect(res.data.files.map((f: any) => [f.name, f.size, f.mimeType])).toEqual([
      ['ledger; årsrapport 2024.txt', Buffer.byteLength(FILE_TEXT), 'text/plain'],
      ['scan.pdf', PDF.length, 'application/pdf'],
    ]);
    // Grouped with spaces works too.
    const grouped = onlineCase.replace(/(\d{4})(?=\d)/g, '$1 ');
    expect((await call(server, 'GET', `/api/handler/cases/${encodeURIComponent(grouped)}`, { token })).data.caseNumber).toBe(onlineCase);
  });

  it('downloads a file decrypted, as an attachment with a safe name', async () => {
    const view = (await call(server, 'GET', `/api/handler/cases/${onlineCase}`, { token })).data;
    const res = await fetch(`${server.url}/api/handler/cases/${onlineCase}/files/${view.files[0].id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const cd = res.headers.get('content-disposition')!;
    expect(cd).toMatch(/^attachment; filename="ledger_ _rsrapport 2024\.txt"; filename\*=UTF-8''/);
    expect(decodeURIComponent(cd.split("UTF-8''")[1]!)).toBe('ledger; årsrapport 2024.txt');
    expect(await res.text()).toBe(FILE_TEXT);
    const pdf = await fetch(`${server.url}/api/handler/cases/${onlineCase}/files/${view.files[1].id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(Buffer.from(await pdf.arrayBuffer()).equals(PDF)).toBe(true);
    expectError(await call(server, 'GET', `/api/handler/cases/${onlineCase}/files/7d4c7b1e-6f0c-4a53-9d8e-2f4c2b1a0e9f`, { token }), 404, 'FILE_NOT_FOUND');
    expect((await call(server, 'GET', `/api/handler/cases/${onlineCase}/files/../../etc`, { token })).status).toBe(404);
    expectError(await call(server, 'GET', `/api/handler/cases/${onlineCase}/files/nope`, { token }), 404, 'FILE_NOT_FOUND');
  });

  it('answers 404 for a case number that does not exist or is malformed', async () => {
    expectError(await call(server, 'GET', '/api/handler/cases/1234567812345678', { token }), 404, 'CASE_NOT_FOUND');
    expectError(await call(server, 'GET', '/api/handler/cases/abc', { token }), 404, 'CASE_NOT_FOUND');
    expectError(await call(server, 'GET', '/api/handler/cases/100%25', { token }), 404, 'CASE_NOT_FOUND');
    expectError(await call(server, 'GET', '/api/handler/cases/%00', { token }), 404, 'CASE_NOT_FOUND');
    expectError(await call(server, 'GET', `/api/handler/cases/${onlineCase}/files/%00`, { token }), 404, 'FILE_NOT_FOUND');
  });
});

describe('cross-company isolation', () => {
  it('another company\'s case is 404 for every handler call, and nothing changes', async () => {
    const view = (await call(server, 'GET', `/api/handler/cases/${onlineCase}`, { token })).data;
    const before = await countRows(server);
    expectError(await call(server, 'GET', `/api/handler/cases/${onlineCase}`, { token: otherToken }), 404, 'CASE_NOT_FOUND');
    expectError(await call(server, 'GET', `/api/handler/cases/${onlineCase}/files/${view.files[0].id}`, { token: otherToken }), 404, 'CASE_NOT_FOUND');
    expectError(await call(server, 'PUT', `/api/handler/cases/${onlineCase}/status`, { token: otherToken, json: { status: 'CLOSED' } }), 404, 'CASE_NOT_FOUND');
    expectError(await call(server, 'PUT', `/api/handler/cases/${phoneCase}/report`, { token: otherToken, json: { text: 'x' } }), 404, 'CASE_NOT_FOUND');
    expectError(
      await call(server, 'POST', `/api/handler/cases/${onlineCase}/messages`, { token: otherToken, body: form('messageDto', { message: 'hi' }, [{ name: 'a.pdf', bytes: PDF }]) }),
      404,
      'CASE_NOT_FOUND',
    );
    expectError(await call(server, 'GET', `/api/handler/cases/${otherCase}`, { token }), 404, 'CASE_NOT_FOUND');
    expect(await countRows(server)).toEqual(before);
    expectStoredFiles(server, before.files);
  });
});

describe('status changes', () => {
  it('appends to the status history', async () => {
    const res = await call(server, 'PUT', `/api/handler/cases/${onlineCase}/status`, { token, json: { status: 'BEING_INVESTIGATED' } });
    expect(res.status).toBe(200);
    expect(res.data.status).toBe('BEING_INVESTIGATED');
    expect(res.data.caseStatusHistory.map((e: any) => e.status)).toEqual(['RECEIVED', 'BEING_INVESTIGATED']);
    const again = await call(server, 'PUT', `/api/handler/cases/${onlineCase}/status`, { token, json: { status: 'BEING_CLOSED' } });
    expect(again.data.caseStatusHistory.map((e: any) => e.status)).toEqual(['RECEIVED', 'BEING_INVESTIGATED', 'BEING_CLOSED']);
    expect((await call(server, 'GET', '/api/handler/cases', { token })).data.cases.find((c: any) => c.caseNumber === onlineCase).status).toBe('BEING_CLOSED');
  });

  it('refuses an unknown status, the same status, a move back to pending, and bad bodies', async () => {
    expectError(await call(server, 'PUT', `/api/handler/cases/${onlineCase}/status`, { token, json: { status: 'DONE' } }), 400, 'VALIDATION', 'status');
    expectError(await call(server, 'PUT', `/api/handler/cases/${onlineCase}/status`, { token, json: { status: 'BEING_CLOSED' } }), 409, 'STATUS_UNCHANGED');
    expectError(await call(server, 'PUT', `/api/handler/cases/${onlineCase}/status`, { token, json: { status: 'PENDING_WHISTLEBLOWER_CONTACT' } }), 400, 'VALIDATION', 'status');
    expectError(await call(server, 'PUT', `/api/handler/cases/${onlineCase}/status`, { token, json: '{"status":' }), 400, 'BAD_JSON');
    expectError(await call(server, 'PUT', `/api/handler/cases/${onlineCase}/status`, { token }), 400, 'VALIDATION', 'status');
  });
});

describe('the record of an oral report', () => {
  it('records the text and moves a pending phone case to RECEIVED once', async () => {
    const res = await call(server, 'PUT', `/api/handler/cases/${phoneCase}/report`, { token, json: { text: 'Caller said the invoices were doubled.' } });
    expect(res.status).toBe(200);
    expect(res.data.status).toBe('RECEIVED');
    expect(res.data.report).toMatchObject({ text: 'Caller said the invoices were doubled.', updatedAt: expect.any(String), version: 1, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(res.data.caseStatusHistory.map((e: any) => e.status)).toEqual(['PENDING_WHISTLEBLOWER_CONTACT', 'RECEIVED']);
    expect(res.data.events.map((e: any) => e.status)).toEqual(['RECEIVED']);
    expect(res.data.receivedDate).toBe(res.data.caseStatusHistory[1].dateTime);
    const again = await call(server, 'PUT', `/api/handler/cases/${phoneCase}/report`, { token, json: { text: 'Corrected: tripled.' } });
    expect(again.data.report.text).toBe('Corrected: tripled.');
    expect(again.data.caseStatusHistory).toHaveLength(2);
  });

  it('refuses an online case and an empty text; after approval an edit is a new version awaiting approval', async () => {
    expectError(await call(server, 'PUT', `/api/handler/cases/${onlineCase}/report`, { token, json: { text: 'x' } }), 409, 'NOT_AN_ORAL_CASE');
    expectError(await call(server, 'PUT', `/api/handler/cases/${phoneCase}/report`, { token, json: { text: '   ' } }), 400, 'VALIDATION', 'text');
    expectError(await call(server, 'PUT', `/api/handler/cases/${phoneCase}/report`, { token, json: { text: 'x'.repeat(20_001) } }), 400, 'VALIDATION', 'text');
    await server.ctx.db.updateTable('report_case').set({ approved_at: new Date() }).where('case_number', '=', phoneCase).execute();
    const late = await call(server, 'PUT', `/api/handler/cases/${phoneCase}/report`, { token, json: { text: 'late change' } });
    expect(late.status).toBe(200);
    expect(late.data.approvedAt).toBeNull();
    expect(late.data.report.versions.map((v: any) => v.text)).toEqual(['Caller said the invoices were doubled.', 'Corrected: tripled.', 'late change']);
  });
});

describe('messages from a handler', () => {
  it('sends a FEEDBACK message with files and answerWanted, which sets pendingWhistleblowerAction', async () => {
    const before = await countRows(server);
    const res = await call(server, 'POST', `/api/handler/cases/${onlineCase}/messages`, {
      token,
      body: form('messageDto', { message: 'Please send the receipts.', type: 'FEEDBACK', answerWanted: true }, [{ name: 'form.png', bytes: PNG }]),
    });
    expect(res.status).toBe(201);
    expect(res.data.message).toMatchObject({ message: 'Please send the receipts.', type: 'FEEDBACK', answerWanted: true, files: [{ name: 'form.png', size: PNG.length, mimeType: 'image/png' }] });
    const view = (await call(server, 'GET', `/api/handler/cases/${onlineCase}`, { token })).data;
    expect(view.pendingWhistleblowerAction).toBe(true);
    expect(view.messages).toHaveLength(1);
    expect(view.messages[0]).toMatchObject({ message: 'Please send the receipts.', type: 'FEEDBACK', createdByUserId: expect.any(String) });
    expect(view.messages[0].createdByUserId).not.toBe(onlineCase);
    expect(view.messages[0].files[0].name).toBe('form.png');
    expect(view.files.map((f: any) => f.name)).toContain('form.png');
    const after = await countRows(server);
    expect(after.messages - before.messages).toBe(1);
    expect(after.files - before.files).toBe(1);
    expectStoredFiles(server, after.files);
  });

  it('sends STANDARD by default and CONFIRMATION; answerWanted false leaves the flag alone', async () => {
    const a = await call(server, 'POST', `/api/handler/cases/${phoneCase}/messages`, { token, body: form('messageDto', { message: 'Thanks for calling.' }) });
    expect(a.data.message).toMatchObject({ type: 'STANDARD', answerWanted: false, files: [] });
    const b = await call(server, 'POST', `/api/handler/cases/${phoneCase}/messages`, { token, body: form('messageDto', { message: 'We confirm receipt.', type: 'CONFIRMATION' }) });
    expect(b.data.message.type).toBe('CONFIRMATION');
    const view = (await call(server, 'GET', `/api/handler/cases/${phoneCase}`, { token })).data;
    expect(view.pendingWhistleblowerAction).toBe(false);
    expect(view.messages.map((m: any) => m.type)).toEqual(['STANDARD', 'CONFIRMATION']);
  });

  it('refuses bad messages and leaves nothing behind', async () => {
    const before = await countRows(server);
    const post = (body: FormData) => call(server, 'POST', `/api/handler/cases/${onlineCase}/messages`, { token, body });
    expectError(await post(form('messageDto', { message: '' })), 400, 'EMPTY_MESSAGE');
    expectError(await post(form('messageDto', { message: 'x', type: 'SHOUT' }, [{ name: 'a.pdf', bytes: PDF }])), 400, 'VALIDATION', 'type');
    expectError(await post(form('messageDto', { message: 'x', answerWanted: 'yes' })), 400, 'VALIDATION', 'answerWanted');
    expectError(await post(form('messageDto', '{bad', [{ name: 'a.pdf', bytes: PDF }])), 400, 'BAD_JSON', 'messageDto');
    expectError(await post(form('messageDto', undefined, [{ name: 'a.pdf', bytes: PDF }])), 400, 'MISSING_PART', 'messageDto');
    expectError(await post(form('messageDto', { message: 'x' }, Array.from({ length: 6 }, (_, i) => ({ name: `${i}.pdf`, bytes: PDF })))), 400, 'TOO_MANY_FILES');
    expectError(await post(form('messageDto', { message: 'x' }, [{ name: 'a.pdf', bytes: PNG }])), 415, 'FILE_CONTENT_MISMATCH', 'files.0');
    expectError(await post(form('messageDto', { message: 'x' }, [{ name: 'a.svg', bytes: '<svg/>' }])), 415, 'FORBIDDEN_FILE_TYPE', 'files.0');
    expectError(await call(server, 'POST', `/api/handler/cases/${onlineCase}/messages`, { token, json: { message: 'x' } }), 415, 'NOT_MULTIPART');
    expect(await countRows(server)).toEqual(before);
    expectStoredFiles(server, before.files);
  });
});

describe('the admin API (loopback and admin token)', () => {
  const admin = () => readFileSync(path.join(server.dataDir, 'admin.token'), 'utf8').trim();

  it('keeps its token in DATA_DIR/admin.token with mode 0600', () => {
    expect(statSync(path.join(server.dataDir, 'admin.token')).mode & 0o777).toBe(0o600);
  });

  it('creates a handler account for a company named by host or id; the token works', async () => {
    const res = await call(server, 'POST', '/api/admin/handlers', { token: admin(), json: { company: 'ACME.test:9000', name: 'New Handler' } });
    expect(res.status).toBe(201);
    expect(res.data).toMatchObject({ companyId: 'acme', name: 'New Handler', token: expect.stringMatching(/^wbh_[\w-]{43}$/) });
    expect((await call(server, 'GET', '/api/handler/cases', { token: res.data.token })).status).toBe(200);
    const byId = await call(server, 'POST', '/api/admin/handlers', { token: admin(), json: { company: 'other' } });
    expect(byId.data.companyId).toBe('other');
  });

  it('refuses without the admin token, for an unknown company and a bad body', async () => {
    expectError(await call(server, 'POST', '/api/admin/handlers', { json: { company: 'acme' } }), 401, 'UNAUTHORIZED');
    // A handler's token is somebody, but never the operator (roles.ts).
    expectError(await call(server, 'POST', '/api/admin/handlers', { token: token, json: { company: 'acme' } }), 403, 'SESSION_REQUIRED');
    expectError(await call(server, 'POST', '/api/admin/handlers', { token: 'not-the-admin-token', json: { company: 'acme' } }), 401, 'UNAUTHORIZED');
    expectError(await call(server, 'POST', '/api/admin/handlers', { token: admin(), json: { company: 'nobody.test' } }), 404, 'UNKNOWN_COMPANY', 'company');
    expectError(await call(server, 'POST', '/api/admin/handlers', { token: admin(), json: { name: 'x' } }), 400, 'VALIDATION', 'company');
    expectError(await call(server, 'POST', '/api/admin/handlers', { token: admin(), json: { company: 'acme\u0000' } }), 400, 'VALIDATION', 'company');
    expectError(await call(server, 'POST', '/api/admin/handlers', { token: admin(), json: { company: 'acme', name: 'a\u0000' } }), 400, 'VALIDATION', 'name');
    expectError(await call(server, 'POST', '/api/admin/companies', { token: admin(), json: { file: 'nope' } }), 400, 'INVALID_COMPANY_FILE');
    expectError(await call(server, 'POST', '/api/admin/companies', { token: admin(), json: [] }), 400, 'VALIDATION');
  });

  it('imports a company file; a bad file gets an error naming the field', async () => {
    const f = companyFixture({ id: 'newco', hosts: ['newco.test'] });
    const assets = Object.fromEntries(Object.entries(f.assets).map(([p, a]) => [p, { contentType: a.contentType, base64: a.bytes.toString('base64') }]));
    const res = await call(server, 'POST', '/api/admin/companies', { token: admin(), json: { file: f.file, assets } });
    expect(res.status).toBe(201);
    expect((await call(server, 'GET', '/api/public/case/company-info', { host: 'newco.test' })).status).toBe(200);
    const again = await call(server, 'POST', '/api/admin/companies', { token: admin(), json: { file: { ...f.file, name: 'NewCo 2' }, assets } });
    expect(again.status).toBe(200);
    const bad = await call(server, 'POST', '/api/admin/companies', { token: admin(), json: { file: { ...f.file, siteColors: { ...f.file.siteColors, primaryColorCode: 'blue' } }, assets } });
    expectError(bad, 400, 'INVALID_COMPANY_FILE', 'siteColors.primaryColorCode');
    const taken = await call(server, 'POST', '/api/admin/companies', { token: admin(), json: { file: { ...f.file, id: 'thief', hosts: ['acme.test'] }, assets } });
    expectError(taken, 400, 'INVALID_COMPANY_FILE', 'hosts.0');
    const noLogo = await call(server, 'POST', '/api/admin/companies', { token: admin(), json: { file: f.file, assets: {} } });
    expectError(noLogo, 400, 'INVALID_COMPANY_FILE', 'logo.file');
  });
});
