/**
 * Sealed on arrival (issue 37 Build 5, docs/decisions/blind-server.md "Sealed on arrival;
 * migration"): with SEALED_CASES=browser, a plain case (by form with files, by phone,
 * by meeting) for a company that takes sealed cases is sealed by the server at once,
 * with core/crypto, to the keys its verified log entitles to the officer, the recovery
 * key and the reporter key derived from the plain password; it is stored as a browser-
 * sealed case (no server wrapping, no shred key). The entitled handler, the recovery key
 * and the reporter (derived here with core/crypto) open it; no marker is in any row or
 * file of the data folder, and no key the server holds opens it. A company without an
 * anchor, or an officer without a certified key, gets today's server-keyed case.
 *
 * PGlite only for the data-folder scan: on PostgreSQL the database's files are the cluster's.
 */
import { hkdfSync } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, expectError, form, listFiles, oralDto, solveChallenge } from './api.ts';
import { certifiedHandler, setKeyAnchor } from '../helpers/sealed-case.ts';
import { masterKeyUses } from '../../server/keys/retire-master.ts';
import { migrateWraps } from '../../server/keys/migrate-wraps.ts';
import { Browser, signIn } from './identity-flow.ts';
import {
  decryptFileStream, deriveReporterKeys, fieldContext, fromBase64, keyId, openField, openFieldText, openSealedBox, unwrapDataKey, SEALED_COLUMNS, type HandlerKeys, type Kdf,
} from '../../core/crypto/index.ts';

const HOST = 'arrival.test';
const PLAIN_HOST = 'arrival-plain.test';
const MARKERS = { description: 'Arrival-description-5521', name: 'Arrival Reporterson', file: 'Arrival-file-bytes-8830', fileName: 'arrival-evidence-4410.txt', phone: 'Arrival-phone-caller-1187' };
const PASSWORD = 'sealed on arrival password';
const FILE = `${MARKERS.file}\n`.repeat(9_000); // more than one 64 KiB chunk

let server: TestServer;
let officers: string[];
let plainOfficer: string;
let recovery: HandlerKeys;
let hanneKeys: HandlerKeys;
let hanne: { id: string; token: string };
let formCase: { number: string; id: string };
let phoneCase: { number: string; id: string };


const caseRow = (caseNumber: string) => server.ctx.db.selectFrom('report_case').selectAll().where('case_number', '=', caseNumber).executeTakeFirstOrThrow();

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, sealedCases: 'browser' });
  officers = (await addCompany(server.ctx.db, { id: 'arrival', hosts: [HOST], officers: 2 })).officerIds;
  plainOfficer = (await addCompany(server.ctx.db, { id: 'arrival-plain', hosts: [PLAIN_HOST] })).officerIds[0]!;
  recovery = await setKeyAnchor(server, 'arrival');
  ({ account: hanne, keys: hanneKeys } = await certifiedHandler(server, HOST, { companyId: 'arrival', name: 'Hanne', officerIds: [officers[0]!], certifier: recovery }));

  const byForm = await call(server, 'POST', '/api/public/case/new/by-form', {
    host: HOST,
    body: form('caseDto', caseDto(officers[0]!, { description: MARKERS.description, whistleblower: { name: MARKERS.name, email: 'arrival@example.org', notification: false }, caseAccount: { follow: true, password: PASSWORD } }), [{ name: MARKERS.fileName, bytes: FILE, type: 'text/plain' }]),
  });
  expect(byForm.status, JSON.stringify(byForm.data)).toBe(201);
  formCase = { number: byForm.data.caseDto.caseNumber, id: (await caseRow(byForm.data.caseDto.caseNumber)).id };
  const byPhone = await call(server, 'POST', '/api/public/case/new/by-phone', { host: HOST, json: oralDto(officers[0]!, { whistleblower: { name: MARKERS.phone, email: 'phone@example.org', phone: '+4512345678' }, caseAccount: { follow: true, password: PASSWORD } }) });
  expect(byPhone.status, JSON.stringify(byPhone.data)).toBe(201);
  phoneCase = { number: byPhone.data.caseDto.caseNumber, id: (await caseRow(byPhone.data.caseDto.caseNumber)).id };
});
afterAll(async () => server?.cleanup());

