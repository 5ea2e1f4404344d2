/**
 * Grants of a sealed case's key (server/cases/grants.ts; docs/decisions/blind-server.md
 * "Handler pages and grants"): a handler who holds the case's key re-wraps it, with
 * core/crypto as her browser does, to a colleague's certified key; the server stores it
 * only for a key its company's log certifies, held by a live handler of the same company
 * whom the officer scoping lets see the case, in the right format, once. Every refusal
 * stores nothing; after the grant the colleague opens the case with her own key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, expectError, form } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { sealCase, DETAILS_COLUMN, type PublicKeyLog } from '../helpers/sealed-case.ts';
import { fieldContext, fromBase64, hashKeyLogEntry, keyId, makeHandlerKeys, openFieldText, openSealedBox, sealToPublicKey, signKeyLogEntry, toBase64, type HandlerKeys, type KeyLogEntry } from '../../core/crypto/index.ts';

const HOST = 'grants.test';
const OTHER_HOST = 'other-grants.test';
const MARKER = 'MARKER-grant-5b1c';
let server: TestServer;
let officers: string[];
let serverKeyedNumber: string;
type Handler = { id: string; token: string; keys: HandlerKeys };
const h: Record<'hanne' | 'greta' | 'otto' | 'uwe' | 'dora' | 'olga', Handler> = {} as never;
let caseNumber: string;
let caseId: string;

const log = async (host = HOST) => (await call(server, 'GET', '/api/public/key-log', { host })).data as Omit<PublicKeyLog, 'entries'> & { entries: KeyLogEntry[] };
// The sealed case's wraps only: the server-keyed case gets wraps of its own from the migration job as keys are certified.
const wrapCount = async () => Number((await server.ctx.db.selectFrom('case_key_wrap').select((eb) => eb.fn.countAll().as('n')).where('case_id', '=', caseId).executeTakeFirstOrThrow()).n);

async function certify(host: string, certifier: HandlerKeys, subject: Handler, officerIds: string[]) {
  const { entries } = await log(host);
  const prev = entries.at(-1);
  const entry = await signKeyLogEntry(certifier.ecdsa.privateKey, {
    seq: entries.length + 1, handlerId: subject.id, ecdhSpki: toBase64(subject.keys.ecdhSpki), ecdsaSpki: toBase64(subject.keys.ecdsaSpki), officerIds,
    addedAt: new Date().toISOString(), action: 'add', prevHash: prev ? await hashKeyLogEntry(prev) : '', certifierKeyId: await keyId(certifier.ecdsaSpki),
  });
  expect((await call(server, 'POST', '/api/handler/key-log', { token: subject.token, json: entry })).status).toBe(201);
}

async function account(company: string, name: string, officerIds: string[]): Promise<Handler> {
  const a = await createHandlerAccount(server.ctx.db, company, name, { officers: officerIds });
  const keys = await makeHandlerKeys();
  // The public halves enrolment stores (server/handlers/keys.ts).
  await server.ctx.db.updateTable('handler_account').set({ ecdh_spki: Buffer.from(keys.ecdhSpki), ecdsa_spki: Buffer.from(keys.ecdsaSpki) }).where('id', '=', a.id).execute();
  return { ...a, keys };
}

async function anchor(company: string) {
  const recovery = await makeHandlerKeys();
  const r = await call(server, 'PUT', `/api/admin/companies/${company}/key-anchor`, { headers: { authorization: `Bearer ${server.ctx.adminToken}` }, json: { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) } });
  expect(r.status).toBe(201);
  return recovery;
}

/** A grant as the granter's browser makes it: her wrap opened, the data key sealed to the colleague's key. */
async function grantBody(granter: Handler, to: HandlerKeys) {
  const view = (await call(server, 'GET', `/api/handler/cases/${caseNumber}/sealed`, { token: granter.token })).data;
  const own = await keyId(granter.keys.ecdhSpki);
  const dataKey = await openSealedBox(granter.keys.ecdh, fromBase64(view.wrap.wrap), { caseId, epoch: view.epoch, recipientKeyId: own });
  const recipientKeyId = await keyId(to.ecdhSpki);
  return { recipientKeyId, wrap: toBase64(await sealToPublicKey(to.ecdhSpki, dataKey, { caseId, epoch: view.epoch, recipientKeyId })) };
}
const grant = (by: Handler, body: unknown) => call(server, 'POST', `/api/handler/cases/${caseNumber}/key-wraps`, { token: by.token, json: body });

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, sealedCases: 'browser' });
  officers = (await addCompany(server.ctx.db, { id: 'grants', hosts: [HOST], officers: 2 })).officerIds;
  const otherOfficers = (await addCompany(server.ctx.db, { id: 'othergrants', hosts: [OTHER_HOST], officers: 1 })).officerIds;
  const recovery = await anchor('grants');
  const otherRecovery = await anchor('othergrants');
  h.hanne = await account('grants', 'Hanne', [officers[0]!]);
  h.greta = await account('grants', 'Greta', [officers[0]!]);
  h.otto = await account('grants', 'Otto', [officers[1]!]);
  h.uwe = await account('grants', 'Uwe', [officers[0]!]);
  h.dora = await account('grants', 'Dora', [officers[0]!]);
  h.olga = await account('othergrants', 'Olga', [otherOfficers[0]!]);
  // Before any handler key is certified a plain case is server-keyed (it is sealed on arrival once one is).
  const plain = await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, body: form('caseDto', caseDto(officers[0]!)) });
  expect(plain.status, JSON.stringify(plain.data)).toBe(201);
  serverKeyedNumber = plain.data.caseDto.caseNumber;
  await certify(HOST, recovery, h.hanne, [officers[0]!]);
  await certify(OTHER_HOST, otherRecovery, h.olga, [otherOfficers[0]!]);
  // The case is sealed while Hanne is the officer's only certified handler.
  const sealed = await sealCase(await log(), { officerId: officers[0]!, details: { description: `The till ${MARKER}`, whistleblowerRelation: 'Employee', reportedPersons: [] } });
  const res = await call(server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: sealed.body });
  expect(res.status, JSON.stringify(res.data)).toBe(201);
  caseNumber = res.data.caseDto.caseNumber;
  caseId = sealed.caseId;
  // Later colleagues: Greta of the same officer, Otto of the other one, Dora (then disabled); Uwe is never certified.
  await certify(HOST, h.hanne.keys, h.greta, [officers[0]!]);
  await certify(HOST, h.hanne.keys, h.otto, [officers[1]!]);
  await certify(HOST, h.hanne.keys, h.dora, [officers[0]!]);
  await server.ctx.db.updateTable('handler_account').set({ disabled_at: new Date() }).where('id', '=', h.dora.id).execute();
});
afterAll(async () => server?.cleanup());

