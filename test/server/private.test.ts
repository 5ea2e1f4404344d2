/**
 * The reporter's private API (spec §7) against the real server and the real
 * embedded provider: every call's success and failure paths, the token checks
 * (401), the company check (403, no data), and that the case is always the
 * token's own.
 */
import { generateKeyPair, SignJWT, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { call, expectError, form, PNG } from './api.ts';
import { Browser, MOUNT, newCase, signIn, type Tokens } from './identity-flow.ts';
import { companyByHost } from '../../server/companies/service.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';

let server: TestServer;
let online: { caseNumber: string; tokens: Tokens };
let phone: { caseNumber: string; tokens: Tokens };
let other: { caseNumber: string; tokens: Tokens };
let handlerToken: string;

const FILE_TEXT = 'notes from the meeting\n';

beforeAll(async () => {
  server = await startTestServer();
  const open = async (opts: Parameters<typeof newCase>[1]) => {
    const caseNumber = await newCase(server, opts);
    return { caseNumber, tokens: await signIn(new Browser(server, opts?.host ?? 'localhost'), caseNumber, opts?.password ?? 'pass1234') };
  };
  online = await open({ files: [{ name: 'evidence.txt', bytes: FILE_TEXT }] });
  phone = await open({ oral: true });
  other = await open({ files: [{ name: 'other.txt', bytes: 'not yours\n' }] });
  const company = await companyByHost(server.ctx.db, 'localhost');
  handlerToken = (await createHandlerAccount(server.ctx.db, company!.id, 'Hanne Handler')).token;
});
afterAll(async () => server?.cleanup());

const B = '/api/private/case';
const as = (t: Tokens, host = 'localhost') => ({ token: t.access_token, host });

/** Every private call with a harmless body, for the blanket checks. */
const ALL: { method: string; path: string; body?: () => { json?: unknown; body?: FormData } }[] = [
  { method: 'GET', path: `${B}/token/verify` },
  { method: 'GET', path: `${B}/my-case` },
  { method: 'GET', path: `${B}/messages` },
  { method: 'POST', path: `${B}/messages/new`, body: () => ({ body: form('messageDto', { message: 'hello' }) }) },
  { method: 'POST', path: `${B}/upload-sessions` },
  { method: 'PUT', path: `${B}/approve` },
  { method: 'POST', path: `${B}/whistleblower/update`, body: () => ({ json: { name: 'Ann Reporter', email: 'ann@example.com' } }) },
  { method: 'PUT', path: `${B}/whistleblower/update`, body: () => ({ json: { name: 'Ann Reporter', email: 'ann@example.com' } }) },
  { method: 'PUT', path: `${B}/password/request-update` },
  { method: 'POST', path: `${B}/comments`, body: () => ({ json: { comment: 'A comment' } }) },
  { method: 'GET', path: `${B}/files/7d4c7b1e-6f0c-4a53-9d8e-2f4c2b1a0e9f` },
];

async function caseRow(caseNumber: string) {
  return server.ctx.db.selectFrom('report_case').selectAll().where('case_number', '=', caseNumber).executeTakeFirstOrThrow();
}

describe('token checks', () => {
  it('answers 401 without a token, with a malformed one, a foreign issuer, a foreign key or an ID token', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const claims = decodeJwt(online.tokens.access_token);
    const forged = (iss: string) =>
      new SignJWT({ case_number: claims.case_number, company: claims.company })
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'x' })
        .setIssuer(iss)
        .setSubject(claims.sub!)
        .setAudience(claims.aud as string)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
    const foreignIssuer = await forged('https://evil.example/idp/realms/whistleblower');
    const foreignKey = await forged(claims.iss!);
    for (const c of ALL) {
      const body = c.body?.() ?? {};
      expectError(await call(server, c.method, c.path, { host: 'localhost', ...body }), 401, 'UNAUTHORIZED');
      expectError(await call(server, c.method, c.path, { host: 'localhost', token: 'not.a.jwt', ...(c.body?.() ?? {}) }), 401, 'UNAUTHORIZED');
      expectError(await call(server, c.method, c.path, { host: 'localhost', token: foreignIssuer, ...(c.body?.() ?? {}) }), 401, 'UNAUTHORIZED');
      expectError(await call(server, c.method, c.path, { host: 'localhost', token: foreignKey, ...(c.body?.() ?? {}) }), 401, 'UNAUTHORIZED');
      expectError(await call(server, c.method, c.path, { host: 'localhost', token: online.tokens.id_token, ...(c.body?.() ?? {}) }), 401, 'UNAUTHORIZED');
    }
    expectError(await call(server, 'GET', `${B}/my-case`, { host: 'localhost', headers: { authorization: `Basic ${online.tokens.access_token}` } }), 401, 'UNAUTHORIZED');
  });

  it('answers 403 and no data for every call of a localhost case sent with the group.localhost company', async () => {
    const before = await caseRow(phone.caseNumber);
    for (const c of ALL) {
      const res = await call(server, c.method, c.path, { ...as(phone.tokens, 'group.localhost'), ...(c.body?.() ?? {}) });
      expectError(res, 403, 'FORBIDDEN');
      expect(JSON.stringify(res.data)).not.toContain(phone.caseNumber);
      expect(Object.keys(res.data)).toEqual(['error']);
    }
    // Nothing changed on the case.
    const after = await caseRow(phone.caseNumber);
    expect(after.approved_at).toBeNull();
    expect(Buffer.from(after.whistleblower_enc ?? []).equals(Buffer.from(before.whistleblower_enc ?? []))).toBe(true);
    const account = await server.ctx.db.selectFrom('case_account').select('must_change_password').where('case_id', '=', after.id).executeTakeFirstOrThrow();
    expect(account.must_change_password).toBe(false);
    expect(await server.ctx.db.selectFrom('case_message').select('id').where('case_id', '=', after.id).execute()).toEqual([]);
    expect(await server.ctx.db.selectFrom('case_comment').select('id').where('case_id', '=', after.id).execute()).toEqual([]);
    // An unknown company host is refused the same way.
    expectError(await call(server, 'GET', `${B}/my-case`, as(phone.tokens, 'nobody.example')), 403, 'FORBIDDEN');
  });
});