/** The reporter key as the reporter's browser derives it, from the case's salt and kdf. */
async function reporterKeyOf(caseId: string, caseNumber: string): Promise<CryptoKey> {
  const account = await server.ctx.db.selectFrom('case_account').select(['salt', 'kdf']).where('case_id', '=', caseId).executeTakeFirstOrThrow();
  return (await deriveReporterKeys({ caseNumber, password: PASSWORD, salt: new Uint8Array(account.salt!), kdf: JSON.parse(account.kdf!) as Kdf })).reporterKey;
}

describe('a plain case for a company that takes sealed cases', () => {
  let dataKey: Uint8Array;

  it('is stored sealed, as a browser-sealed case: no server wrapping, no shred key, a wrap per entitled key, recovery and reporter', async () => {
    for (const c of [formCase, phoneCase]) {
      const row = await caseRow(c.number);
      expect(row.sealed).toBe(true);
      expect(row.wrapped_key).toBeNull();
      expect(row.language_enc).toBeNull();
      expect(await server.ctx.caseKeys.exists(c.id)).toBe(false);
      const wraps = await server.ctx.db.selectFrom('case_key_wrap').select(['kind', 'recipient_key_id', 'epoch']).where('case_id', '=', c.id).execute();
      expect(wraps.map((w) => w.kind).sort()).toEqual(['handler', 'recovery', 'reporter']);
      expect(wraps.find((w) => w.kind === 'handler')!.recipient_key_id).toBe(await keyId(hanneKeys.ecdhSpki));
      expect(wraps.every((w) => w.epoch === 1)).toBe(true);
    }
    // The server's plain views refuse it, as for a case sealed in the browser.
    expectError(await call(server, 'GET', `/api/handler/cases/${formCase.number}`, { token: hanne.token }), 409, 'CASE_SEALED');
  });

  it('opens with the entitled handler\'s key, the recovery key and the reporter key, details, identity, file name and file bytes', async () => {
    const view = await call(server, 'GET', `/api/handler/cases/${formCase.number}/sealed`, { token: hanne.token });
    expect(view.status, JSON.stringify(view.data)).toBe(200);
    const at = { caseId: formCase.id, epoch: view.data.epoch as number };
    const hanneId = await keyId(hanneKeys.ecdhSpki);
    dataKey = await openSealedBox(hanneKeys.ecdh, fromBase64(view.data.wrap.wrap), { ...at, recipientKeyId: hanneId });
    const details = JSON.parse(await openFieldText(dataKey, fieldContext(formCase.id, SEALED_COLUMNS.details), fromBase64(view.data.envelopes.details)));
    expect(details).toMatchObject({ description: MARKERS.description, violation: 'THEFT', whistleblowerRelation: 'Employee', reportedPersons: [{ name: 'John Doe' }] });
    expect(JSON.parse(await openFieldText(dataKey, fieldContext(formCase.id, SEALED_COLUMNS.whistleblower), fromBase64(view.data.envelopes.whistleblower)))).toMatchObject({ name: MARKERS.name });

    const recoveryId = await keyId(recovery.ecdhSpki);
    const recoveryWrap = await server.ctx.db.selectFrom('case_key_wrap').select('wrap').where('case_id', '=', formCase.id).where('recipient_key_id', '=', recoveryId).executeTakeFirstOrThrow();
    expect(Buffer.from(await openSealedBox(recovery.ecdh, recoveryWrap.wrap, { ...at, recipientKeyId: recoveryId }))).toEqual(Buffer.from(dataKey));

    // The reporter signs in (the plain path) and opens it with the key the browser derives.
    const tokens = await signIn(new Browser(server, HOST), formCase.number, PASSWORD);
    const mine = await call(server, 'GET', '/api/private/case/my-case/sealed', { host: HOST, token: tokens.access_token });
    expect(mine.status, JSON.stringify(mine.data)).toBe(200);
    const reporterKey = await reporterKeyOf(formCase.id, formCase.number);
    expect(Buffer.from(await unwrapDataKey(reporterKey, fromBase64(mine.data.wrap.wrap), at))).toEqual(Buffer.from(dataKey));

    // The file: its name sealed under the data key, its bytes in the STREAM format under it.
    const file = await server.ctx.db.selectFrom('case_file').selectAll().where('case_id', '=', formCase.id).executeTakeFirstOrThrow();
    expect(await openFieldText(dataKey, fieldContext(formCase.id, 'case_file.name_enc', file.id), file.name_enc)).toBe(MARKERS.fileName);
    const plain = Readable.fromWeb((Readable.toWeb(server.ctx.files.get(file.storage_key)) as ReadableStream<Uint8Array>).pipeThrough(decryptFileStream(dataKey, file.id)) as never);
    const chunks: Buffer[] = [];
    for await (const c of plain) chunks.push(Buffer.from(c as Uint8Array));
    expect(Buffer.concat(chunks).toString()).toBe(FILE);
  });

  it('the phone case opens with the handler\'s key too', async () => {
    const view = await call(server, 'GET', `/api/handler/cases/${phoneCase.number}/sealed`, { token: hanne.token });
    expect(view.status).toBe(200);
    const dk = await openSealedBox(hanneKeys.ecdh, fromBase64(view.data.wrap.wrap), { caseId: phoneCase.id, epoch: 1, recipientKeyId: await keyId(hanneKeys.ecdhSpki) });
    expect(JSON.parse(await openFieldText(dk, fieldContext(phoneCase.id, SEALED_COLUMNS.whistleblower), fromBase64(view.data.envelopes.whistleblower)))).toMatchObject({ name: MARKERS.phone });
    expect(JSON.parse(await openFieldText(dk, fieldContext(phoneCase.id, SEALED_COLUMNS.details), fromBase64(view.data.envelopes.details)))).toMatchObject({ whistleblowerRelation: 'Supplier', description: null });
  });

  it('a meeting case is sealed too', async () => {
    const res = await call(server, 'POST', '/api/public/case/new/by-meeting', { host: HOST, json: oralDto(officers[0]!, { caseAccount: { follow: true, password: PASSWORD } }) });
    expect(res.status).toBe(201);
    const row = await caseRow(res.data.caseDto.caseNumber);
    expect([row.sealed, row.wrapped_key, row.submission_type]).toEqual([true, null, 'MEETING']);
  });

  it('no marker is in any row or file of the data folder, and no key the server holds opens it', async () => {
    const found: string[] = [];
    // The scan reads every value: the clear officer id of the case is found (the control).
    const markers = { ...MARKERS, control: formCase.id };
    const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`.execute(server.ctx.db);
    for (const { table_name } of tables.rows) {
      const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table_name)}`.execute(server.ctx.db);
      for (const r of rows.rows) {
        for (const value of Object.values(r)) {
          const bytes = value instanceof Uint8Array ? Buffer.from(value) : Buffer.from(typeof value === 'string' ? value : JSON.stringify(value ?? null));
          for (const m of Object.values(markers)) if (bytes.includes(Buffer.from(m))) found.push(`${m} in ${table_name}`);
        }
      }
    }
    const inFiles: string[] = [];
    for (const f of listFiles(server.dataDir)) {
      const bytes = readFileSync(f);
      for (const m of Object.values(MARKERS)) if (bytes.includes(Buffer.from(m))) inFiles.push(`${m} in ${f}`);
      if (bytes.includes(Buffer.from(dataKey))) inFiles.push(`the data key in ${f}`);
    }
    expect(inFiles).toEqual([]);
    expect(found.filter((f) => !f.startsWith(formCase.id))).toEqual([]);
    expect(found.length).toBeGreaterThan(0);

    // Every key a thief of the data folder holds, the wrapping keys derivable from them, and every data key the server opens.
    const b64File = (f: string) => Buffer.from(readFileSync(f, 'utf8').trim(), 'base64');
    const base: Buffer[] = ['master.key', 'pepper', 'admin.token'].map((n) => b64File(path.join(server.dataDir, n)));
    for (const f of listFiles(server.dataDir)) {
      const size = statSync(f).size;
      if (size === 32) base.push(readFileSync(f));
      if (size === 44 || size === 45) base.push(b64File(f));
    }
    const keys: Uint8Array[] = [...base];
    for (const other of base) keys.push(Buffer.from(hkdfSync('sha256', base[0]!, other, `wb:case-kek:${formCase.id}`, 32)), Buffer.from(hkdfSync('sha256', other, base[0]!, `wb:case-kek:${formCase.id}`, 32)));
    for (const row of await server.ctx.db.selectFrom('report_case').select(['id', 'wrapped_key']).execute()) {
      try {
        keys.push(await server.ctx.caseKeys.unwrap(row.id, row.wrapped_key));
      } catch {
        // a sealed case: no server key
      }
    }
    const row = await caseRow(formCase.number);
    const opened = [];
    for (const key of keys) {
      if (key.length !== 32) continue;
      try {
        await openField(key, fieldContext(formCase.id, SEALED_COLUMNS.details), row.details_enc);
        opened.push(key);
      } catch {
        // expected
      }
    }
    expect(opened).toEqual([]);
  });

  it('a case whose verifier the client derived (a reservation), or whose files came by an upload session, is made server-keyed and reaches the same keys through the key-wraps job', async () => {
    const r = (await call(server, 'POST', '/api/public/case/reservation', { host: HOST })).data;
    const account = { follow: true, reservation: r.reservation, verifier: 'A'.repeat(43), kdf: { name: 'pbkdf2-v1', iterations: 600_000 } };
    const reserved = await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, body: form('caseDto', caseDto(officers[0]!, { caseAccount: account })) });
    expect(reserved.status, JSON.stringify(reserved.data)).toBe(201);
    const res = await fetch(`${server.url}/api/public/upload-sessions`, { method: 'POST', headers: { 'x-company-host': HOST, ...(await solveChallenge(server)) } });
    expect(res.status).toBe(201);
    const session = ((await res.json()) as { uploadSession: string }).uploadSession;
    const viaSession = await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, headers: { 'x-upload-session': session }, body: form('caseDto', caseDto(officers[0]!)) });
    expect(viaSession.status, JSON.stringify(viaSession.data)).toBe(201);
    await migrateWraps(server.ctx);
    for (const made of [reserved, viaSession]) {
      const row = await caseRow(made.data.caseDto.caseNumber);
      expect(row.sealed).toBe(false);
      expect(row.wrapped_key).not.toBeNull();
      const kinds = (await server.ctx.db.selectFrom('case_key_wrap').select('kind').where('case_id', '=', row.id).execute()).map((w) => w.kind);
      expect(new Set(kinds)).toEqual(new Set(['handler', 'recovery']));
    }
  });
});

