/**
 * Status changes and the audit trail of a sealed case (issue 37; docs/decisions/
 * sealed-workspace.md "Status and audit of sealed cases"): the server holds no key of the
 * case, so it writes each entry in clear (the act, who, when, and ids or enums it saw
 * by serving the act) and never content. Reading the case, a status change, a sealed
 * message, a file download and a grant each leave one entry; the sealed read answers
 * them; the rows are clear JSON with no envelope; the trail stays append-only; a
 * server-keyed case's entries stay sealed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, expectError, form } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { sealCase, type PublicKeyLog, certifyKey, storePublicHalves } from '../helpers/sealed-case.ts';
import {
  fromBase64, keyId, makeHandlerKeys, makeNextEpoch, openCaseKeys, openSealedBox, sealFileForUpload, sealMessage, sealToPublicKey, toBase64, concat, type HandlerKeys, type KeyLogEntry,
} from '../../core/crypto/index.ts';

const HOST = 'sealed-audit.test';
const MARKER = 'MARKER-audit-7d2e';
const TUS = { 'tus-resumable': '1.0.0' };
let server: TestServer;
let officer: string;
type Handler = { id: string; token: string; keys: HandlerKeys };
let hanne: Handler;
let greta: Handler;
let caseNumber: string;
let caseId: string;
let dataKey: Uint8Array;
let fileId: string;
let recovery: HandlerKeys;

const log = async () => (await call(server, 'GET', '/api/public/key-log', { host: HOST })).data as Omit<PublicKeyLog, 'entries'> & { entries: KeyLogEntry[] };

async function account(name: string): Promise<Handler> {
  const a = await createHandlerAccount(server.ctx.db, 'sealedaudit', name, { officers: [officer] });
  const keys = await makeHandlerKeys();
  await storePublicHalves(server, a.id, keys);
  return { ...a, keys };
}
async function certify(certifier: HandlerKeys, subject: Handler) {
  await certifyKey(server, HOST, { certifier, subject: subject.keys, handlerId: subject.id, officerIds: [officer], token: subject.token });
}
const metadata = (pairs: Record<string, string>) => Object.entries(pairs).map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`).join(',');
async function readAll(stream: ReadableStream<Uint8Array>) {
  const parts: Uint8Array[] = [];
  for await (const p of stream as unknown as AsyncIterable<Uint8Array>) parts.push(p);
  return concat(...parts);
}
const auditRows = () => server.ctx.db.selectFrom('case_audit').select(['entry', 'entry_enc']).where('case_id', '=', caseId).orderBy('id').execute();
const sealedView = (who: Handler) => call(server, 'GET', `/api/handler/cases/${caseNumber}/sealed`, { token: who.token });

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, sealedCases: 'browser' });
  officer = (await addCompany(server.ctx.db, { id: 'sealedaudit', hosts: [HOST], officers: 1 })).officerIds[0]!;
  recovery = await makeHandlerKeys();
  expect((await call(server, 'PUT', '/api/admin/companies/sealedaudit/key-anchor', { headers: { authorization: `Bearer ${server.ctx.adminToken}` }, json: { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) } })).status).toBe(201);
  hanne = await account('Hanne');
  greta = await account('Greta');
  await certify(recovery, hanne);

  // A sealed case with one file, as the reporter's browser sends it.
  const sealed = await sealCase(await log(), { officerId: officer, details: { description: `${MARKER} details`, whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: '' } });
  ({ caseId, dataKey } = sealed);
  const session = (await call(server, 'POST', '/api/public/upload-sessions', { host: HOST, json: { sealed: true } })).data.uploadSession as string;
  const file = await sealFileForUpload(dataKey, caseId, new Blob([new TextEncoder().encode(`${MARKER} file bytes`)]), { name: `${MARKER}.txt` });
  const bytes = await readAll(file.stream);
  const headers = { ...TUS, 'x-upload-session': session };
  expect((await call(server, 'POST', '/api/public/uploads', { host: HOST, pow: false, headers: { ...headers, 'upload-length': String(file.size), 'upload-metadata': metadata({ fileId: file.fileId, name: file.name }) } })).status).toBe(201);
  expect((await call(server, 'PATCH', `/api/public/uploads/${file.fileId}`, { host: HOST, pow: false, body: new Uint8Array(bytes), headers: { ...headers, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' } })).status).toBe(204);
  fileId = file.fileId;
  const res = await call(server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: { ...sealed.body, uploads: [fileId] }, headers: { 'x-upload-session': session } });
  expect(res.status, JSON.stringify(res.data)).toBe(201);
  caseNumber = res.data.caseDto.caseNumber;
});
afterAll(async () => server?.cleanup());

describe('the audit trail of a sealed case', () => {
  it('the usual read refuses before writing anything; the sealed read writes and answers "opened the case"', async () => {
    expectError(await call(server, 'GET', `/api/handler/cases/${caseNumber}`, { token: hanne.token }), 409, 'CASE_SEALED');
    expect(await auditRows()).toEqual([]);
    const view = await sealedView(hanne);
    expect(view.status).toBe(200);
    expect(view.data.audit).toEqual([{ at: expect.any(String), handlerId: hanne.id, handlerName: 'Hanne', action: 'CASE_READ', detail: {} }]);
  });

  it('a status change works, answers the sealed view with its entry, and a second one to the same status is refused', async () => {
    const before = (await sealedView(hanne)).data.status as string;
    const moved = await call(server, 'PUT', `/api/handler/cases/${caseNumber}/status`, { token: hanne.token, json: { status: 'BEING_INVESTIGATED' } });
    expect(moved.status, JSON.stringify(moved.data)).toBe(200);
    expect(moved.data.status).toBe('BEING_INVESTIGATED');
    expect(moved.data.envelopes.details).toBeTruthy();
    expect(moved.data.audit.at(-1)).toMatchObject({ handlerId: hanne.id, action: 'STATUS_CHANGED', detail: { from: before, to: 'BEING_INVESTIGATED' } });
    expectError(await call(server, 'PUT', `/api/handler/cases/${caseNumber}/status`, { token: hanne.token, json: { status: 'BEING_INVESTIGATED' } }), 409, 'STATUS_UNCHANGED');
    expectError(await call(server, 'PUT', `/api/handler/cases/${caseNumber}/status`, { token: hanne.token, json: { status: 'NOPE' } }), 400, 'VALIDATION');
    const history = await server.ctx.db.selectFrom('case_status_event').select('status').where('case_id', '=', caseId).execute();
    expect(history.map((e) => e.status)).toContain('BEING_INVESTIGATED');
  });

  it('a sealed message, a download and a grant each leave one entry, with ids and enums only', async () => {
    const msg = await sealMessage(dataKey, caseId, `${MARKER} question`);
    const sent = await call(server, 'POST', `/api/handler/cases/${caseNumber}/messages/sealed`, { token: hanne.token, json: { ...msg, type: 'STANDARD', answerWanted: true } });
    expect(sent.status, JSON.stringify(sent.data)).toBe(201);
    const dl = await fetch(`${server.url}/api/handler/cases/${caseNumber}/files/${fileId}`, { headers: { authorization: `Bearer ${hanne.token}` } });
    expect(dl.status).toBe(200);
    await dl.arrayBuffer();

    const view = (await sealedView(hanne)).data;
    const own = await keyId(hanne.keys.ecdhSpki);
    const dk = await openSealedBox(hanne.keys.ecdh, fromBase64(view.wrap.wrap), { caseId, epoch: view.epoch, recipientKeyId: own });
    const recipientKeyId = await keyId(greta.keys.ecdhSpki);
    await certify(hanne.keys, greta);
    const granted = await call(server, 'POST', `/api/handler/cases/${caseNumber}/key-wraps`, { token: hanne.token, json: { recipientKeyId, wrap: toBase64(await sealToPublicKey(greta.keys.ecdhSpki, dk, { caseId, epoch: view.epoch, recipientKeyId })) } });
    expect(granted.status, JSON.stringify(granted.data)).toBe(201);

    const audit = (await sealedView(greta)).data.audit as { action: string; handlerId: string; detail: Record<string, unknown> }[];
    // One opening per sitting (handler-everyday-work.md): Hanne's reads of this session are one entry, Greta's first read another.
    expect(audit.map((a) => a.action)).toEqual(['CASE_READ', 'STATUS_CHANGED', 'MESSAGE_SENT', 'FILE_DOWNLOADED', 'ACCESS_GRANTED', 'CASE_READ']);
    expect(audit.find((a) => a.action === 'MESSAGE_SENT')!.detail).toEqual({ messageId: msg.id, type: 'STANDARD', answerWanted: true, files: 0 });
    expect(audit.find((a) => a.action === 'FILE_DOWNLOADED')!.detail).toEqual({ fileId });
    expect(audit.find((a) => a.action === 'ACCESS_GRANTED')!.detail).toEqual({ recipientKeyId });
    expect(audit.at(-1)!.handlerId).toBe(greta.id);
  });

  it('is stored in clear with no envelope and no content, and stays append-only', async () => {
    const rows = await auditRows();
    expect(rows.length).toBe(6);
    for (const r of rows) {
      expect(r.entry_enc).toBeNull();
      expect(JSON.stringify(r.entry)).not.toContain(MARKER);
    }
    await expect(server.ctx.db.updateTable('case_audit').set({ at: new Date() }).where('case_id', '=', caseId).execute()).rejects.toThrow(/append-only/);
    await expect(server.ctx.db.deleteFrom('case_audit').where('case_id', '=', caseId).execute()).rejects.toThrow(/append-only/);
    // Exactly one form per row.
    await expect(server.ctx.db.insertInto('case_audit').values({ case_id: caseId, at: new Date() }).execute()).rejects.toThrow();
  });

  it('a revocation leaves one clear entry of the revoked key id and the new epoch; a refused one leaves none', async () => {
    const before = (await auditRows()).length;
    const read = (await sealedView(hanne)).data;
    const keys = await openCaseKeys(read, { ecdh: { privateKey: hanne.keys.ecdh.privateKey, publicKey: hanne.keys.ecdhSpki }, keyId: await keyId(hanne.keys.ecdhSpki) });
    const holders = (await call(server, 'GET', `/api/handler/cases/${caseNumber}/key-wraps`, { token: hanne.token })).data as { holders: { recipientKeyId: string; kind: 'handler' | 'recovery' }[]; reporter: boolean };
    const spkis = new Map([[await keyId(recovery.ecdhSpki), recovery.ecdhSpki], [await keyId(hanne.keys.ecdhSpki), hanne.keys.ecdhSpki], [await keyId(greta.keys.ecdhSpki), greta.keys.ecdhSpki]]);
    const gretaKey = await keyId(greta.keys.ecdhSpki);
    const next = await makeNextEpoch({ caseId, epoch: keys.epoch, dataKey: keys.dataKey, revoke: gretaKey, recipients: holders.holders.map((x) => ({ ...x, spki: spkis.get(x.recipientKeyId)! })), reporter: holders.reporter });
    expectError(await call(server, 'POST', `/api/handler/cases/${caseNumber}/key-epochs`, { token: hanne.token, json: { ...next.body, epoch: next.body.epoch + 1 } }), 409, 'EPOCH_STALE');
    // The sealed read above is Hanne's second in this sitting, so no entry; the refusal none either.
    expect((await auditRows()).length).toBe(before);
    const res = await call(server, 'POST', `/api/handler/cases/${caseNumber}/key-epochs`, { token: hanne.token, json: next.body });
    expect(res.status, JSON.stringify(res.data)).toBe(201);
    const rows = await auditRows();
    expect(rows.length).toBe(before + 1);
    const last = rows.at(-1)!;
    expect(last.entry_enc).toBeNull();
    expect(last.entry).toEqual({ handlerId: hanne.id, handlerName: 'Hanne', action: 'ACCESS_REVOKED', detail: { recipientKeyId: gretaKey, epoch: 2 } });
    // No key material of the new epoch in the entry.
    for (const w of next.body.wraps) expect(JSON.stringify(last.entry)).not.toContain(w.wrap);
    expect(JSON.stringify(last.entry)).not.toContain(next.body.previous);
    const audit = (await sealedView(hanne)).data.audit as { action: string; detail: Record<string, unknown> }[];
    expect(audit.at(-1)).toMatchObject({ action: 'ACCESS_REVOKED', detail: { recipientKeyId: gretaKey, epoch: 2 } });
    expectError(await sealedView(greta), 403, 'CASE_KEY_REVOKED');
  });

  it('a server-keyed case of the same company keeps sealed entries', async () => {
    const otherOfficer = (await addCompany(server.ctx.db, { id: 'plainaudit', hosts: ['plain-audit.test'], officers: 1 })).officerIds[0]!;
    const plain = await call(server, 'POST', '/api/public/case/new/by-form', { host: 'plain-audit.test', body: form('caseDto', caseDto(otherOfficer)) });
    expect(plain.status, JSON.stringify(plain.data)).toBe(201);
    const otto = await createHandlerAccount(server.ctx.db, 'plainaudit', 'Otto', { officers: [otherOfficer] });
    const read = await call(server, 'GET', `/api/handler/cases/${plain.data.caseDto.caseNumber}`, { token: otto.token });
    expect(read.status, JSON.stringify(read.data)).toBe(200);
    expect(read.data.audit.map((a: { action: string }) => a.action)).toEqual(['CASE_READ']);
    const row = await server.ctx.db.selectFrom('report_case').select('id').where('case_number', '=', plain.data.caseDto.caseNumber).executeTakeFirstOrThrow();
    const stored = await server.ctx.db.selectFrom('case_audit').select(['entry', 'entry_enc']).where('case_id', '=', row.id).execute();
    expect(stored.map((r) => [r.entry, r.entry_enc === null])).toEqual([[null, false]]);
  });
});
