/**
 * The private area's writes on sealed and migrating cases (issue 37, docs/decisions/
 * sealed-reporter-pages.md "Reporter pages", sealed-migration.md "Migration"), driven with the
 * page's own functions (src/private/sealed.ts) through the SPA's API client against a
 * real server:
 * - the identity of a sealed case, sealed in the browser: stored as sent, opened by the
 *   entitled handler's key; a malformed envelope is 400 BAD_ENVELOPE and nothing is
 *   stored; a server-keyed case answers 409 CASE_NOT_SEALED; no marker in any row;
 * - the reporter wrap of a server-keyed case being migrated, for a reporter who signed in
 *   by verifier: made by the page, it opens with the reporter key to the case's data key;
 *   the case read says when it is wanted (`x-reporter-wrap`, only with SEALED_CASES=browser);
 *   offered again, the server says it is not needed and nothing changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, expectError, form } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { Browser, signIn, signInWithVerifier } from './identity-flow.ts';
import { sealCase, type PublicKeyLog } from '../helpers/sealed-case.ts';
import { createApiClient } from '../../src/api/client.ts';
import { offerReporterWrap, putSealedIdentity, sealedIdentityOf } from '../../src/private/sealed.ts';
import {
  deriveReporterKeys, fromBase64, keyId, makeHandlerKeys, openCaseParts, openSealedBox, signKeyLogEntry, toBase64, unwrapDataKey, PBKDF2_DEFAULT, type HandlerKeys,
} from '../../core/crypto/index.ts';

const HOST = 'sealed-private.test';
const MARKER = 'MARKER-identity-5e21';
let server: TestServer;
let officer: string;
let hanne: { id: string; token: string };
let hanneKeys: HandlerKeys;

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, sealedCases: 'browser' });
  officer = (await addCompany(server.ctx.db, { id: 'sealedprivate', hosts: [HOST], officers: 1 })).officerIds[0]!;
  const recovery = await makeHandlerKeys();
  expect((await call(server, 'PUT', '/api/admin/companies/sealedprivate/key-anchor', { headers: { authorization: `Bearer ${server.ctx.adminToken}` }, json: { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) } })).status).toBe(201);
  hanne = await createHandlerAccount(server.ctx.db, 'sealedprivate', 'Hanne', { officers: [officer] });
  hanneKeys = await makeHandlerKeys();
  const entry = await signKeyLogEntry(recovery.ecdsa.privateKey, {
    seq: 1, handlerId: hanne.id, ecdhSpki: toBase64(hanneKeys.ecdhSpki), ecdsaSpki: toBase64(hanneKeys.ecdsaSpki), officerIds: [officer], addedAt: new Date().toISOString(), action: 'add', prevHash: '', certifierKeyId: await keyId(recovery.ecdsaSpki),
  });
  expect((await call(server, 'POST', '/api/handler/key-log', { token: hanne.token, json: entry })).status).toBe(201);
  await server.ctx.db.updateTable('handler_account').set({ ecdh_spki: Buffer.from(hanneKeys.ecdhSpki), ecdsa_spki: Buffer.from(hanneKeys.ecdsaSpki) }).where('id', '=', hanne.id).execute();
});
afterAll(async () => server?.cleanup());

/** The SPA's API client, as the private area makes it, with this reporter's token. */
const pageApi = (token: string) => createApiClient({ baseUrl: server.url, companyHost: HOST, getAccessToken: () => token });