describe('reading the case', () => {
  it('verifies the token', async () => {
    const res = await call(server, 'GET', `${B}/token/verify`, as(online.tokens));
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ valid: true, caseNumber: online.caseNumber });
    // Without X-Company-Host the request's own host (127.0.0.1, the same company) is used.
    expect((await call(server, 'GET', `${B}/token/verify`, { token: online.tokens.access_token })).status).toBe(200);
  });

  it('returns the own case in the spec §3 shape, never another', async () => {
    const res = await call(server, 'GET', `${B}/my-case`, as(online.tokens));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    for (const k of ['caseNumber', 'status', 'description', 'violation', 'repeatedViolations', 'created', 'submission', 'approvedAt', 'pendingWhistleblowerAction', 'protectionOfficer', 'whistleblowerRelation', 'reportedPersons', 'reportedUnit', 'subsidiary', 'caseAccount', 'files', 'messages', 'events', 'caseStatusHistory', 'whistleblower']) {
      expect(res.data).toHaveProperty(k);
    }
    expect(res.data.caseNumber).toBe(online.caseNumber);
    expect(res.data.submission.type).toBe('ONLINE_FORM');
    expect(res.data.files.map((f: { name: string }) => f.name)).toEqual(['evidence.txt']);
    const theirs = await call(server, 'GET', `${B}/my-case`, as(other.tokens));
    expect(theirs.data.caseNumber).toBe(other.caseNumber);
  });

  it('downloads a file of the own case as an attachment, and no other case’s file', async () => {
    const mine = (await call(server, 'GET', `${B}/my-case`, as(online.tokens))).data;
    const fileId = mine.files[0].id;
    const res = await fetch(`${server.url}${B}/files/${fileId}`, { headers: { authorization: `Bearer ${online.tokens.access_token}`, 'x-company-host': 'localhost' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="evidence.txt"/);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(await res.text()).toBe(FILE_TEXT);
    const theirs = (await call(server, 'GET', `${B}/my-case`, as(other.tokens))).data.files[0].id;
    expectError(await call(server, 'GET', `${B}/files/${theirs}`, as(online.tokens)), 404, 'FILE_NOT_FOUND');
    expectError(await call(server, 'GET', `${B}/files/not-an-id`, as(online.tokens)), 404, 'FILE_NOT_FOUND');
  });
});

