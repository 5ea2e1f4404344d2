/**
 * The report form's own sealing effects (src/forms/seal.ts, src/forms/sealFiles.ts,
 * src/forms/submit.ts) against the real server with SEALED_CASES=browser: a followed
 * report with two files (one resumed midway through its upload) and an e-mail
 * notification address, sealed as the page seals it; the handler opens the case, the
 * files (names, types, bytes) and finds no address in the identity, the mail worker's
 * key opens the address; no marker, file byte or address reaches the data folder.
 * Phone and meeting reports go the same sealed route with their channel; what that
 * route refuses for them stores nothing.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, countRows, expectError, listFiles } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { sealCase } from '../helpers/sealed-case.ts';
import {
  concat, fieldContext, fromBase64, keyId, makeHandlerKeys, openFieldText, openFileName, openSealedBox, openSealedFile, signKeyLogEntry, toBase64,
  SealedFileSource, type Bytes, type HandlerKeys, type KeyLogEntry,
} from '../../core/crypto/index.ts';
import { solve, type PowChallenge } from '../../core/pow.ts';
import { checkKeyLog, sealReport } from '../../src/forms/seal.ts';
import { newSealedUploadMemory, uploadSealedFiles } from '../../src/forms/sealFiles.ts';
import { deriveForCase, reserveCase } from '../../src/forms/submit.ts';
import type { ApiClient } from '../../src/api/client.ts';
import type { SealReportInput, SubmissionProof, UploadProgressEvent } from '../../machines/report.ts';

const HOST = 'sealed-form.test';
const MARKER = 'MARKER-sealed-form-7Q';
const ADDRESS = 'marker.notify.7q@example.org';
let server: TestServer;
let officer: string;
let hanneKeys: HandlerKeys;
let hanne: { id: string; token: string };
let api: ApiClient;

const memoryStorage = () => {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) };
};

async function proof(): Promise<SubmissionProof> {
  const c = (await (await fetch(`${server.url}/api/public/pow/challenge`)).json()) as PowChallenge & { expiresAt: string };
  return { challenge: c.challenge, nonce: solve(c.challenge, c.difficulty)!, expiresAt: c.expiresAt };
}

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, sealedCases: 'browser' });
  api = { url: (p: string) => `${server.url}${p}`, json: async (p: string) => (await fetch(`${server.url}${p}`)).json() } as unknown as ApiClient;
  officer = (await addCompany(server.ctx.db, { id: 'sealedform', hosts: [HOST], officers: 1 })).officerIds[0]!;
  const recovery = await makeHandlerKeys();
  expect((await call(server, 'PUT', '/api/admin/companies/sealedform/key-anchor', { headers: { authorization: `Bearer ${server.ctx.adminToken}` }, json: { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) } })).status).toBe(201);
  hanne = await createHandlerAccount(server.ctx.db, 'sealedform', 'Hanne', { officers: [officer] });
  hanneKeys = await makeHandlerKeys();
  const entry = await signKeyLogEntry(recovery.ecdsa.privateKey, {
    seq: 1, handlerId: hanne.id, ecdhSpki: toBase64(hanneKeys.ecdhSpki), ecdsaSpki: toBase64(hanneKeys.ecdsaSpki), officerIds: [officer],
    addedAt: new Date().toISOString(), action: 'add', prevHash: '', certifierKeyId: await keyId(recovery.ecdsaSpki),
  });
  expect((await call(server, 'POST', '/api/handler/key-log', { token: hanne.token, json: entry })).status).toBe(201);
  await server.ctx.db.updateTable('handler_account').set({ ecdh_spki: Buffer.from(hanneKeys.ecdhSpki), ecdsa_spki: Buffer.from(hanneKeys.ecdsaSpki) }).where('id', '=', hanne.id).execute();
});
afterAll(async () => server?.cleanup());

/** Pseudo-random bytes with the marker written through them: never to be found in clear on the server. */
function plainBytes(marker: string, size: number, head = ''): Uint8Array {
  const out = Buffer.alloc(size);
  let x = marker.length * 7919;
  for (let i = 0; i < size; i++) out[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
  for (let at = head.length; at + marker.length <= size; at += 30_000) out.write(marker, at);
  out.write(head, 0);
  return new Uint8Array(out);
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Bytes> {
  const parts: Uint8Array[] = [];
  for await (const p of stream as unknown as AsyncIterable<Uint8Array>) parts.push(p);
  return concat(...parts);
}

const hanneDataKey = async (view: { caseId: string; wrap: { wrap: string } }) =>
  openSealedBox(hanneKeys.ecdh, fromBase64(view.wrap.wrap), { caseId: view.caseId, epoch: 1, recipientKeyId: await keyId(hanneKeys.ecdhSpki) });

const FILES = [
  { name: `Kassebog ${MARKER}-a.pdf`, type: 'application/pdf', bytes: plainBytes(`${MARKER}-bytes-a`, 3 * 65_536 + 777, '%PDF-1.7\n') },
  { name: `Noter ${MARKER}-b.txt`, type: 'text/plain', bytes: new TextEncoder().encode(`Lines of plain text ${MARKER}-bytes-b\n`.repeat(300)) },
];

describe('the report form seals on the sealed route', () => {
  it('a followed report with two files (one resumed) and a notification address: only ciphertext goes; the handler opens it all, the mail key the address', async () => {
    const checked = await checkKeyLog(api, HOST, officer, memoryStorage());
    expect(checked && 'recipients' in checked).toBe(true);
    const recipients = (checked as { recipients: { mailKey: { keyId: string } | null } }).recipients;
    expect(recipients.mailKey?.keyId).toBe((await server.ctx.mailKeys.publicKey()).keyId);

    const reserved = await reserveCase(api, HOST, await proof());
    if (!reserved || !('reservation' in reserved)) throw new Error(`no reservation: ${JSON.stringify(reserved)}`);
    const derived = await deriveForCase({ caseNumber: reserved.caseNumber, password: 'a long sealed form password', salt: reserved.salt });

    // The files as the draft holds them; the first was half uploaded by a send that failed.
    const files = FILES.map((f) => new File([f.bytes as BlobPart], f.name, { type: f.type }));
    const memory = newSealedUploadMemory();
    memory.caseId = crypto.randomUUID();
    memory.dataKey = (await import('../../core/crypto/index.ts')).makeDataKey();
    const session = await call(server, 'POST', '/api/public/upload-sessions', { host: HOST, json: { sealed: true } });
    memory.session = session.data.uploadSession as string;
    const first = await SealedFileSource.create(memory.dataKey, memory.caseId, files[0]!, { name: files[0]!.name, type: files[0]!.type });
    const meta = `fileId ${Buffer.from(first.fileId).toString('base64')},name ${Buffer.from(first.name).toString('base64')}`;
    const tus = { 'tus-resumable': '1.0.0', 'x-upload-session': memory.session };
    const created = await call(server, 'POST', '/api/public/uploads', { host: HOST, pow: false, headers: { ...tus, 'upload-length': String(first.size), 'upload-metadata': meta } });
    expect(created.status, JSON.stringify(created.data)).toBe(201);
    const url = `${server.url}${created.headers.get('location')}`;
    const half = await call(server, 'PATCH', created.headers.get('location')!, { host: HOST, pow: false, body: new Uint8Array(await first.slice(0, 100_003)), headers: { ...tus, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' } });
    expect(half.status).toBe(204);
    memory.files.set(files[0]!, { source: first, url, done: false });

    const progress: UploadProgressEvent[] = [];
    const uploaded = await uploadSealedFiles(api, HOST, { files, proof: null, reportProgress: (e) => progress.push(e) }, undefined, memory);
    if (!uploaded || !('sealedUploads' in uploaded)) throw new Error(`not uploaded: ${JSON.stringify(uploaded)}`);
    const uploads = uploaded.sealedUploads as { caseId: string; ids: string[] };
    expect(uploads.caseId).toBe(memory.caseId);
    expect(uploads.ids[0]).toBe(first.fileId);
    expect(progress.filter((p) => p.index === 1).at(-1)).toMatchObject({ loaded: FILES[1]!.bytes.length, total: FILES[1]!.bytes.length });

    const dto = {
      whistleblowerRelation: `Employee ${MARKER}`, subsidiary: null, protectionOfficer: { id: officer },
      whistleblower: { name: `Rosa ${MARKER}`, email: ADDRESS, phone: null, phoneCountryCode: null, notification: true },
      creationChannel: 'BY_ONLINE_FORM' as const, description: `The stock is sold privately ${MARKER}`, voiceMessage: false, violation: 'THEFT' as const,
      repeatedViolations: true, reportedPersons: [], reportedUnit: `Warehouse ${MARKER}`, uploads: [],
      caseAccount: { follow: true as const, reservation: reserved.reservation, verifier: derived.verifier, kdf: derived.kdf },
    };
    const input: SealReportInput = { submission: { channel: 'online', dto, files }, recipients, reporterKey: derived.reporterKey, proof: null, resealed: false, uploads: uploaded.sealedUploads };
    const answer = await sealReport(api, HOST, input, undefined, 'da', memory);
    expect(answer, JSON.stringify(answer)).toMatchObject({ caseDto: { caseNumber: reserved.caseNumber } });
    expect(memory.dataKey).toBeNull();

    const row = await server.ctx.db.selectFrom('report_case').select(['id', 'sealed', 'wrapped_key', 'submission_type']).where('case_number', '=', reserved.caseNumber).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ id: uploads.caseId, sealed: true, wrapped_key: null, submission_type: 'ONLINE_FORM' });

    // The handler opens the case and its files as the reporter picked them.
    const view = (await call(server, 'GET', `/api/handler/cases/${reserved.caseNumber}/sealed`, { token: hanne.token })).data;
    const dk = await hanneDataKey(view);
    const identity = JSON.parse(await openFieldText(dk, fieldContext(view.caseId, 'report_case.whistleblower_enc'), fromBase64(view.envelopes.whistleblower)));
    expect(identity).toMatchObject({ name: `Rosa ${MARKER}`, email: null, notification: true });
    expect(JSON.parse(await openFieldText(dk, fieldContext(view.caseId, 'report_case.details_enc'), fromBase64(view.envelopes.details)))).toMatchObject({ description: `The stock is sold privately ${MARKER}` });
    expect(view.files).toHaveLength(2);
    for (const [i, f] of (view.files as { id: string; name: string; size: number }[]).entries()) {
      const name = await openFileName(dk, view.caseId, f.id, f.name);
      expect(name).toEqual({ name: FILES[i]!.name, size: FILES[i]!.bytes.length, type: FILES[i]!.type });
      const res = await fetch(`${server.url}/api/handler/cases/${reserved.caseNumber}/files/${f.id}`, { headers: { authorization: `Bearer ${hanne.token}` } });
      expect(res.status).toBe(200);
      const opened = await readAll(openSealedFile(dk, { id: f.id, ...name }, res.body!));
      expect(Buffer.from(opened).equals(Buffer.from(FILES[i]!.bytes))).toBe(true);
    }

    // The address is kept apart, sealed to the mail key: the worker's key opens it, for this case only.
    const notify = await server.ctx.db.selectFrom('case_notify').select(['mail_key_id', 'box']).where('case_id', '=', row.id).executeTakeFirstOrThrow();
    expect(notify.mail_key_id).toBe(recipients.mailKey!.keyId);
    expect(await server.ctx.mailKeys.openNotify(row.id, new Uint8Array(notify.box))).toEqual({ address: ADDRESS, language: 'da' });
    await expect(server.ctx.mailKeys.openNotify(crypto.randomUUID(), new Uint8Array(notify.box))).rejects.toThrow();
  });

  it('phone and meeting reports: sealed with their channel; unfollowed or with files refused, nothing stored', async () => {
    for (const [channel, type] of [['oral', 'PHONE'], ['meeting', 'MEETING']] as const) {
      const checked = (await checkKeyLog(api, HOST, officer, memoryStorage())) as { recipients: unknown };
      const reserved = await reserveCase(api, HOST, await proof());
      if (!reserved || !('reservation' in reserved)) throw new Error('no reservation');
      const derived = await deriveForCase({ caseNumber: reserved.caseNumber, password: 'a long sealed form password', salt: reserved.salt });
      const dto = {
        whistleblowerRelation: `Supplier ${MARKER}`, subsidiary: null, protectionOfficer: { id: officer },
        whistleblower: { name: `Per ${MARKER}`, email: '', phone: '+4512345678', phoneCountryCode: 'dk', notification: false },
        creationChannel: 'BY_PHONE' as const,
        caseAccount: { follow: true as const, reservation: reserved.reservation, verifier: derived.verifier, kdf: derived.kdf },
      };
      const answer = await sealReport(api, HOST, { submission: { channel, dto, files: [] }, recipients: checked.recipients, reporterKey: derived.reporterKey, proof: null, resealed: false, uploads: null });
      expect(answer, JSON.stringify(answer)).toMatchObject({ caseDto: { caseNumber: reserved.caseNumber, status: 'PENDING_WHISTLEBLOWER_CONTACT', submission: { type } } });
      const row = await server.ctx.db.selectFrom('report_case').select(['sealed', 'wrapped_key', 'submission_type', 'creation_channel', 'status']).where('case_number', '=', reserved.caseNumber).executeTakeFirstOrThrow();
      expect(row).toEqual({ sealed: true, wrapped_key: null, submission_type: type, creation_channel: 'BY_PHONE', status: 'PENDING_WHISTLEBLOWER_CONTACT' });
      const view = (await call(server, 'GET', `/api/handler/cases/${reserved.caseNumber}/sealed`, { token: hanne.token })).data;
      const dk = await hanneDataKey(view);
      expect(JSON.parse(await openFieldText(dk, fieldContext(view.caseId, 'report_case.details_enc'), fromBase64(view.envelopes.details)))).toEqual({
        description: null, violation: null, repeatedViolations: null, whistleblowerRelation: `Supplier ${MARKER}`, reportedPersons: [], reportedUnit: null,
      });
      expect(JSON.parse(await openFieldText(dk, fieldContext(view.caseId, 'report_case.whistleblower_enc'), fromBase64(view.envelopes.whistleblower)))).toMatchObject({ phone: '+4512345678' });
    }

    const before = await countRows(server);
    const log = (await call(server, 'GET', '/api/public/key-log', { host: HOST })).data;
    const unfollowed = await sealCase(log, { officerId: officer, details: { whistleblowerRelation: 'x' } });
    expectError(await call(server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: { ...unfollowed.body, submissionType: 'PHONE' } }), 400, 'FOLLOW_REQUIRED', 'caseAccount.follow');
    const withFiles = await sealCase(log, { officerId: officer, details: { whistleblowerRelation: 'x' } });
    const account = { follow: true, reservation: 'r'.repeat(43), verifier: 'v'.repeat(43), kdf: { name: 'pbkdf2-v1', iterations: 600_000 } };
    expectError(await call(server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: { ...withFiles.body, caseAccount: account, submissionType: 'MEETING', uploads: [crypto.randomUUID()] } }), 400, 'FILES_UNEXPECTED', 'uploads');
    expectError(await call(server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: { ...withFiles.body, submissionType: 'FAX' } }), 400, 'VALIDATION', 'submissionType');
    expect(await countRows(server)).toEqual(before);
  });

  it('leaves no marker, file byte or address in any file of the data folder', () => {
    const needles = [MARKER, ADDRESS, ...FILES.map((f) => Buffer.from(f.bytes.subarray(9, 40)).toString('latin1'))];
    const found: string[] = [];
    for (const f of listFiles(server.dataDir)) {
      const bytes = readFileSync(f);
      for (const m of needles) if (bytes.includes(Buffer.from(m, 'latin1')) || bytes.includes(Buffer.from(m))) found.push(`${m.slice(0, 20)} in ${f}`);
    }
    expect(found).toEqual([]);
  });
});