describe('a plain case the server cannot seal', () => {
  it('a company without an anchor, or an officer without a certified key, gets today\'s server-keyed case', async () => {
    for (const [host, officer] of [[PLAIN_HOST, plainOfficer], [HOST, officers[1]!]] as const) {
      const res = await call(server, 'POST', '/api/public/case/new/by-form', { host, body: form('caseDto', caseDto(officer, { description: 'A server-keyed report' })) });
      expect(res.status, JSON.stringify(res.data)).toBe(201);
      const row = await caseRow(res.data.caseDto.caseNumber);
      expect(row.sealed).toBe(false);
      expect(row.wrapped_key).not.toBeNull();
      expect(await server.ctx.caseKeys.exists(row.id)).toBe(true);
      const key = await server.ctx.caseKeys.unwrap(row.id, row.wrapped_key);
      expect(JSON.parse(await openFieldText(key, fieldContext(row.id, SEALED_COLUMNS.details), row.details_enc)).description).toBe('A server-keyed report');
    }
    // Such a case still needs the master key: retire-master names the company without an anchor.
    const uses = await masterKeyUses(server.ctx.db);
    expect(uses.blocking).toContain('company arrival-plain: 1 case(s) and no key anchor: its first handler makes the company recovery key on /handler/keys (or set it: PUT /api/admin/companies/arrival-plain/key-anchor)');
  });
});