describe('messages', () => {
  it('sends a message with a file; it is the reporter’s (created by the case number) and clears the pending action', async () => {
    // A handler asks for an answer.
    const ask = await call(server, 'POST', `/api/handler/cases/${online.caseNumber}/messages`, { token: handlerToken, body: form('messageDto', { message: 'Can you tell us more?', answerWanted: true }) });
    expect(ask.status).toBe(201);
    expect((await call(server, 'GET', `${B}/my-case`, as(online.tokens))).data.pendingWhistleblowerAction).toBe(true);

    const res = await call(server, 'POST', `${B}/messages/new`, { ...as(online.tokens), body: form('messageDto', { message: '  It happened twice.  ' }, [{ name: 'photo.png', bytes: PNG, type: 'image/png' }]) });
    expect(res.status).toBe(201);
    expect(res.data.message).toMatchObject({ message: 'It happened twice.', type: 'STANDARD', createdByUserId: online.caseNumber });
    expect(res.data.message.files[0]).toMatchObject({ name: 'photo.png', mimeType: 'image/png', size: PNG.length });

    const list = await call(server, 'GET', `${B}/messages`, as(online.tokens));
    expect(list.status).toBe(200);
    expect(list.data.map((m: { message: string }) => m.message)).toEqual(['Can you tell us more?', 'It happened twice.']);
    const view = (await call(server, 'GET', `${B}/my-case`, as(online.tokens))).data;
    expect(view.pendingWhistleblowerAction).toBe(false);

    // The file went in encrypted and comes back whole.
    const fileId = res.data.message.files[0].id;
    const dl = await fetch(`${server.url}${B}/files/${fileId}`, { headers: { authorization: `Bearer ${online.tokens.access_token}` } });
    expect(Buffer.from(await dl.arrayBuffer()).equals(PNG)).toBe(true);
    const row = await server.ctx.db.selectFrom('case_message').select('body_enc').where('id', '=', res.data.message.id).executeTakeFirstOrThrow();
    expect(Buffer.from(row.body_enc).toString('utf8')).not.toContain('It happened twice');
  });

  it('sends a message with only a file', async () => {
    const res = await call(server, 'POST', `${B}/messages/new`, { ...as(other.tokens), body: form('messageDto', { message: '' }, [{ name: 'a.txt', bytes: 'x\n' }]) });
    expect(res.status).toBe(201);
    expect(res.data.message.message).toBe('');
  });

  it('refuses empty, too long, malformed and oversized messages with a 4xx and stores nothing', async () => {
    const caseId = (await caseRow(other.caseNumber)).id;
    const count = async () => (await server.ctx.db.selectFrom('case_message').select('id').where('case_id', '=', caseId).execute()).length;
    const before = await count();
    const send = (body: FormData) => call(server, 'POST', `${B}/messages/new`, { ...as(other.tokens), body });
    expectError(await send(form('messageDto', { message: '   ' })), 400, 'EMPTY_MESSAGE', 'message');
    expectError(await send(form('messageDto', { message: 'x'.repeat(201) })), 400, 'VALIDATION', 'message');
    expectError(await send(form('messageDto', '{not json')), 400, 'BAD_JSON', 'messageDto');
    expectError(await send(form('messageDto', undefined, [{ name: 'a.txt', bytes: 'x' }])), 400, 'MISSING_PART', 'messageDto');
    const six = Array.from({ length: 6 }, (_, i) => ({ name: `f${i}.txt`, bytes: 'x\n' }));
    expectError(await send(form('messageDto', { message: 'six' }, six)), 400, 'TOO_MANY_FILES', 'files');
    expect((await send(form('messageDto', { message: 'bad' }, [{ name: 'run.exe', bytes: 'MZ' }]))).status).toBe(415);
    expectError(await call(server, 'POST', `${B}/messages/new`, { ...as(other.tokens), json: { message: 'hi' } }), 415, 'NOT_MULTIPART');
    expect(await count()).toBe(before);
  });
});

