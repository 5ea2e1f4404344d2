/**
 * Revocation with a new key epoch (server/cases/grants.ts revokeCaseKey; core/crypto/epochs.ts;
 * docs/decisions/sealed-workspace.md "Revocation and key epochs"): a handler who holds a
 * sealed case's current key revokes a colleague's; her browser (here core/crypto, as
 * the page runs it) makes the next epoch's key, wraps it to every remaining holder and
 * links it back (and forward for the reporter). Every refusal stores nothing; the
 * revoked handler holds no wrap of any epoch and is refused from then on; a message
 * sealed after the revocation does not open with her old key; the remaining holders and
 * the reporter open old and new content; a later grant walks back to every epoch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, expectError } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { Browser, signIn } from './identity-flow.ts';
import { sealCase, DETAILS_COLUMN, type PublicKeyLog, certifyKey, storePublicHalves } from '../helpers/sealed-case.ts';
import {
  deriveReporterKeys, fieldContext, fromBase64, keyId, makeHandlerKeys, makeNextEpoch, openCaseKeys, openCaseParts, openFieldText, openSealedBox, sealMessage, sealToPublicKey, toBase64, wrapDataKey, PBKDF2_DEFAULT, type HandlerKeys, type KeyLogEntry, type NextEpochBody,
} from '../../core/crypto/index.ts';

const HOST = 'revoke.test';
const MARKER = 'MARKER-revoke-9d2e';
const PASSWORD = 'a long revocation password';
let server: TestServer;
let officer: string;
let recovery: HandlerKeys;
type Handler = { id: string; token: string; keys: HandlerKeys; keyId: string };
const h: Record<'hanne' | 'greta' | 'ida' | 'dora', Handler> = {} as never;
let caseNumber: string;
let caseId: string;
let reporterKey: CryptoKey;
let reporterToken: string;
let oldMessageId: string;
let gretaEpoch1Key: Uint8Array;

const log = async () => (await call(server, 'GET', '/api/public/key-log', { host: HOST })).data as Omit<PublicKeyLog, 'entries'> & { entries: KeyLogEntry[] };
const count = async (table: 'case_key_wrap' | 'case_key_revocation' | 'case_message') =>
  Number((await server.ctx.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('case_id', '=', caseId).executeTakeFirstOrThrow()).n);
const snapshot = async () => [await count('case_key_wrap'), await count('case_key_revocation'), await count('case_message')];

async function certify(certifier: HandlerKeys, subject: Handler) {
  await certifyKey(server, HOST, { certifier, subject: subject.keys, handlerId: subject.id, officerIds: [officer], token: subject.token });
}

async function account(name: string): Promise<Handler> {
  const a = await createHandlerAccount(server.ctx.db, 'revoke', name, { officers: [officer] });
  const keys = await makeHandlerKeys();
  await storePublicHalves(server, a.id, keys);
  return { ...a, keys, keyId: await keyId(keys.ecdhSpki) };
}

const path = (p: string) => `/api/handler/cases/${caseNumber}/${p}`;
async function opened(by: Handler) {
  const view = await call(server, 'GET', path('sealed'), { token: by.token });
  expect(view.status, JSON.stringify(view.data)).toBe(200);
  const keys = await openCaseKeys(view.data, { ecdh: { privateKey: by.keys.ecdh.privateKey, publicKey: by.keys.ecdhSpki }, keyId: by.keyId });
  return { view: view.data, keys };
}

/** The next epoch as the revoking handler's browser makes it: her keys opened, the holders' keys from the key log. */
async function revokeBody(by: Handler, revoke: string): Promise<{ body: NextEpochBody; dataKey: Uint8Array }> {
  const { view, keys } = await opened(by);
  const holders = (await call(server, 'GET', path('key-wraps'), { token: by.token })).data as { holders: { recipientKeyId: string; kind: 'handler' | 'recovery' }[]; reporter: boolean };
  const spkis = new Map<string, Uint8Array>([[await keyId(recovery.ecdhSpki), recovery.ecdhSpki]]);
  for (const x of Object.values(h)) spkis.set(x.keyId, x.keys.ecdhSpki);
  const recipients = holders.holders.map((x) => ({ ...x, spki: spkis.get(x.recipientKeyId)! }));
  return makeNextEpoch({ caseId, epoch: keys.epoch, dataKey: keys.dataKey, revoke, recipients, reporter: holders.reporter }).then((r) => {
    expect(r.body.epoch).toBe(view.epoch + 1);
    return r;
  });
}
const revoke = (by: Handler, body: unknown) => call(server, 'POST', path('key-epochs'), { token: by.token, json: body });

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, sealedCases: 'browser' });
  officer = (await addCompany(server.ctx.db, { id: 'revoke', hosts: [HOST], officers: 1 })).officerIds[0]!;
  recovery = await makeHandlerKeys();
  expect((await call(server, 'PUT', '/api/admin/companies/revoke/key-anchor', { headers: { authorization: `Bearer ${server.ctx.adminToken}` }, json: { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) } })).status).toBe(201);
  h.hanne = await account('Hanne');
  h.greta = await account('Greta');
  h.ida = await account('Ida');
  h.dora = await account('Dora');
  await certify(recovery, h.hanne);
  await certify(h.hanne.keys, h.greta);
  await certify(h.hanne.keys, h.ida);
  // A followed case, sealed while Hanne, Greta and Ida are the officer's certified handlers.
  const r = await call(server, 'POST', '/api/public/case/reservation', { host: HOST });
  expect(r.status).toBe(201);
  const derived = await deriveReporterKeys({ caseNumber: r.data.caseNumber, password: PASSWORD, salt: Buffer.from(r.data.salt, 'base64url'), kdf: PBKDF2_DEFAULT });
  reporterKey = derived.reporterKey;
  const caseAccount = { follow: true, reservation: r.data.reservation, verifier: Buffer.from(derived.verifier).toString('base64url'), kdf: PBKDF2_DEFAULT };
  const sealed = await sealCase(await log(), { officerId: officer, details: { description: `The stock ${MARKER}`, whistleblowerRelation: 'Employee', reportedPersons: [] }, account: { caseAccount, reporterKey } });
  const res = await call(server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: sealed.body });
  expect(res.status, JSON.stringify(res.data)).toBe(201);
  caseNumber = res.data.caseDto.caseNumber;
  caseId = sealed.caseId;
  // Dora is certified after the case: she holds no wrap of it.
  await certify(h.hanne.keys, h.dora);
  // One message of the first epoch.
  const m = await sealMessage(sealed.dataKey, caseId, `Before the revocation ${MARKER}`);
  oldMessageId = m.id;
  expect((await call(server, 'POST', path('messages/sealed'), { token: h.hanne.token, json: m })).status).toBe(201);
  gretaEpoch1Key = (await opened(h.greta)).keys.dataKey;
  reporterToken = (await signIn(new Browser(server, HOST), caseNumber, PASSWORD)).access_token;
});
afterAll(async () => server?.cleanup());

