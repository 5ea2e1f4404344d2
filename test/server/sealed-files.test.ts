/**
 * Sealed files (issue 37, docs/decisions/sealed-cases.md "Sealed files"): a scripted
 * client seals a case's files in the browser's way (core/crypto sealFileForUpload) and
 * sends them by tus as ciphertext: two with the case (one resumed midway), one with a
 * reporter's message, one with a handler's. The entitled handler lists and downloads
 * them; core/crypto opens bytes and names identical to the originals. The server checks
 * what it can without the key (the WBF1 header, a size some plain size seals to, the
 * fileId and the name's envelope) and stores nothing it refuses; no plaintext byte or
 * name reaches the data folder; a deleted case leaves no file bytes.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, countRows, expectError, form, listFiles } from './api.ts';
import { deleteCase } from '../../server/retention/purge.ts';
import { Browser, signIn } from './identity-flow.ts';
import { sealCase, type PublicKeyLog, certifiedHandler, setKeyAnchor } from '../helpers/sealed-case.ts';
import {
  concat, deriveReporterKeys, fromBase64, keyId, openFileName, openSealedBox, openSealedFile, sealFileForUpload, sealMessage, toBase64, unwrapDataKey, FILE_CHUNK, PBKDF2_DEFAULT, type Bytes, type HandlerKeys,
} from '../../core/crypto/index.ts';

const HOST = 'sealed-files.test';
const TUS = { 'tus-resumable': '1.0.0' };
let server: TestServer;
let officer: string;
let recovery: HandlerKeys;
let hanneKeys: HandlerKeys;
let hanne: { id: string; token: string };

const log = async () => (await call(server, 'GET', '/api/public/key-log', { host: HOST })).data as PublicKeyLog;


beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, sealedCases: 'browser' });
  officer = (await addCompany(server.ctx.db, { id: 'sealedfiles', hosts: [HOST], officers: 1 })).officerIds[0]!;
  recovery = await setKeyAnchor(server, 'sealedfiles');
  ({ account: hanne, keys: hanneKeys } = await certifiedHandler(server, HOST, { companyId: 'sealedfiles', name: 'Hanne', officerIds: [officer], certifier: recovery }));
});
afterAll(async () => server?.cleanup());

/** A file's plain bytes: a marker that must never reach the server in clear, in pseudo-random filler. */
function plainFile(marker: string, size: number): Buffer {
  const out = Buffer.alloc(size);
  let x = marker.length * 7919;
  for (let i = 0; i < size; i++) out[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
  for (let at = 0; at + marker.length <= size; at += 40_000) out.write(marker, at);
  return out;
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Bytes> {
  const parts: Uint8Array[] = [];
  for await (const p of stream as unknown as AsyncIterable<Uint8Array>) parts.push(p);
  return concat(...parts);
}

const sealedSession = async () => {
  const res = await call(server, 'POST', '/api/public/upload-sessions', { host: HOST, json: { sealed: true } });
  expect(res.status, JSON.stringify(res.data)).toBe(201);
  return res.data.uploadSession as string;
};
const metadata = (pairs: Record<string, string>) => Object.entries(pairs).map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`).join(',');
const tusCreate = (session: string, length: number, meta: Record<string, string>) =>
  call(server, 'POST', '/api/public/uploads', { host: HOST, pow: false, headers: { ...TUS, 'x-upload-session': session, 'upload-length': String(length), 'upload-metadata': metadata(meta) } });
const tusPatch = (session: string, id: string, offset: number, bytes: Uint8Array) =>
  call(server, 'PATCH', `/api/public/uploads/${id}`, { host: HOST, pow: false, body: new Uint8Array(bytes), headers: { ...TUS, 'x-upload-session': session, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' } });
const tusHead = async (session: string, id: string) => Number((await call(server, 'HEAD', `/api/public/uploads/${id}`, { host: HOST, pow: false, headers: { ...TUS, 'x-upload-session': session } })).headers.get('upload-offset'));

/** Seals `plain` as the page does and uploads it by tus; `resumeAt`: the first request stops there, HEAD tells where to go on. */
async function upload(session: string, dataKey: Uint8Array, caseId: string, name: string, plain: Buffer, resumeAt?: number) {
  const sealed = await sealFileForUpload(dataKey, caseId, new Blob([new Uint8Array(plain)]), { name });
  const bytes = await readAll(sealed.stream);
  expect(bytes.length).toBe(sealed.size);
  const created = await tusCreate(session, sealed.size, { fileId: sealed.fileId, name: sealed.name });
  expect(created.status, JSON.stringify(created.data)).toBe(201);
  expect(created.headers.get('location')).toBe(`/api/public/uploads/${sealed.fileId}`);
  let offset = 0;
  if (resumeAt) {
    const first = await tusPatch(session, sealed.fileId, 0, bytes.subarray(0, resumeAt));
    expect(first.status).toBe(204);
    offset = await tusHead(session, sealed.fileId);
    expect(offset).toBe(resumeAt);
  }
  const rest = await tusPatch(session, sealed.fileId, offset, bytes.subarray(offset));
  expect(rest.status, JSON.stringify(rest.data)).toBe(204);
  expect(await tusHead(session, sealed.fileId)).toBe(sealed.size);
  return { id: sealed.fileId, name, plain, sealed: Buffer.from(bytes) };
}

const FILES = {
  report: { name: 'Kassenbuch März MARKER-fname-a1.xlsx', plain: plainFile('MARKER-bytes-a1', 3 * FILE_CHUNK + 5_000) },
  photo: { name: 'Lager MARKER-fname-b2.jpg', plain: plainFile('MARKER-bytes-b2', 9_000) },
  reporterMsg: { name: 'Nachtrag MARKER-fname-c3.pdf', plain: plainFile('MARKER-bytes-c3', FILE_CHUNK + 1) },
  handlerMsg: { name: 'Fragen MARKER-fname-d4.docx', plain: plainFile('MARKER-bytes-d4', 20_000) },
};
const markers = () => Object.values(FILES).flatMap((f) => [f.name, f.plain.subarray(0, 15).toString('latin1')]);

describe('files of a sealed case', () => {
  let caseId: string;
  let caseNumber: string;
  let dataKey: Bytes;
  const uploaded: Record<string, { id: string; name: string; plain: Buffer; sealed: Buffer }> = {};

  it('go by tus as ciphertext with the case, a reporter\'s and a handler\'s message; the handler lists, downloads and opens them as sent', async () => {
    const r = await call(server, 'POST', '/api/public/case/reservation', { host: HOST });
    const keys = await deriveReporterKeys({ caseNumber: r.data.caseNumber, password: 'a long sealed password', salt: Buffer.from(r.data.salt, 'base64url'), kdf: PBKDF2_DEFAULT });
    const account = { reporterKey: keys.reporterKey, caseAccount: { follow: true, reservation: r.data.reservation, verifier: Buffer.from(keys.verifier).toString('base64url'), kdf: PBKDF2_DEFAULT } };
    const sealed = await sealCase(await log(), { officerId: officer, details: { description: 'files', whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: '' }, account });
    ({ caseId, dataKey } = sealed);
    caseNumber = r.data.caseNumber;

    const session = await sealedSession();
    uploaded.report = await upload(session, dataKey, caseId, FILES.report.name, FILES.report.plain, 70_001);
    uploaded.photo = await upload(session, dataKey, caseId, FILES.photo.name, FILES.photo.plain);
    const res = await call(server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: { ...sealed.body, uploads: [uploaded.report.id, uploaded.photo.id] }, headers: { 'x-upload-session': session } });
    expect(res.status, JSON.stringify(res.data)).toBe(201);
    expect((await server.ctx.db.selectFrom('file_upload').select('id').execute()).length).toBe(0);

    // The reporter: a bound sealed session and a sealed message naming its upload.
    const tokens = await signIn(new Browser(server, HOST), caseNumber, 'a long sealed password');
    const mine = await call(server, 'GET', '/api/private/case/my-case/sealed', { host: HOST, token: tokens.access_token });
    const reporterDk = await unwrapDataKey(account.reporterKey, fromBase64(mine.data.wrap.wrap), { caseId, epoch: 1 });
    const own = await call(server, 'POST', '/api/private/case/upload-sessions', { host: HOST, token: tokens.access_token });
    expect(own.status, JSON.stringify(own.data)).toBe(201);
    uploaded.reporterMsg = await upload(own.data.uploadSession, reporterDk, caseId, FILES.reporterMsg.name, FILES.reporterMsg.plain);
    const fromReporter = await sealMessage(reporterDk, caseId, 'see the file');
    const sent = await call(server, 'POST', '/api/private/case/messages/sealed', { host: HOST, token: tokens.access_token, json: { ...fromReporter, uploads: [uploaded.reporterMsg.id] }, headers: { 'x-upload-session': own.data.uploadSession } });
    expect(sent.status, JSON.stringify(sent.data)).toBe(201);
    expect(sent.data.message.files).toEqual([{ id: uploaded.reporterMsg.id, size: uploaded.reporterMsg.sealed.length }]);

    // The handler opens the case key with her own wrap, and sends a file the same way.
    const view0 = await call(server, 'GET', `/api/handler/cases/${caseNumber}/sealed`, { token: hanne.token });
    const hanneId = await keyId(hanneKeys.ecdhSpki);
    const hanneDk = await openSealedBox(hanneKeys.ecdh, fromBase64(view0.data.wrap.wrap), { caseId, epoch: 1, recipientKeyId: hanneId });
    const hs = await call(server, 'POST', `/api/handler/cases/${caseNumber}/upload-sessions`, { token: hanne.token });
    expect(hs.status, JSON.stringify(hs.data)).toBe(201);
    uploaded.handlerMsg = await upload(hs.data.uploadSession, hanneDk, caseId, FILES.handlerMsg.name, FILES.handlerMsg.plain);
    const fromHanne = await sealMessage(hanneDk, caseId, 'and here are questions');
    const hsent = await call(server, 'POST', `/api/handler/cases/${caseNumber}/messages/sealed`, { token: hanne.token, json: { ...fromHanne, uploads: [uploaded.handlerMsg.id] }, headers: { 'x-upload-session': hs.data.uploadSession } });
    expect(hsent.status, JSON.stringify(hsent.data)).toBe(201);

    const view = await call(server, 'GET', `/api/handler/cases/${caseNumber}/sealed`, { token: hanne.token });
    const files = view.data.files as { id: string; messageId: string | null; name: string; size: number }[];
    expect(files.map((f) => [f.id, f.messageId])).toEqual([
      [uploaded.report.id, null],
      [uploaded.photo.id, null],
      [uploaded.reporterMsg.id, fromReporter.id],
      [uploaded.handlerMsg.id, fromHanne.id],
    ]);
    const stored = await server.ctx.db.selectFrom('case_file').select(['id', 'mime_type']).where('case_id', '=', caseId).execute();
    expect(new Set(stored.map((f) => f.mime_type))).toEqual(new Set(['application/octet-stream']));
    for (const f of files) {
      const sent = Object.values(uploaded).find((u) => u.id === f.id)!;
      expect(f.size).toBe(sent.sealed.length);
      const res = await fetch(`${server.url}/api/handler/cases/${caseNumber}/files/${f.id}`, { headers: { authorization: `Bearer ${hanne.token}`, 'accept-encoding': 'gzip, br' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-length')).toBe(String(f.size));
      expect(res.headers.get('content-encoding')).toBeNull();
      expect(res.headers.get('content-disposition')).not.toContain('MARKER');
      const name = await openFileName(hanneDk, caseId, f.id, f.name);
      expect(name).toEqual({ name: sent.name, size: sent.plain.length });
      const opened = await readAll(openSealedFile(hanneDk, { id: f.id, ...name }, res.body!));
      expect(Buffer.from(opened).equals(sent.plain)).toBe(true);
    }
    // The reporter downloads the handler's file through the private route and opens it too.
    const theirs = await fetch(`${server.url}/api/private/case/files/${uploaded.handlerMsg.id}`, { headers: { authorization: `Bearer ${tokens.access_token}`, 'x-company-host': HOST } });
    expect(theirs.status).toBe(200);
    const opened = await readAll(openSealedFile(reporterDk, { id: uploaded.handlerMsg.id, size: FILES.handlerMsg.plain.length }, theirs.body!));
    expect(Buffer.from(opened).equals(FILES.handlerMsg.plain)).toBe(true);
  });

  it('refuses a file whose header, size, id or name is wrong, and a session of the other kind, storing nothing', async () => {
    const session = await sealedSession();
    const before = { rows: await countRows(server), uploads: (await server.ctx.db.selectFrom('file_upload').select('id').execute()).length, objects: (await server.ctx.files.listUploads()).length };
    const good = await sealFileForUpload(dataKey, caseId, new Blob([new Uint8Array(FILES.photo.plain)]), { name: 'x.jpg' });
    const bytes = await readAll(good.stream);
    expectError(await tusCreate(session, good.size + 1, { fileId: good.fileId, name: good.name }), 400, 'BAD_SEALED_SIZE', 'Upload-Length');
    expectError(await tusCreate(session, 10, { fileId: good.fileId, name: good.name }), 400, 'BAD_SEALED_SIZE', 'Upload-Length');
    expectError(await tusCreate(session, good.size, { name: good.name }), 400, 'FILE_ID_REQUIRED', 'fileId');
    expectError(await tusCreate(session, good.size, { fileId: good.fileId, name: toBase64(Uint8Array.of(1, 2, 3)) }), 400, 'BAD_ENVELOPE', 'name');
    expectError(await tusCreate(session, good.size, { fileId: uploaded.report!.id, name: good.name }), 409, 'FILE_ID_TAKEN', 'fileId');
    // The right size, but not this format: refused at its first bytes, the upload removed.
    expect((await tusCreate(session, good.size, { fileId: good.fileId, name: good.name })).status).toBe(201);
    const wrong = Uint8Array.from(bytes);
    wrong.set(new TextEncoder().encode('%PDF'), 0);
    expectError(await tusPatch(session, good.fileId, 0, wrong), 400, 'BAD_SEALED_FILE');
    expect(await server.ctx.db.selectFrom('file_upload').select('id').where('id', '=', good.fileId).executeTakeFirst()).toBeUndefined();
    // A session of the other kind on either creation route.
    const plainSession = (await call(server, 'POST', '/api/public/upload-sessions', { host: HOST })).data.uploadSession as string;
    const again = await sealCase(await log(), { officerId: officer, details: { description: 'x' } });
    expectError(await call(server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: again.body, headers: { 'x-upload-session': plainSession } }), 409, 'UPLOAD_SESSION_NOT_SEALED');
    expectError(await call(server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: { ...again.body, uploads: [good.fileId] } }), 400, 'UPLOAD_SESSION_REQUIRED', 'uploads');
    // Files in a multipart body are not the sealed wire: refused with its own code.
    expectError(await call(server, 'POST', '/api/public/case/new/sealed', { host: HOST, body: form('sealedCaseDto', again.body, [{ name: 'x.txt', bytes: 'plain' }]) }), 409, 'SEALED_MULTIPART_UNAVAILABLE');
    const signedIn = await signIn(new Browser(server, HOST), caseNumber, 'a long sealed password');
    expectError(await call(server, 'POST', '/api/private/case/messages/sealed', { host: HOST, token: signedIn.access_token, body: form('sealedMessageDto', { id: crypto.randomUUID(), body: 'x' }, [{ name: 'x.txt', bytes: 'plain' }]) }), 409, 'SEALED_MULTIPART_UNAVAILABLE');
    expectError(await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, body: form('caseDto', caseDto(officer, { caseAccount: { follow: false } })), headers: { 'x-upload-session': session } }), 409, 'UPLOAD_SESSION_SEALED');
    expect({ rows: await countRows(server), uploads: (await server.ctx.db.selectFrom('file_upload').select('id').execute()).length, objects: (await server.ctx.files.listUploads()).length }).toEqual(before);
  });

  it('leave no plaintext byte or name in any file of the data folder', () => {
    const found: string[] = [];
    for (const f of listFiles(server.dataDir)) {
      const bytes = readFileSync(f);
      for (const m of markers()) if (bytes.includes(Buffer.from(m, 'latin1')) || bytes.includes(Buffer.from(m))) found.push(`${m} in ${f}`);
    }
    expect(found).toEqual([]);
  });

  it('of a case sealed on arrival (multipart, the plain path) are listed and downloaded the same way and open with core/crypto', async () => {
    const text = Buffer.from('A plain file the server sealed on arrival.\n');
    const sent = await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, body: form('caseDto', caseDto(officer, { caseAccount: { follow: false } }), [{ name: 'arrival.txt', bytes: text, type: 'text/plain' }]) });
    expect(sent.status, JSON.stringify(sent.data)).toBe(201);
    const number = sent.data.caseDto.caseNumber as string;
    const view = await call(server, 'GET', `/api/handler/cases/${number}/sealed`, { token: hanne.token });
    expect(view.status, JSON.stringify(view.data)).toBe(200);
    const dk = await openSealedBox(hanneKeys.ecdh, fromBase64(view.data.wrap.wrap), { caseId: view.data.caseId, epoch: 1, recipientKeyId: await keyId(hanneKeys.ecdhSpki) });
    const [file] = view.data.files as { id: string; name: string; size: number }[];
    const name = await openFileName(dk, view.data.caseId, file!.id, file!.name);
    expect(name).toEqual({ name: 'arrival.txt', size: null });
    const res = await fetch(`${server.url}/api/handler/cases/${number}/files/${file!.id}`, { headers: { authorization: `Bearer ${hanne.token}` } });
    expect(res.headers.get('content-length')).toBe(String(file!.size));
    expect(Buffer.from(await readAll(openSealedFile(dk, { id: file!.id, ...name }, res.body!))).equals(text)).toBe(true);
  });

  it('go with the case: after its deletion no row or byte of them remains', async () => {
    const keys = (await server.ctx.db.selectFrom('case_file').select('storage_key').where('case_id', '=', caseId).execute()).map((r) => r.storage_key);
    expect(keys).toHaveLength(4);
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
    for (const key of keys) expect(await gone(key)).toBe(true);
    // Nor the ciphertext in the file store's folder.
    const samples = Object.values(uploaded).map((u) => u.sealed.subarray(4, 64));
    const left = listFiles(server.ctx.config.filesDir!).filter((f) => samples.some((s) => readFileSync(f).includes(s)));
    expect(left).toEqual([]);
  });
});