describe('the report: approve and comment', () => {
  it('refuses both for an online-form case (409)', async () => {
    expectError(await call(server, 'PUT', `${B}/approve`, as(online.tokens)), 409, 'NOT_MODIFIABLE');
    expectError(await call(server, 'POST', `${B}/comments`, { ...as(online.tokens), json: { comment: 'x' } }), 409, 'NOT_MODIFIABLE');
  });

  it('comments on a phone case, then approves it once; afterwards both are refused', async () => {
    expectError(await call(server, 'POST', `${B}/comments`, { ...as(phone.tokens), json: { comment: '   ' } }), 400, 'VALIDATION', 'comment');
    expectError(await call(server, 'POST', `${B}/comments`, { ...as(phone.tokens), json: {} }), 400, 'VALIDATION');
    expectError(await call(server, 'POST', `${B}/comments`, { ...as(phone.tokens), body: 'comment=x', headers: { 'content-type': 'text/plain' } }), 400, 'VALIDATION');
    const c = await call(server, 'POST', `${B}/comments`, { ...as(phone.tokens), json: { comment: 'The date in line 2 is wrong.' } });
    expect(c.status).toBe(201);
    expect(c.data.comment).toBe('The date in line 2 is wrong.');
    const view = (await call(server, 'GET', `${B}/my-case`, as(phone.tokens))).data;
    expect(view.comments.map((x: { comment: string }) => x.comment)).toEqual(['The date in line 2 is wrong.']);
    expect(view.approvedAt).toBeNull();

    // No record written yet: nothing to approve, and nothing is frozen.
    expectError(await call(server, 'PUT', `${B}/approve`, as(phone.tokens)), 409, 'NO_RECORD_YET');
    expect((await call(server, 'GET', `${B}/my-case`, as(phone.tokens))).data.approvedAt).toBeNull();
    const record = await call(server, 'PUT', `/api/handler/cases/${phone.caseNumber}/report`, { token: handlerToken, json: { text: 'Caller said the invoices were doubled.' } });
    expect(record.status).toBe(200);

    // Once the record exists the approval names its version (record versions, issue 16).
    expectError(await call(server, 'PUT', `${B}/approve`, as(phone.tokens)), 400, 'VALIDATION', 'sha256');
    const sha256 = (await call(server, 'GET', `${B}/my-case`, as(phone.tokens))).data.report.sha256;
    const a = await call(server, 'PUT', `${B}/approve`, { ...as(phone.tokens), json: { sha256 } });
    expect(a.status).toBe(200);
    expect(a.data.approvedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expectError(await call(server, 'PUT', `${B}/approve`, { ...as(phone.tokens), json: { sha256 } }), 409, 'ALREADY_APPROVED');
    expectError(await call(server, 'POST', `${B}/comments`, { ...as(phone.tokens), json: { comment: 'late' } }), 409, 'ALREADY_APPROVED');
  });
});

describe('identity and password', () => {
  it('updates identity by POST and PUT, keeps a given name, and stores it encrypted', async () => {
    const post = await call(server, 'POST', `${B}/whistleblower/update`, { ...as(other.tokens), json: { name: 'Ann Reporter', email: 'ann@example.com', phone: '+4512345678', notification: true } });
    expect(post.status).toBe(200);
    expect(post.data.whistleblower).toMatchObject({ name: 'Ann Reporter', email: 'ann@example.com', phone: '+4512345678', notification: true });
    const put = await call(server, 'PUT', `${B}/whistleblower/update`, { ...as(other.tokens), json: { name: 'Someone Else', email: '', phone: '' } });
    expect(put.status).toBe(200);
    expect(put.data.whistleblower).toMatchObject({ name: 'Ann Reporter', email: '', phone: null, notification: false });
    const view = (await call(server, 'GET', `${B}/my-case`, as(other.tokens))).data;
    expect(view.whistleblower.name).toBe('Ann Reporter');
    const row = await caseRow(other.caseNumber);
    expect(Buffer.from(row.whistleblower_enc!).toString('utf8')).not.toContain('Ann Reporter');
  });

  it('refuses bad identity input with 400 naming the field', async () => {
    const upd = (json: unknown) => call(server, 'POST', `${B}/whistleblower/update`, { ...as(other.tokens), json });
    expectError(await upd({ name: '' }), 400, 'VALIDATION', 'name');
    expectError(await upd({ name: 'A', email: 'not-an-email' }), 400, 'VALIDATION', 'email');
    expectError(await upd({ name: 'A', phone: '12' }), 400, 'VALIDATION', 'phone');
    // A Danish number is exactly +45 and 8 digits (spec §5, §9).
    expectError(await upd({ name: 'A', phone: '+451234567' }), 400, 'VALIDATION', 'phone');
    expectError(await upd({ name: 'A', phone: '+45123456789' }), 400, 'VALIDATION', 'phone');
    expectError(await upd({ name: 'A', notification: true }), 400, 'VALIDATION', 'email');
    expectError(await upd('[]'), 400, 'VALIDATION');
    expectError(await upd('{bad'), 400, 'BAD_JSON');
  });

  it('marks the account for a new password and ends its sign-in', async () => {
    const b = new Browser(server);
    const t = await signIn(b, other.caseNumber, 'pass1234');
    const res = await call(server, 'PUT', `${B}/password/request-update`, as(t));
    expect(res.status).toBe(200);
    const row = await caseRow(other.caseNumber);
    const account = await server.ctx.db.selectFrom('case_account').select('must_change_password').where('case_id', '=', row.id).executeTakeFirstOrThrow();
    expect(account.must_change_password).toBe(true);
    const r = await b.postForm(`${MOUNT}/token`, { grant_type: 'refresh_token', refresh_token: t.refresh_token, client_id: 'whistleblower-app' });
    expect(r.status).toBe(400);
  });
});