async function databaseText(): Promise<string> {
  const tables = (await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(server.ctx.db)).rows;
  const out: string[] = [];
  for (const { table_name } of tables) {
    for (const row of (await sql<Record<string, unknown>>`select * from ${sql.table(table_name)}`.execute(server.ctx.db)).rows) {
      for (const v of Object.values(row)) out.push(v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
    }
  }
  return out.join('\n');
}

async function reserve(password: string) {
  const r = await call(server, 'POST', '/api/public/case/reservation', { host: HOST });
  const keys = await deriveReporterKeys({ caseNumber: r.data.caseNumber, password, salt: Buffer.from(r.data.salt, 'base64url'), kdf: PBKDF2_DEFAULT });
  return { caseNumber: r.data.caseNumber as string, reservation: r.data.reservation as string, keys };
}

describe('the identity of a sealed case', () => {
  it('is sealed in the browser, stored as sent and opened by the handler key; a malformed envelope stores nothing', async () => {
    const password = 'a long sealed password';
    const r = await reserve(password);
    const account = { reporterKey: r.keys.reporterKey, caseAccount: { follow: true, reservation: r.reservation, verifier: Buffer.from(r.keys.verifier).toString('base64url'), kdf: PBKDF2_DEFAULT } };
    const log = (await call(server, 'GET', '/api/public/key-log', { host: HOST })).data as PublicKeyLog;
    const sealed = await sealCase(log, { officerId: officer, details: { description: 'identity', whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: '' }, whistleblower: { name: 'Ida Jensen', email: '', phone: null, phoneCountryCode: null, notification: false }, account });
    expect((await call(server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: sealed.body })).status).toBe(201);
    const tokens = await signIn(new Browser(server, HOST), r.caseNumber, password);
    const me = { host: HOST, token: tokens.access_token };
    const stored = async () => Buffer.from((await server.ctx.db.selectFrom('report_case').select('whistleblower_enc').where('id', '=', sealed.caseId).executeTakeFirstOrThrow()).whistleblower_enc!);
    const before = await stored();

    // Malformed: refused with the product's code, the stored identity unchanged.
    expectError(await call(server, 'PUT', '/api/private/case/whistleblower/sealed', { ...me, json: { envelope: toBase64(Uint8Array.of(2, 1, 2, 3)) } }), 400, 'BAD_ENVELOPE', 'envelope');
    expectError(await call(server, 'PUT', '/api/private/case/whistleblower/sealed', { ...me, json: { envelope: 'not base64!' } }), 400, 'VALIDATION');
    expect((await call(server, 'PUT', '/api/private/case/whistleblower/sealed', { ...me, json: {} })).status).toBe(400);
    expect((await stored()).equals(before)).toBe(true);
    // The usual route cannot open it.
    expectError(await call(server, 'PUT', '/api/private/case/whistleblower/update', { ...me, json: { name: 'Ida Jensen', email: 'x@example.com' } }), 409, 'CASE_SEALED');

    // The page's way: the reporter's own wrap opens the key; the identity is sealed under it and only the envelope goes.
    const mine = await call(server, 'GET', '/api/private/case/my-case/sealed', me);
    const dataKey = await unwrapDataKey(r.keys.reporterKey, fromBase64(mine.data.wrap.wrap), { caseId: sealed.caseId, epoch: 1 });
    const identity = sealedIdentityOf({ name: 'Someone else', email: `${MARKER}@example.com`, phone: '+4512345678', phoneCountryCode: 'DK' }, { name: 'Ida Jensen', notification: false });
    const res = await putSealedIdentity(pageApi(tokens.access_token), { caseId: sealed.caseId, dataKey }, identity);
    expect(await res.json()).toEqual({ stored: true });

    // The handler opens it with her key: the name kept, the new address.
    const view = await call(server, 'GET', `/api/handler/cases/${r.caseNumber}/sealed`, { token: hanne.token });
    const hanneDk = await openSealedBox(hanneKeys.ecdh, fromBase64(view.data.wrap.wrap), { caseId: sealed.caseId, epoch: 1, recipientKeyId: await keyId(hanneKeys.ecdhSpki) });
    const opened = await openCaseParts(hanneDk, view.data);
    expect(opened.whistleblower).toEqual({ name: 'Ida Jensen', email: `${MARKER}@example.com`, phone: '+4512345678', phoneCountryCode: 'DK', notification: false });
    expect(await databaseText()).not.toContain(MARKER);
  });

});

describe('a server-keyed case being migrated, its reporter signed in by verifier', () => {
  it('gets its reporter wrap from the page, which opens to the case key; a second offer changes nothing; no sealed identity', async () => {
    const password = 'a password the browser derived from';
    const r = await reserve(password);
    const account = { follow: true, reservation: r.reservation, verifier: Buffer.from(r.keys.verifier).toString('base64url'), kdf: PBKDF2_DEFAULT };
    const res = await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, headers: { 'x-case-reservation': r.reservation }, body: form('caseDto', caseDto(officer, { caseAccount: account })) });
    expect(res.status, JSON.stringify(res.data)).toBe(201);
    const row = await server.ctx.db.selectFrom('report_case').select(['id', 'sealed', 'wrapped_key', 'whistleblower_enc']).where('case_number', '=', r.caseNumber).executeTakeFirstOrThrow();
    expect([row.sealed, row.wrapped_key === null]).toEqual([false, false]);
    const tokens = (await signInWithVerifier(new Browser(server, HOST), r.caseNumber, password)).tokens!;
    const reporterWraps = () => server.ctx.db.selectFrom('case_key_wrap').select(['wrap', 'epoch']).where('case_id', '=', row.id).where('kind', '=', 'reporter').execute();
    expect(await reporterWraps()).toEqual([]);

    // The sealed identity route is for sealed cases only.
    expectError(await call(server, 'PUT', '/api/private/case/whistleblower/sealed', { host: HOST, token: tokens.access_token, json: { envelope: toBase64(new Uint8Array(40).fill(1)) } }), 409, 'CASE_NOT_SEALED');
    const after = await server.ctx.db.selectFrom('report_case').select('whistleblower_enc').where('id', '=', row.id).executeTakeFirstOrThrow();
    expect(Buffer.from(after.whistleblower_enc ?? []).equals(Buffer.from(row.whistleblower_enc ?? []))).toBe(true);

    // The case read says a wrap is wanted (the page offers it only then), and stops saying so once there is one.
    const wanted = async () => (await call(server, 'GET', '/api/private/case/my-case', { host: HOST, token: tokens.access_token })).headers.get('x-reporter-wrap');
    expect(await wanted()).toBe('wanted');
    expect(await offerReporterWrap(pageApi(tokens.access_token), r.keys.reporterKey)).toBe(true);
    expect(await wanted()).toBeNull();
    const [wrap] = await reporterWraps();
    expect(wrap?.epoch).toBe(1);
    const opened = await unwrapDataKey(r.keys.reporterKey, new Uint8Array(wrap!.wrap), { caseId: row.id, epoch: 1 });
    expect(Buffer.from(opened).equals(Buffer.from(await server.ctx.caseKeys.unwrap(row.id, row.wrapped_key!)))).toBe(true);
    // Offered again (the next sign-in): not needed, nothing added.
    expect(await offerReporterWrap(pageApi(tokens.access_token), r.keys.reporterKey)).toBe(false);
    expect(await reporterWraps()).toHaveLength(1);
  });
});