describe('a grant of a sealed case\'s key', () => {
  it('names who holds the key; a colleague certified after the case has none and cannot grant', async () => {
    const holders = await call(server, 'GET', `/api/handler/cases/${caseNumber}/key-wraps`, { token: h.hanne.token });
    expect(holders.status).toBe(200);
    expect(holders.data.epoch).toBe(1);
    expect(holders.data.recipientKeyIds).toContain(await keyId(h.hanne.keys.ecdhSpki));
    expect(holders.data.recipientKeyIds).not.toContain(await keyId(h.greta.keys.ecdhSpki));
    expect((await call(server, 'GET', `/api/handler/cases/${caseNumber}/sealed`, { token: h.greta.token })).data.wrap).toBeNull();
    // Greta cannot re-wrap what she cannot open; the server refuses a "grant" from her too.
    const before = await wrapCount();
    expectError(await grant(h.greta, { recipientKeyId: await keyId(h.greta.keys.ecdhSpki), wrap: toBase64(new Uint8Array(126).fill(2)) }), 409, 'NO_CASE_KEY');
    expect(await wrapCount()).toBe(before);
  });

  it('refuses another company\'s key, an uncertified key, a colleague of another officer, a disabled one and a malformed wrap, storing nothing', async () => {
    const before = await wrapCount();
    expectError(await grant(h.hanne, await grantBody(h.hanne, h.olga.keys)), 400, 'WRAP_UNKNOWN_KEY', 'recipientKeyId');
    expectError(await grant(h.hanne, await grantBody(h.hanne, h.uwe.keys)), 400, 'WRAP_UNKNOWN_KEY', 'recipientKeyId');
    expectError(await grant(h.hanne, await grantBody(h.hanne, h.otto.keys)), 400, 'WRAP_NOT_ENTITLED', 'recipientKeyId');
    expectError(await grant(h.hanne, await grantBody(h.hanne, h.dora.keys)), 400, 'WRAP_NOT_ENTITLED', 'recipientKeyId');
    const good = await grantBody(h.hanne, h.greta.keys);
    const bytes = fromBase64(good.wrap);
    expectError(await grant(h.hanne, { ...good, wrap: toBase64(bytes.slice(0, 100)) }), 400, 'BAD_WRAP', 'wrap');
    expectError(await grant(h.hanne, { ...good, wrap: toBase64(Uint8Array.from([1, ...bytes.slice(1)])) }), 400, 'BAD_WRAP', 'wrap');
    expectError(await grant(h.hanne, { ...good, wrap: 'not base64!' }), 400, 'VALIDATION');
    expectError(await grant(h.hanne, { recipientKeyId: 'reporter', wrap: good.wrap }), 400, 'VALIDATION');
    // A handler of the other officer cannot even see the case.
    expectError(await grant(h.otto, await grantBody(h.hanne, h.otto.keys)), 404, 'CASE_NOT_FOUND');
    expect(await wrapCount()).toBe(before);
  });

  it('stores a grant to an entitled colleague, who then opens the case with her own key; a second grant is an idempotent 409', async () => {
    const before = await wrapCount();
    const body = await grantBody(h.hanne, h.greta.keys);
    const res = await grant(h.hanne, body);
    expect(res.status, JSON.stringify(res.data)).toBe(201);
    expect(res.data).toEqual({ recipientKeyId: body.recipientKeyId, epoch: 1 });
    expect(await wrapCount()).toBe(before + 1);
    const row = await server.ctx.db.selectFrom('case_key_wrap').selectAll().where('case_id', '=', caseId).where('recipient_key_id', '=', body.recipientKeyId).executeTakeFirstOrThrow();
    expect(row.kind).toBe('handler');

    const view = await call(server, 'GET', `/api/handler/cases/${caseNumber}/sealed`, { token: h.greta.token });
    expect(view.data.wrap.recipientKeyId).toBe(body.recipientKeyId);
    const dataKey = await openSealedBox(h.greta.keys.ecdh, fromBase64(view.data.wrap.wrap), { caseId, epoch: 1, recipientKeyId: body.recipientKeyId });
    expect(await openFieldText(dataKey, fieldContext(caseId, DETAILS_COLUMN), fromBase64(view.data.envelopes.details))).toContain(MARKER);

    // Twice (a resend after a lost answer, or from Greta herself now): 409, the first wrap kept.
    expectError(await grant(h.hanne, await grantBody(h.hanne, h.greta.keys)), 409, 'WRAP_EXISTS', 'recipientKeyId');
    expectError(await grant(h.greta, await grantBody(h.greta, h.greta.keys)), 409, 'WRAP_EXISTS', 'recipientKeyId');
    expect(await wrapCount()).toBe(before + 1);
    const kept = await server.ctx.db.selectFrom('case_key_wrap').select('wrap').where('case_id', '=', caseId).where('recipient_key_id', '=', body.recipientKeyId).executeTakeFirstOrThrow();
    expect(toBase64(kept.wrap)).toBe(body.wrap);
    expect((await call(server, 'GET', `/api/handler/cases/${caseNumber}/key-wraps`, { token: h.greta.token })).data.recipientKeyIds).toContain(body.recipientKeyId);
  });

  it('answers 409 CASE_NOT_SEALED for a case keyed by the server', async () => {
    expectError(await call(server, 'POST', `/api/handler/cases/${serverKeyedNumber}/key-wraps`, { token: h.hanne.token, json: await grantBody(h.hanne, h.greta.keys) }), 409, 'CASE_NOT_SEALED');
  });
});