describe('revoking a colleague\'s key with a new epoch', () => {
  it('refuses what does not make exactly the next epoch for the remaining holders, storing nothing', async () => {
    const before = await snapshot();
    const good = await revokeBody(h.hanne, h.greta.keyId);
    const b = good.body;
    expectError(await revoke(h.hanne, { ...b, epoch: 3 }), 409, 'EPOCH_STALE', 'epoch');
    expectError(await revoke(h.hanne, { ...b, epoch: 1 }), 400, 'VALIDATION');
    expectError(await revoke(h.hanne, { ...b, revoke: h.dora.keyId, wraps: b.wraps }), 409, 'REVOKE_NOT_HOLDER', 'revoke');
    expectError(await revoke(h.hanne, { ...b, wraps: b.wraps.filter((w) => w.recipientKeyId !== h.ida.keyId) }), 400, 'WRAP_MISSING', 'wraps');
    expectError(await revoke(h.hanne, { ...b, wraps: b.wraps.filter((w) => w.kind !== 'recovery') }), 400, 'WRAP_MISSING', 'wraps');
    const toGreta = { recipientKeyId: h.greta.keyId, kind: 'handler', wrap: toBase64(await sealToPublicKey(h.greta.keys.ecdhSpki, good.dataKey, { caseId, epoch: 2, recipientKeyId: h.greta.keyId })) };
    expectError(await revoke(h.hanne, { ...b, wraps: [...b.wraps, toGreta] }), 400, 'WRAP_UNKNOWN_KEY', `wraps[${b.wraps.length}]`);
    expectError(await revoke(h.hanne, { ...b, wraps: [...b.wraps, b.wraps[0]] }), 400, 'DUPLICATE_WRAP', `wraps[${b.wraps.length}]`);
    expectError(await revoke(h.hanne, { ...b, wraps: b.wraps.map((w) => (w.kind === 'recovery' ? { ...w, kind: 'handler' } : w)) }), 400, 'WRAP_UNKNOWN_KEY');
    expectError(await revoke(h.hanne, { ...b, wraps: [{ ...b.wraps[0]!, wrap: toBase64(fromBase64(b.wraps[0]!.wrap).slice(0, 90)) }, ...b.wraps.slice(1)] }), 400, 'BAD_WRAP', 'wraps[0]');
    expectError(await revoke(h.hanne, { ...b, previous: toBase64(fromBase64(b.previous).slice(0, 40)) }), 400, 'BAD_LINK', 'previous');
    expectError(await revoke(h.hanne, { ...b, next: null }), 400, 'LINK_MISSING', 'next');
    // Dora holds no wrap: she cannot revoke anyone.
    expectError(await revoke(h.dora, b), 409, 'NO_CASE_KEY');
    expect(await snapshot()).toEqual(before);
    expect((await call(server, 'GET', path('key-wraps'), { token: h.hanne.token })).data.epoch).toBe(1);
  });

  it('drops every wrap of the revoked key, refuses its holder from then on, and seals later content under the new epoch', async () => {
    const { body, dataKey: newKey } = await revokeBody(h.hanne, h.greta.keyId);
    const res = await revoke(h.hanne, body);
    expect(res.status, JSON.stringify(res.data)).toBe(201);
    expect(res.data).toEqual({ epoch: 2, revoked: h.greta.keyId });
    // A resend of the same epoch (a lost answer): the epoch is taken, nothing changes.
    expectError(await revoke(h.hanne, body), 409, 'EPOCH_STALE', 'epoch');

    const gretas = await server.ctx.db.selectFrom('case_key_wrap').selectAll().where('case_id', '=', caseId).where('recipient_key_id', '=', h.greta.keyId).execute();
    expect(gretas).toEqual([]);
    // No wrap of the new epoch opens with Greta's key.
    const epoch2 = await server.ctx.db.selectFrom('case_key_wrap').selectAll().where('case_id', '=', caseId).where('epoch', '=', 2).execute();
    expect(epoch2.map((w) => w.kind).sort()).toEqual(['handler', 'handler', 'next', 'previous', 'recovery']);
    for (const w of epoch2.filter((w) => w.kind === 'handler' || w.kind === 'recovery')) {
      await expect(openSealedBox(h.greta.keys.ecdh, w.wrap, { caseId, epoch: 2, recipientKeyId: h.greta.keyId })).rejects.toThrow();
    }
    for (const p of ['sealed', 'key-wraps']) expectError(await call(server, 'GET', path(p), { token: h.greta.token }), 403, 'CASE_KEY_REVOKED');
    const gretaMessage = await sealMessage(gretaEpoch1Key, caseId, 'still here');
    expectError(await call(server, 'POST', path('messages/sealed'), { token: h.greta.token, json: gretaMessage }), 403, 'CASE_KEY_REVOKED');
    expectError(await revoke(h.greta, body), 403, 'CASE_KEY_REVOKED');
    expectError(await call(server, 'POST', path('upload-sessions'), { token: h.greta.token }), 403, 'CASE_KEY_REVOKED');

    // Hanne reads epoch 2 and walks back to the first: the report and the old message still open.
    const hanne = await opened(h.hanne);
    expect(hanne.view.epoch).toBe(2);
    expect(hanne.view.currentEpoch).toBe(2);
    expect(hanne.view.links.map((l: { kind: string }) => l.kind)).toEqual(['previous']);
    expect(Buffer.from(hanne.keys.dataKey)).toEqual(Buffer.from(newKey));
    expect([...hanne.keys.byEpoch.keys()].sort()).toEqual([1, 2]);
    // A message sealed with the old key, or naming no epoch, is refused: the page reads the case again.
    const stale = await sealMessage(hanne.keys.byEpoch.get(1)!, caseId, 'stale');
    expectError(await call(server, 'POST', path('messages/sealed'), { token: h.hanne.token, json: stale }), 409, 'EPOCH_STALE', 'epoch');
    expectError(await call(server, 'POST', path('messages/sealed'), { token: h.hanne.token, json: { ...stale, epoch: 1 } }), 409, 'EPOCH_STALE', 'epoch');
    const after = await sealMessage(newKey, caseId, `After the revocation ${MARKER}`);
    const sent = await call(server, 'POST', path('messages/sealed'), { token: h.hanne.token, json: { ...after, epoch: 2 } });
    expect(sent.status, JSON.stringify(sent.data)).toBe(201);
    const row = await server.ctx.db.selectFrom('case_message').select(['epoch', 'body_enc']).where('id', '=', after.id).executeTakeFirstOrThrow();
    expect(row.epoch).toBe(2);
    // Greta kept the first epoch's key: the new message does not open with it.
    await expect(openFieldText(gretaEpoch1Key, fieldContext(caseId, 'case_message.body_enc', after.id), row.body_enc)).rejects.toThrow();

    // Ida, the other remaining holder, opens both epochs' messages.
    const ida = await opened(h.ida);
    const idaParts = await openCaseParts(ida.keys, ida.view);
    expect(String(idaParts.details && (idaParts.details as { description: string }).description)).toContain(MARKER);
    const texts = new Map(idaParts.messages.map((m) => [m.id, m.text]));
    expect(texts.get(oldMessageId)).toContain('Before the revocation');
    expect(texts.get(after.id)).toContain('After the revocation');

    // The reporter's wrap is of the first epoch; the forward link, on her route only, reaches the second.
    const mine = await call(server, 'GET', '/api/private/case/my-case/sealed', { host: HOST, token: reporterToken });
    expect(mine.status, JSON.stringify(mine.data)).toBe(200);
    expect(mine.data.epoch).toBe(1);
    expect(mine.data.links.map((l: { kind: string }) => l.kind).sort()).toEqual(['next', 'previous']);
    const reporter = await openCaseKeys(mine.data, { reporterKey });
    expect(reporter.epoch).toBe(2);
    const reporterParts = await openCaseParts(reporter, mine.data);
    expect(new Map(reporterParts.messages.map((m) => [m.id, m.text])).get(after.id)).toContain('After the revocation');
    const answer = await sealMessage(reporter.dataKey, caseId, 'The reporter answers');
    expect((await call(server, 'POST', '/api/private/case/messages/sealed', { host: HOST, token: reporterToken, json: { ...answer, epoch: 2 } })).status).toBe(201);

    // Her page then wraps the newest key under her reporter key; the server drops the forward link it replaces.
    const epochWrap = (json: unknown) => call(server, 'PUT', '/api/private/case/my-case/epoch-wrap', { host: HOST, token: reporterToken, json });
    const wrap = toBase64(await wrapDataKey(reporterKey, reporter.dataKey, { caseId, epoch: 2 }));
    const before = await snapshot();
    expectError(await epochWrap({ epoch: 3, wrap }), 409, 'EPOCH_STALE', 'epoch');
    expectError(await epochWrap({ epoch: 2, wrap: toBase64(fromBase64(wrap).slice(0, 40)) }), 400, 'BAD_WRAP', 'wrap');
    expectError(await epochWrap({ epoch: 1, wrap }), 400, 'VALIDATION');
    expect(await snapshot()).toEqual(before);
    const stored = await epochWrap({ epoch: 2, wrap });
    expect(stored.status, JSON.stringify(stored.data)).toBe(201);
    expectError(await epochWrap({ epoch: 2, wrap }), 409, 'EPOCH_STALE', 'epoch');
    expect(await server.ctx.db.selectFrom('case_key_wrap').select('epoch').where('case_id', '=', caseId).where('kind', '=', 'next').execute()).toEqual([]);
    expect(await server.ctx.db.selectFrom('case_key_wrap').select('epoch').where('case_id', '=', caseId).where('kind', '=', 'reporter').execute()).toEqual([{ epoch: 2 }]);
    const again = await call(server, 'GET', '/api/private/case/my-case/sealed', { host: HOST, token: reporterToken });
    expect(again.data.epoch).toBe(2);
    expect(again.data.links.map((l: { kind: string }) => l.kind)).toEqual(['previous']);
    const walked = await openCaseKeys(again.data, { reporterKey });
    expect([...walked.byEpoch.keys()].sort()).toEqual([1, 2]);
  });

  it('refuses revoking the last handler who holds the key, and a later grant walks back to every epoch', async () => {
    const { body } = await revokeBody(h.hanne, h.ida.keyId);
    expect((await revoke(h.hanne, body)).status).toBe(201);
    const before = await snapshot();
    const self = await revokeBody(h.hanne, h.hanne.keyId);
    expectError(await revoke(h.hanne, self.body), 409, 'LAST_HOLDER', 'revoke');
    expect(await snapshot()).toEqual(before);

    // Hanne grants the case to Greta again (a deliberate act of a holder): the revocation lifts, and Greta walks back from epoch 3.
    const hanne = await opened(h.hanne);
    expect(hanne.keys.epoch).toBe(3);
    const wrap = toBase64(await sealToPublicKey(h.greta.keys.ecdhSpki, hanne.keys.dataKey, { caseId, epoch: 3, recipientKeyId: h.greta.keyId }));
    const granted = await call(server, 'POST', path('key-wraps'), { token: h.hanne.token, json: { recipientKeyId: h.greta.keyId, wrap } });
    expect(granted.status, JSON.stringify(granted.data)).toBe(201);
    const greta = await opened(h.greta);
    expect([...greta.keys.byEpoch.keys()].sort()).toEqual([1, 2, 3]);
    const parts = await openCaseParts(greta.keys, greta.view);
    expect(parts.messages.every((m) => m.text !== null)).toBe(true);
    expect(await openFieldText(greta.keys.byEpoch.get(1)!, fieldContext(caseId, DETAILS_COLUMN), fromBase64(greta.view.envelopes.details))).toContain(MARKER);
    // Ida, revoked now, is refused.
    expectError(await call(server, 'GET', path('sealed'), { token: h.ida.token }), 403, 'CASE_KEY_REVOKED');
    // The reporter walks from her second-epoch wrap through the new forward link.
    const mine = await call(server, 'GET', '/api/private/case/my-case/sealed', { host: HOST, token: reporterToken });
    expect(mine.data.epoch).toBe(2);
    expect((await openCaseKeys(mine.data, { reporterKey })).epoch).toBe(3);
  });
});
