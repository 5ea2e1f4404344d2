/**
 * The transcript of a voice message (issue 40 item 5; server/cases/transcript.ts,
 * docs/decisions/voice-messages.md "Transcript"): a record of its own per voice file,
 * with the record's rules. On a server-keyed case the server seals it; on a sealed case
 * the handler's browser seals each version with the file's id in the additional data
 * and the reporter's browser opens it, comments and approves by the hash.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { PDF, call, expectError } from './api.ts';
import { Browser, newCase, signIn } from './identity-flow.ts';
import { companyByHost } from '../../server/companies/service.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { addCompany } from './fixtures/company.ts';
import { sealCase, type PublicKeyLog, certifiedHandler, setKeyAnchor, followedAccount } from '../helpers/sealed-case.ts';
import { fromBase64, keyId, openComments, openRecordVersions, openSealedBox, recordHash, sealComment, sealRecordVersion, type HandlerKeys } from '../../core/crypto/index.ts';

const sha = (t: string) => createHash('sha256').update(t, 'utf8').digest('hex');
// The start of a WebM file (EBML header): what the server sniffs to store audio/webm.
const WEBM = Buffer.concat([Buffer.from('1a45dfa39f4286810142f7810142f2810442f381084282847765626d42878104428581021853806701', 'hex'), Buffer.alloc(512, 1)]);
const B = '/api/private/case';

let server: TestServer;
let hanne: { id: string; token: string };
let carl: { id: string; token: string };

beforeAll(async () => {
  server = await startTestServer({ sealedCases: 'browser' });
  const company = await companyByHost(server.ctx.db, 'localhost');
  hanne = await createHandlerAccount(server.ctx.db, company!.id, 'Hanne Handler');
  carl = await createHandlerAccount(server.ctx.db, company!.id, 'Carl Colleague');
});
afterAll(async () => server?.cleanup());

describe('the transcript of a voice message on a server-keyed case', () => {
  it('is versioned with authors, refuses a stale base with both versions readable, is commented and approved by hash, and raises the unread count', async () => {
    const caseNumber = await newCase(server, { files: [{ name: 'voice-message.webm', bytes: WEBM, type: 'audio/webm' }, { name: 'scan.pdf', bytes: PDF, type: 'application/pdf' }] });
    const tokens = await signIn(new Browser(server, 'localhost'), caseNumber, 'pass1234');
    const reporter = (method: string, p: string, json?: unknown) => call(server, method, `${B}${p}`, { host: 'localhost', token: tokens.access_token, json });
    const handlerView = async () => (await call(server, 'GET', `/api/handler/cases/${caseNumber}`, { token: hanne.token })).data;
    const files = (await handlerView()).files as { id: string; name: string; mimeType: string }[];
    const voice = files.find((f) => f.mimeType === 'audio/webm')!;
    const pdf = files.find((f) => f.mimeType === 'application/pdf')!;
    expect(voice.name).toBe('voice-message.webm');
    const put = (fileId: string, json: unknown, token = hanne.token) => call(server, 'PUT', `/api/handler/cases/${caseNumber}/files/${fileId}/transcript`, { token, json });

    // Nothing to approve or comment on before a transcript exists; a PDF has none; a file of no case is 404.
    expectError(await reporter('PUT', `/files/${voice.id}/transcript/approve`, { sha256: sha('x') }), 409, 'NO_TRANSCRIPT_YET');
    expectError(await reporter('POST', `/files/${voice.id}/transcript/comments`, { comment: 'Hello' }), 409, 'NO_TRANSCRIPT_YET');
    expectError(await put(pdf.id, { text: 'A scan' }), 409, 'NOT_A_VOICE_FILE');
    expectError(await put('6f1c0d5e-0000-4000-8000-000000000000', { text: 'x' }), 404, 'NOT_FOUND');
    expectError(await put(voice.id, { text: '  ' }), 400, 'VALIDATION');
    expect((await reporter('GET', '/my-case')).data.transcripts).toEqual([]);

    const V1 = 'I saw the invoices from Acme paid twice.';
    const saved = await put(voice.id, { text: V1, baseVersion: 0 });
    expect(saved.status, JSON.stringify(saved.data)).toBe(200);
    expect(saved.data.transcripts).toMatchObject([{ fileId: voice.id, approvedAt: null, versions: [{ version: 1, sha256: sha(V1), text: V1, author: 'Hanne Handler', authorId: hanne.id }], comments: [] }]);
    // The case's own record is untouched: an online report has none, and the case's approval stays empty.
    expect(saved.data.report).toBeNull();
    expect(saved.data.approvedAt).toBeNull();

    // Carl wrote on version 0 too: refused, nothing stored, told which version to read.
    const stale = await put(voice.id, { text: 'Something else', baseVersion: 0 }, carl.token);
    expectError(stale, 409, 'RECORD_VERSION_CONFLICT');
    expect(stale.data.error.currentVersion).toBe(1);
    // The same text as the latest is no change, whatever the base.
    expect((await put(voice.id, { text: V1, baseVersion: 0 }, carl.token)).data.transcripts[0].versions).toHaveLength(1);

    // The reporter reads it, without names, and comments: a comment is the reporter speaking (unread).
    const mine = (await reporter('GET', '/my-case')).data;
    expect(mine.transcripts).toMatchObject([{ fileId: voice.id, versions: [{ version: 1, sha256: sha(V1), text: V1 }] }]);
    expect(mine.transcripts[0].versions[0].author).toBeUndefined();
    const unread = async () => ((await call(server, 'GET', '/api/handler/cases', { token: carl.token })).data.cases as { caseNumber: string; unreadMessages: number }[]).find((c) => c.caseNumber === caseNumber)!.unreadMessages;
    const before = await unread();
    const commented = await reporter('POST', `/files/${voice.id}/transcript/comments`, { comment: 'It was three times, not twice.' });
    expect(commented.status).toBe(201);
    expect(await unread()).toBe(before + 1);
    expect((await handlerView()).transcripts[0].comments).toMatchObject([{ comment: 'It was three times, not twice.' }]);
    // The oral record's comments are not the transcript's.
    expect((await handlerView()).comments).toEqual([]);

    const V2 = 'I saw the invoices from Acme paid three times.';
    expect((await put(voice.id, { text: V2, baseVersion: 1 }, carl.token)).status).toBe(200);
    // A stale hash is refused; the latest is approved; approving again is refused; an approval is unread news too.
    expectError(await reporter('PUT', `/files/${voice.id}/transcript/approve`, { sha256: sha(V1) }), 409, 'RECORD_CHANGED');
    expectError(await reporter('PUT', `/files/${voice.id}/transcript/approve`, {}), 400, 'VALIDATION');
    const approved = await reporter('PUT', `/files/${voice.id}/transcript/approve`, { sha256: sha(V2) });
    expect(approved.status, JSON.stringify(approved.data)).toBe(200);
    expect(approved.data).toMatchObject({ sha256: sha(V2), version: 2 });
    expect(await unread()).toBe(before + 2);
    expectError(await reporter('PUT', `/files/${voice.id}/transcript/approve`, { sha256: sha(V2) }), 409, 'ALREADY_APPROVED');
    expectError(await reporter('POST', `/files/${voice.id}/transcript/comments`, { comment: 'More' }), 409, 'ALREADY_APPROVED');
    const h = await handlerView();
    expect(h.transcripts[0]).toMatchObject({ approvedAt: approved.data.approvedAt, versions: [{ version: 1, approvedAt: null }, { version: 2, approvedAt: approved.data.approvedAt, author: 'Carl Colleague' }] });
    // The sealed routes are for sealed cases.
    expectError(await call(server, 'POST', `/api/handler/cases/${caseNumber}/files/${voice.id}/transcript/sealed`, { token: hanne.token, json: { version: 3, text: 'AQ', sha256: sha('x') } }), 409, 'CASE_NOT_SEALED');

    // A version after the approval awaits approval again; version 2 keeps its approval.
    const V3 = 'I saw the invoices from Acme paid three times in March.';
    const third = (await put(voice.id, { text: V3, baseVersion: 2 })).data.transcripts[0];
    expect(third.approvedAt).toBeNull();
    expect(third.versions.map((v: { approvedAt: string | null }) => v.approvedAt !== null)).toEqual([false, true, false]);
  });

  it('on a phone case, the record and a transcript count their versions apart', async () => {
    const caseNumber = await newCase(server, { oral: true });
    const view = (await call(server, 'PUT', `/api/handler/cases/${caseNumber}/report`, { token: hanne.token, json: { text: 'The call.' } })).data;
    expect(view.report.version).toBe(1);
    expect(view.transcripts).toEqual([]);
  });
});

describe('the transcript of a voice message on a sealed case', () => {
  const HOST = 'sealed-transcript.test';
  let officers: string[];
  let keys: HandlerKeys;
  let handler: { id: string; token: string };

  it('is sealed in the handler browser bound to its file, opened and checked by the reporter, commented sealed, approved by hash', async () => {
    officers = (await addCompany(server.ctx.db, { id: 'sealedtr', hosts: [HOST], officers: 1 })).officerIds;
    const recovery = await setKeyAnchor(server, 'sealedtr');
    ({ account: handler, keys } = await certifiedHandler(server, HOST, { companyId: 'sealedtr', name: 'Hanne', officerIds: [officers[0]!], certifier: recovery }));
    const account = await followedAccount(server, HOST, 'a long sealed voice password');
    const log = (await call(server, 'GET', '/api/public/key-log', { host: HOST })).data as PublicKeyLog;
    const sealed = await sealCase(log, { officerId: officers[0]!, details: { whistleblowerRelation: 'Employee' }, account });
    expect((await call(server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: sealed.body })).status).toBe(201);
    // The voice file as the sealed upload path leaves it: a sealed name, a sealed type (the test's stand-in row).
    const fileId = crypto.randomUUID();
    await server.ctx.db.insertInto('case_file').values({ id: fileId, case_id: sealed.caseId, name_enc: Buffer.from([1, 2, 3]), size: 900, mime_type: 'application/octet-stream', storage_key: `test-${fileId}`, created_at: new Date(), metadata_remaining: null }).execute();
    const path = `/api/handler/cases/${account.caseNumber}`;
    const first = await call(server, 'GET', `${path}/sealed`, { token: handler.token });
    expect(first.data.transcripts).toEqual([]);
    const dataKey = await openSealedBox(keys.ecdh, fromBase64(first.data.wrap.wrap), { caseId: sealed.caseId, epoch: 1, recipientKeyId: await keyId(keys.ecdhSpki) });

    const text = 'Sealed: the till was short on Friday.';
    const v1 = await sealRecordVersion(dataKey, sealed.caseId, 1, text, fileId);
    const post = (json: unknown) => call(server, 'POST', `${path}/files/${fileId}/transcript/sealed`, { token: handler.token, json });
    expectError(await post({ ...v1, text: 'bm90IGFuIGVudmVsb3Bl' }), 400, 'BAD_ENVELOPE');
    expectError(await call(server, 'PUT', `${path}/files/${fileId}/transcript`, { token: handler.token, json: { text } }), 409, 'CASE_SEALED');
    const stored = await post(v1);
    expect(stored.status, JSON.stringify(stored.data)).toBe(201);
    expect(stored.data).toEqual({ version: 1, changed: true });
    expect((await post(v1)).data).toEqual({ version: 1, changed: false });
    expectError(await post(await sealRecordVersion(dataKey, sealed.caseId, 1, 'Another', fileId)), 409, 'RECORD_VERSION_CONFLICT');
    // Nothing of the text in clear in the row.
    const row = await server.ctx.db.selectFrom('case_record_version').selectAll().where('file_id', '=', fileId).executeTakeFirstOrThrow();
    expect(Buffer.from(row.text_enc).includes(Buffer.from('till'))).toBe(false);

    // The reporter's sealed read: opened with the file's id it checks; moved to the record (no file id) it does not open.
    const tokens = await signIn(new Browser(server, HOST), account.caseNumber, 'a long sealed voice password');
    const reporter = (method: string, p: string, json?: unknown) => call(server, method, `${B}${p}`, { host: HOST, token: tokens.access_token, json });
    const mine = (await reporter('GET', '/my-case/sealed')).data;
    expect(mine.transcripts).toHaveLength(1);
    expect(mine.transcripts[0].fileId).toBe(fileId);
    expect(mine.record.versions).toEqual([]);
    const opened = await openRecordVersions(dataKey, sealed.caseId, mine.transcripts[0].versions, fileId);
    expect(opened[0]).toMatchObject({ version: 1, text, verified: true });
    expect((await openRecordVersions(dataKey, sealed.caseId, mine.transcripts[0].versions))[0]!.text).toBeNull();

    const comment = await sealComment(dataKey, sealed.caseId, 'It was Thursday.', undefined, fileId);
    expectError(await reporter('POST', `/files/${fileId}/transcript/comments`, { comment: 'clear' }), 409, 'CASE_SEALED');
    expect((await reporter('POST', `/files/${fileId}/transcript/comments/sealed`, comment)).status).toBe(201);
    const hv = (await call(server, 'GET', `${path}/sealed`, { token: handler.token })).data;
    expect(hv.transcripts[0].versions[0].author).toBe('Hanne');
    expect((await openComments(dataKey, sealed.caseId, hv.transcripts[0].comments, fileId))[0]!.text).toBe('It was Thursday.');
    const ok = await reporter('PUT', `/files/${fileId}/transcript/approve`, { sha256: await recordHash(text) });
    expect(ok.status, JSON.stringify(ok.data)).toBe(200);
    expect((await call(server, 'GET', `${path}/sealed`, { token: handler.token })).data.transcripts[0].versions[0].approvedAt).toBe(ok.data.approvedAt);
  });
});
