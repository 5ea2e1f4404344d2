/**
 * A sealed case at rest (issue 37, docs/decisions/sealed-cases.md "Sealed cases"): after
 * a sealed case with messages both ways, a thief of the whole data folder (database
 * files, file store, every key file: master key, pepper, admin token, every 32-byte
 * file, the case-key wrapping keys derivable from them, and the data key of every
 * server-keyed case the server itself opens) finds none of its markers and opens none
 * of its envelopes or its reporter wrap. The control: the same keys open a server-keyed
 * case of the same company, so the scan would find a key that opens.
 *
 * PGlite only: on PostgreSQL the database's files are the cluster's, not the data folder's.
 */
import { hkdfSync } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, form, listFiles } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { Browser, signIn } from './identity-flow.ts';
import { sealCase } from '../helpers/sealed-case.ts';
import {
  deriveReporterKeys, fieldContext, importFieldKey, keyId, makeHandlerKeys, openField, sealMessage, signKeyLogEntry, toBase64, unwrapDataKey, SEALED_COLUMNS, PBKDF2_DEFAULT,
} from '../../core/crypto/index.ts';

const HOST = 'sealed-rest.test';
const MARKERS = { description: 'Sealed-at-rest description 9931', name: 'Ottilie Sealwright', handlerMessage: 'Sealed-handler-question 4471', reporterMessage: 'Sealed-reporter-answer 2290' };
const PASSWORD = 'sealed at rest password';

let server: TestServer;
let sealedId: string;
let dataKey: Uint8Array;
let legacyId: string;

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, sealedCases: 'browser' });
  const [officer, uncertified] = (await addCompany(server.ctx.db, { id: 'sealed-rest', hosts: [HOST], officers: 2 })).officerIds as [string, string];
  const recovery = await makeHandlerKeys();
  expect((await call(server, 'PUT', '/api/admin/companies/sealed-rest/key-anchor', { headers: { authorization: `Bearer ${server.ctx.adminToken}` }, json: { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) } })).status).toBe(201);
  const hanne = await createHandlerAccount(server.ctx.db, 'sealed-rest', 'Hanne', { officers: [officer] });
  const keys = await makeHandlerKeys();
  const entry = await signKeyLogEntry(recovery.ecdsa.privateKey, {
    seq: 1, handlerId: hanne.id, ecdhSpki: toBase64(keys.ecdhSpki), ecdsaSpki: toBase64(keys.ecdsaSpki), officerIds: [officer], addedAt: new Date().toISOString(), action: 'add', prevHash: '', certifierKeyId: await keyId(recovery.ecdsaSpki),
  });
  expect((await call(server, 'POST', '/api/handler/key-log', { token: hanne.token, json: entry })).status).toBe(201);

  const r = (await call(server, 'POST', '/api/public/case/reservation', { host: HOST })).data;
  const derived = await deriveReporterKeys({ caseNumber: r.caseNumber, password: PASSWORD, salt: Buffer.from(r.salt, 'base64url'), kdf: PBKDF2_DEFAULT });
  const caseAccount = { follow: true, reservation: r.reservation, verifier: Buffer.from(derived.verifier).toString('base64url'), kdf: PBKDF2_DEFAULT };
  const log = (await call(server, 'GET', '/api/public/key-log', { host: HOST })).data;
  const sealed = await sealCase(log, { officerId: officer, details: { description: MARKERS.description }, whistleblower: { name: MARKERS.name }, account: { caseAccount, reporterKey: derived.reporterKey } });
  expect((await call(server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: sealed.body })).status).toBe(201);
  sealedId = sealed.caseId;
  dataKey = sealed.dataKey;
  const q = await sealMessage(dataKey, sealedId, MARKERS.handlerMessage);
  expect((await call(server, 'POST', `/api/handler/cases/${r.caseNumber}/messages/sealed`, { token: hanne.token, json: q })).status).toBe(201);
  const tokens = await signIn(new Browser(server, HOST), r.caseNumber, PASSWORD);
  const a = await sealMessage(dataKey, sealedId, MARKERS.reporterMessage);
  expect((await call(server, 'POST', '/api/private/case/messages/sealed', { host: HOST, token: tokens.access_token, json: a })).status).toBe(201);

  // The control: a server-keyed case of the same company (to an officer no certified key is entitled to: a plain case to one that is would be sealed on arrival).
  const legacy = await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, body: form('caseDto', caseDto(uncertified)) });
  expect(legacy.status).toBe(201);
  legacyId = (await server.ctx.db.selectFrom('report_case').select('id').where('case_number', '=', legacy.data.caseDto.caseNumber).executeTakeFirstOrThrow()).id;
});
afterAll(async () => server?.cleanup());

