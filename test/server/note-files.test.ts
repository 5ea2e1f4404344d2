/**
 * Files of internal notes (issue 38 Build 1; docs/decisions/internal-notes.md "Files";
 * server/cases/notes.ts addNoteFiles) over the real server and database. A sealed case:
 * the handler seals the file as the browser does (core/crypto sealFileForUpload) into a
 * sealed upload session of the case, and the note takes the upload; a server-keyed case:
 * the file comes as multipart and the server seals it. Both: the note lists its files for
 * the case's handlers, the download is identical and audited with the file, another
 * officer's handler is refused, every reporter route neither lists, counts nor serves
 * them, and the case's deletion leaves nothing of them in the file store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, expectError, form } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { deleteCase } from '../../server/retention/purge.ts';
import { Browser, signIn } from './identity-flow.ts';
import { certifiedHandler, followedAccount, sealCase, setKeyAnchor, type PublicKeyLog } from '../helpers/sealed-case.ts';
import { concat, fromBase64, keyId, openFileName, openSealedBox, openSealedFile, sealFileForUpload, sealNote, type Bytes, type HandlerKeys } from '../../core/crypto/index.ts';

const SEALED_HOST = 'notefiles-sealed.test';
const PLAIN_HOST = 'notefiles-plain.test';
const PASSWORD = 'a long sealed note files password';
const TUS = { 'tus-resumable': '1.0.0' };
let server: TestServer;
let sealedOfficers: string[];
let plainOfficers: string[];
let hanneKeys: HandlerKeys;
let hanne: { id: string; token: string };
let otto: { id: string; token: string };
let pia: { id: string; token: string };
let oskar: { id: string; token: string };

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, sealedCases: 'browser' });
  sealedOfficers = (await addCompany(server.ctx.db, { id: 'nfsealed', hosts: [SEALED_HOST], officers: 2 })).officerIds;
  const recovery = await setKeyAnchor(server, 'nfsealed');
  ({ account: hanne, keys: hanneKeys } = await certifiedHandler(server, SEALED_HOST, { companyId: 'nfsealed', name: 'Hanne', officerIds: [sealedOfficers[0]!], certifier: recovery }));
  otto = await createHandlerAccount(server.ctx.db, 'nfsealed', 'Otto', { officers: [sealedOfficers[1]!] });
  plainOfficers = (await addCompany(server.ctx.db, { id: 'nfplain', hosts: [PLAIN_HOST], officers: 2 })).officerIds;
  pia = await createHandlerAccount(server.ctx.db, 'nfplain', 'Pia', { officers: [plainOfficers[0]!] });
  oskar = await createHandlerAccount(server.ctx.db, 'nfplain', 'Oskar', { officers: [plainOfficers[1]!] });
});
afterAll(async () => server?.cleanup());

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Bytes> {
  const parts: Uint8Array[] = [];
  for await (const p of stream as unknown as AsyncIterable<Uint8Array>) parts.push(p);
  return concat(...parts);
}
const metadata = (pairs: Record<string, string>) => Object.entries(pairs).map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`).join(',');

/** Sealed as the handler's page seals it, uploaded by tus in `session`. */
async function sealedUpload(session: string, dataKey: Uint8Array, caseId: string, name: string, plain: Uint8Array) {
  const sealed = await sealFileForUpload(dataKey, caseId, new Blob([plain as BlobPart]), { name });
  const bytes = await readAll(sealed.stream);
  const created = await call(server, 'POST', '/api/public/uploads', { host: SEALED_HOST, pow: false, headers: { ...TUS, 'x-upload-session': session, 'upload-length': String(sealed.size), 'upload-metadata': metadata({ fileId: sealed.fileId, name: sealed.name }) } });
  expect(created.status, JSON.stringify(created.data)).toBe(201);
  const put = await call(server, 'PATCH', `/api/public/uploads/${sealed.fileId}`, { host: SEALED_HOST, pow: false, body: new Uint8Array(bytes), headers: { ...TUS, 'x-upload-session': session, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' } });
  expect(put.status, JSON.stringify(put.data)).toBe(204);
  return { id: sealed.fileId, sealed: Buffer.from(bytes) };
}

const download = (token: string, n: string, fileId: string) => fetch(`${server.url}/api/handler/cases/${n}/files/${fileId}`, { headers: { authorization: `Bearer ${token}` } });

/** Every reporter read (and the reporter's file route for each id): none lists, counts or serves a note's file. */
async function reporterSeesNone(host: string, n: string, password: string, ids: string[], plainName: string | null) {
  const tokens = await signIn(new Browser(server, host), n, password);
  const reads = ['/my-case', '/my-case/sealed', '/messages', '/my-case/reporter-wrap', '/token/verify'];
  let answered = 0;
  for (const p of reads) {
    const r = await call(server, 'GET', `/api/private/case${p}`, { host, token: tokens.access_token });
    if (r.status !== 200) continue;
    answered++;
    const text = JSON.stringify(r.data);
    for (const id of ids) expect(text, p).not.toContain(id);
    if (plainName) expect(text, p).not.toContain(plainName);
    // No count of files that would include them: the report's files are none.
    if (r.data && typeof r.data === 'object' && Array.isArray((r.data as { files?: unknown[] }).files)) expect((r.data as { files: unknown[] }).files, p).toEqual([]);
  }
  expect(answered).toBeGreaterThanOrEqual(2);
  for (const id of ids) expectError(await call(server, 'GET', `/api/private/case/files/${id}`, { host, token: tokens.access_token }), 404, 'FILE_NOT_FOUND');
}

async function expectGoneWithCase(caseId: string, count: number) {
  const keys = (await server.ctx.db.selectFrom('case_file').select('storage_key').where('case_id', '=', caseId).where('note_id', 'is not', null).execute()).map((r) => r.storage_key);
  expect(keys).toHaveLength(count);
  const gone = async (key: string) => {
    try {
      for await (const _ of server.ctx.files.get(key)) void _;
      return false;
    } catch {
      return true;
    }
  };
  expect(await gone(keys[0]!)).toBe(false);
  expect(await deleteCase(server.ctx, caseId, 'CLOSED', new Date())).toBe(true);
  expect(await server.ctx.db.selectFrom('case_file').select('id').where('case_id', '=', caseId).execute()).toEqual([]);
  for (const key of keys) expect(await gone(key), key).toBe(true);
}

describe('files of internal notes on a sealed case', () => {
  it('are sealed in the browser, listed and served to the case\'s handlers only, audited, never on a reporter route, and go with the case', async () => {
    const account = await followedAccount(server, SEALED_HOST, PASSWORD);
    const log = (await call(server, 'GET', '/api/public/key-log', { host: SEALED_HOST })).data as PublicKeyLog;
    const sealed = await sealCase(log, { officerId: sealedOfficers[0]!, details: { whistleblowerRelation: 'Employee' }, account });
    expect((await call(server, 'POST', '/api/public/case/new/sealed', { host: SEALED_HOST, json: sealed.body })).status).toBe(201);
    const n = account.caseNumber;
    const read = await call(server, 'GET', `/api/handler/cases/${n}/sealed`, { token: hanne.token });
    const epoch = read.data.epoch as number;
    const dataKey = await openSealedBox(hanneKeys.ecdh, fromBase64(read.data.wrap.wrap), { caseId: sealed.caseId, epoch, recipientKeyId: await keyId(hanneKeys.ecdhSpki) });
    const noteId = crypto.randomUUID();
    expect((await call(server, 'POST', `/api/handler/cases/${n}/notes`, { token: hanne.token, json: { id: noteId, body: await sealNote(dataKey, sealed.caseId, noteId, 1, 'see the file'), epoch } })).status).toBe(201);

    const plain = new TextEncoder().encode('Interview transcript MARKER-notefile-bytes-9c1\n'.repeat(300));
    const session = (await call(server, 'POST', `/api/handler/cases/${n}/upload-sessions`, { token: hanne.token })).data.uploadSession as string;
    const up = await sealedUpload(session, dataKey, sealed.caseId, 'Interview MARKER-notefile-name.txt', plain);

    // Refusals first, nothing stored: a multipart body, no session, an unknown note, a stale epoch, another officer.
    const filesBefore = Number((await server.ctx.db.selectFrom('case_file').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    expectError(await call(server, 'POST', `/api/handler/cases/${n}/notes/${noteId}/files`, { token: hanne.token, body: form('noteFilesDto', {}, [{ name: 'a.txt', bytes: Buffer.from('x') }]) }), 409, 'SEALED_MULTIPART_UNAVAILABLE');
    expectError(await call(server, 'POST', `/api/handler/cases/${n}/notes/${noteId}/files`, { token: hanne.token, json: { uploads: [up.id], epoch } }), 400, 'UPLOAD_SESSION_REQUIRED', 'uploads');
    expectError(await call(server, 'POST', `/api/handler/cases/${n}/notes/${noteId}/files`, { token: hanne.token, json: { uploads: [], epoch } }), 400, 'FILES_REQUIRED', 'files');
    expectError(await call(server, 'POST', `/api/handler/cases/${n}/notes/${crypto.randomUUID()}/files`, { token: hanne.token, json: { uploads: [up.id], epoch }, headers: { 'x-upload-session': session } }), 404, 'NOTE_NOT_FOUND');
    expectError(await call(server, 'POST', `/api/handler/cases/${n}/notes/not-a-note/files`, { token: hanne.token, json: { uploads: [up.id], epoch }, headers: { 'x-upload-session': session } }), 404, 'NOTE_NOT_FOUND');
    expectError(await call(server, 'POST', `/api/handler/cases/${n}/notes/${noteId}/files`, { token: hanne.token, json: { uploads: [up.id], epoch: epoch + 1 }, headers: { 'x-upload-session': session } }), 409, 'EPOCH_STALE', 'epoch');
    expectError(await call(server, 'POST', `/api/handler/cases/${n}/notes/${noteId}/files`, { token: otto.token, json: { uploads: [up.id], epoch }, headers: { 'x-upload-session': session } }), 404, 'CASE_NOT_FOUND');
    expect(Number((await server.ctx.db.selectFrom('case_file').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)).toBe(filesBefore);

    const added = await call(server, 'POST', `/api/handler/cases/${n}/notes/${noteId}/files`, { token: hanne.token, json: { uploads: [up.id], epoch }, headers: { 'x-upload-session': session } });
    expect(added.status, JSON.stringify(added.data)).toBe(201);
    expect(added.data.note.version).toBe(1);
    expect(added.data.note.files).toEqual([{ id: up.id, name: expect.any(String), size: up.sealed.length, created: expect.any(String), epoch }]);
    // The session is spent: the same uploads cannot join the note twice.
    expectError(await call(server, 'POST', `/api/handler/cases/${n}/notes/${noteId}/files`, { token: hanne.token, json: { uploads: [up.id], epoch }, headers: { 'x-upload-session': session } }), 409, 'UPLOAD_SESSION_USED');

    // Listed with the note, its name opening in the browser; not among the case's files.
    const listed = (await call(server, 'GET', `/api/handler/cases/${n}/notes`, { token: hanne.token })).data.notes[0];
    expect(listed.files.map((f: { id: string }) => f.id)).toEqual([up.id]);
    expect(await openFileName(dataKey, sealed.caseId, up.id, listed.files[0].name)).toMatchObject({ name: 'Interview MARKER-notefile-name.txt', size: plain.length });
    const view = await call(server, 'GET', `/api/handler/cases/${n}/sealed`, { token: hanne.token });
    expect(view.data.files).toEqual([]);

    // Downloaded as stored, opening to the bytes sent; another officer's handler is refused.
    const res = await download(hanne.token, n, up.id);
    expect(res.status).toBe(200);
    const body = new Uint8Array(await res.arrayBuffer());
    expect(Buffer.from(body).equals(up.sealed)).toBe(true);
    expect(Buffer.from(await readAll(openSealedFile(dataKey, { id: up.id, size: plain.length }, new Blob([body]).stream()))).equals(Buffer.from(plain))).toBe(true);
    expect((await download(otto.token, n, up.id)).status).toBe(404);

    const audit = (await call(server, 'GET', `/api/handler/cases/${n}/sealed`, { token: hanne.token })).data.audit as { action: string; detail: Record<string, unknown> }[];
    expect(audit.filter((e) => e.action === 'NOTE_FILES_ADDED' || e.action === 'FILE_DOWNLOADED').map((e) => [e.action, e.detail])).toEqual([
      ['NOTE_FILES_ADDED', { noteId, files: 1, fileIds: up.id }],
      ['FILE_DOWNLOADED', { fileId: up.id, noteId }],
    ]);

    await reporterSeesNone(SEALED_HOST, n, PASSWORD, [up.id, noteId], null);

    // A revoked handler's key: refused as on the notes themselves.
    await server.ctx.db.insertInto('case_key_revocation').values({ case_id: sealed.caseId, recipient_key_id: await keyId(hanneKeys.ecdhSpki), handler_id: hanne.id, epoch, created_at: new Date() }).execute();
    expectError(await call(server, 'POST', `/api/handler/cases/${n}/notes/${noteId}/files`, { token: hanne.token, json: { uploads: [], epoch } }), 403, 'CASE_KEY_REVOKED');
    expect((await download(hanne.token, n, up.id)).status).toBe(403);

    await expectGoneWithCase(sealed.caseId, 1);
  });
});

describe('files of internal notes on a server-keyed case', () => {
  it('are sealed by the server under the file rules, served to the case\'s handlers only, audited, never on a reporter route, and go with the case', async () => {
    const created = await call(server, 'POST', '/api/public/case/new/by-form', { host: PLAIN_HOST, body: form('caseDto', caseDto(plainOfficers[0]!)) });
    expect(created.status).toBe(201);
    const n = created.data.caseDto.caseNumber as string;
    const caseId = (await server.ctx.db.selectFrom('report_case').select('id').where('case_number', '=', n).executeTakeFirstOrThrow()).id;
    const note = (await call(server, 'POST', `/api/handler/cases/${n}/notes`, { token: pia.token, json: { text: 'Minutes attached.' } })).data.note;
    const bytes = Buffer.from('Minutes of the meeting MARKER-notefile-plain-3e7\n'.repeat(50));
    const url = `/api/handler/cases/${n}/notes/${note.id}/files`;

    // The file rules of every case file: an allowed type whose content fits its name.
    expectError(await call(server, 'POST', url, { token: pia.token, body: form('noteFilesDto', {}, [{ name: 'run.exe', bytes }]) }), 415, 'FORBIDDEN_FILE_TYPE');
    expectError(await call(server, 'POST', url, { token: pia.token, body: form('noteFilesDto', {}, [{ name: 'photo.jpg', bytes }]) }), 415, 'FILE_CONTENT_MISMATCH');
    expectError(await call(server, 'POST', url, { token: pia.token, body: form('noteFilesDto', {}) }), 400, 'FILES_REQUIRED', 'files');
    expectError(await call(server, 'POST', url, { token: oskar.token, body: form('noteFilesDto', {}, [{ name: 'minutes.txt', bytes }]) }), 404, 'CASE_NOT_FOUND');
    expectError(await call(server, 'POST', `/api/handler/cases/${n}/notes/${crypto.randomUUID()}/files`, { token: pia.token, body: form('noteFilesDto', {}, [{ name: 'minutes.txt', bytes }]) }), 404, 'NOTE_NOT_FOUND');
    expect(await server.ctx.db.selectFrom('case_file').select('id').where('case_id', '=', caseId).execute()).toEqual([]);

    const added = await call(server, 'POST', url, { token: pia.token, body: form('noteFilesDto', {}, [{ name: 'Minutes MARKER-notefile-pname.txt', bytes, type: 'text/plain' }]) });
    expect(added.status, JSON.stringify(added.data)).toBe(201);
    const [file] = added.data.note.files;
    expect(file).toMatchObject({ name: 'Minutes MARKER-notefile-pname.txt', size: bytes.length, mimeType: 'text/plain' });
    const stored = await server.ctx.db.selectFrom('case_file').selectAll().where('id', '=', file.id).executeTakeFirstOrThrow();
    expect(stored.note_id).toBe(note.id);
    expect(Buffer.from(stored.name_enc).toString('latin1')).not.toContain('MARKER');

    // Not among the case's own files; downloaded identical by the case's handler only.
    const view = (await call(server, 'GET', `/api/handler/cases/${n}`, { token: pia.token })).data;
    expect(view.files).toEqual([]);
    const res = await download(pia.token, n, file.id);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    expect((await download(oskar.token, n, file.id)).status).toBe(404);
    const audit = (await call(server, 'GET', `/api/handler/cases/${n}`, { token: pia.token })).data.audit as { action: string; detail: Record<string, unknown> }[];
    expect(audit.filter((e) => e.action === 'NOTE_FILES_ADDED' || e.action === 'FILE_DOWNLOADED').map((e) => [e.action, e.detail])).toEqual([
      ['NOTE_FILES_ADDED', { noteId: note.id, files: 1, fileIds: file.id }],
      ['FILE_DOWNLOADED', { fileId: file.id, noteId: note.id }],
    ]);

    await reporterSeesNone(PLAIN_HOST, n, 'pass1234', [file.id, note.id], 'MARKER-notefile-pname');
    await expectGoneWithCase(caseId, 1);
  });
});