/** Every key a thief of the data folder holds, the case-key wrapping keys derivable from them, and every data key the server opens. */
async function thiefKeys(): Promise<Uint8Array[]> {
  const b64File = (f: string) => Buffer.from(readFileSync(f, 'utf8').trim(), 'base64');
  const base: Buffer[] = ['master.key', 'pepper', 'admin.token'].map((n) => b64File(path.join(server.dataDir, n)));
  for (const f of listFiles(server.dataDir)) {
    const size = statSync(f).size;
    if (size === 32) base.push(readFileSync(f));
    if (size === 44 || size === 45) {
      const d = b64File(f);
      if (d.length === 32) base.push(d);
    }
  }
  const keys: Uint8Array[] = [...base];
  for (const id of [sealedId, legacyId]) for (const other of base) keys.push(Buffer.from(hkdfSync('sha256', base[0]!, other, `wb:case-kek:${id}`, 32)), Buffer.from(hkdfSync('sha256', other, base[0]!, `wb:case-kek:${id}`, 32)));
  // Every data key the server itself can reach, by its own code.
  for (const row of await server.ctx.db.selectFrom('report_case').select(['id', 'wrapped_key']).execute()) {
    try {
      keys.push(await server.ctx.caseKeys.unwrap(row.id, row.wrapped_key));
    } catch {
      // a sealed case: no server key
    }
  }
  return keys;
}

async function opensWith(key: Uint8Array, context: string, sealed: Uint8Array): Promise<boolean> {
  try {
    await openField(key, context, sealed);
    return true;
  } catch {
    return false;
  }
}

describe('a sealed case at rest', () => {
  it('none of its markers, nor its data key, is anywhere in the data folder', () => {
    const found: string[] = [];
    for (const f of listFiles(server.dataDir)) {
      const bytes = readFileSync(f);
      for (const marker of Object.values(MARKERS)) if (bytes.includes(Buffer.from(marker))) found.push(`${marker} in ${f}`);
      if (bytes.includes(Buffer.from(dataKey))) found.push(`the data key in ${f}`);
    }
    expect(found).toEqual([]);
  });

  it('no key the server holds opens its envelopes, messages or reporter wrap; the same keys open the server-keyed case', async () => {
    const keys = await thiefKeys();
    const row = await server.ctx.db.selectFrom('report_case').select(['details_enc', 'whistleblower_enc']).where('id', '=', sealedId).executeTakeFirstOrThrow();
    const messages = await server.ctx.db.selectFrom('case_message').select(['id', 'body_enc']).where('case_id', '=', sealedId).execute();
    const wrap = await server.ctx.db.selectFrom('case_key_wrap').select('wrap').where('case_id', '=', sealedId).where('kind', '=', 'reporter').executeTakeFirstOrThrow();
    expect(messages).toHaveLength(2);
    // The test's data is right: the browser's data key opens them all.
    expect(await opensWith(dataKey, fieldContext(sealedId, SEALED_COLUMNS.details), row.details_enc)).toBe(true);
    const opened: string[] = [];
    for (const key of keys) {
      if (await opensWith(key, fieldContext(sealedId, SEALED_COLUMNS.details), row.details_enc)) opened.push('details');
      if (await opensWith(key, fieldContext(sealedId, SEALED_COLUMNS.whistleblower), row.whistleblower_enc!)) opened.push('whistleblower');
      for (const m of messages) if (await opensWith(key, fieldContext(sealedId, SEALED_COLUMNS.messageBody, m.id), m.body_enc)) opened.push(`message ${m.id}`);
      try {
        await unwrapDataKey(await importFieldKey(key), wrap.wrap, { caseId: sealedId, epoch: 1 });
        opened.push('reporter wrap');
      } catch {
        // expected
      }
    }
    expect(opened).toEqual([]);
    // The control: the server-keyed case's details open with a key the thief holds.
    const legacy = await server.ctx.db.selectFrom('report_case').select('details_enc').where('id', '=', legacyId).executeTakeFirstOrThrow();
    let controls = 0;
    for (const key of keys) if (await opensWith(key, fieldContext(legacyId, SEALED_COLUMNS.details), legacy.details_enc)) controls++;
    expect(controls).toBeGreaterThan(0);
  });
});
