/**
 * Sealed cases on the server (docs/decisions/sealed-cases.md "Sealed cases";
 * server/cases/sealed.ts): with SEALED_CASES=browser a company with a key anchor and a
 * certified handler key for the officer takes a case sealed in the browser, stores its
 * envelopes and wraps as sent and no server key; anything malformed, or a wrap set that
 * misses an entitled key or names another, is refused with 400 and its code, and
 * nothing is stored. With the setting off the route refuses and the key-log answer is
 * as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, countRows, expectError } from './api.ts';
import { Browser, signIn } from './identity-flow.ts';
import { sealCase, DETAILS_COLUMN, type PublicKeyLog, certifiedHandler, setKeyAnchor, followedAccount } from '../helpers/sealed-case.ts';
import {
  fieldContext, sealField, fromBase64, keyId, openFieldText, openSealedBox, toBase64, unwrapDataKey, type HandlerKeys,
} from '../../core/crypto/index.ts';

const HOST = 'sealed.test';
const MARKER = 'MARKER-sealed-7f3a';
let server: TestServer;
let officers: string[];
let recovery: HandlerKeys;
let hanneKeys: HandlerKeys;
let ottoKeys: HandlerKeys;
let hanne: { id: string; token: string };
let otto: { id: string; token: string };

const log = async () => (await call(server, 'GET', '/api/public/key-log', { host: HOST })).data as PublicKeyLog & { sealedCases?: string };
const create = (body: unknown, headers: Record<string, string> = {}) => call(server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: body, headers });
const wrapCount = async () => Number((await server.ctx.db.selectFrom('case_key_wrap').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);


const details = { description: `Money went missing ${MARKER}`, whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: 'Till' };

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, sealedCases: 'browser' });
  officers = (await addCompany(server.ctx.db, { id: 'sealed', hosts: [HOST], officers: 3 })).officerIds;
  recovery = await setKeyAnchor(server, 'sealed');
  ({ account: hanne, keys: hanneKeys } = await certifiedHandler(server, HOST, { companyId: 'sealed', name: 'Hanne', officerIds: [officers[0]!], certifier: recovery }));
  ({ account: otto, keys: ottoKeys } = await certifiedHandler(server, HOST, { companyId: 'sealed', name: 'Otto', officerIds: [officers[1]!], certifier: hanneKeys }));
});
afterAll(async () => server?.cleanup());


describe('a sealed case', () => {
  it('is stored as the browser sealed it, with no server key; the entitled handler, the recovery key and the reporter open it, the other officer\'s handler has no wrap', async () => {
    const read = await log();
    expect(read.sealedCases).toBe('browser');
    const account = await followedAccount(server, HOST, 'a long sealed password');
    const sealed = await sealCase(read, { officerId: officers[0]!, details, whistleblower: { name: `Wanda ${MARKER}` }, account });
    const res = await create(sealed.body);
    expect(res.status, JSON.stringify(res.data)).toBe(201);
    expect(res.data.caseDto.caseNumber).toBe(account.caseNumber);

    const row = await server.ctx.db.selectFrom('report_case').selectAll().where('id', '=', sealed.caseId).executeTakeFirstOrThrow();
    expect(row.sealed).toBe(true);
    expect(row.wrapped_key).toBeNull();
    expect(row.protection_officer_id).toBe(officers[0]);
    expect(toBase64(row.details_enc)).toBe(sealed.body.envelopes.details);
    expect(await server.ctx.caseKeys.exists(sealed.caseId)).toBe(false);
    // The envelope is the browser's, not the server's: it opens under the browser's data key only.
    expect(await openFieldText(sealed.dataKey, fieldContext(sealed.caseId, DETAILS_COLUMN), row.details_enc)).toContain(MARKER);

    const wraps = await server.ctx.db.selectFrom('case_key_wrap').selectAll().where('case_id', '=', sealed.caseId).execute();
    const hanneId = await keyId(hanneKeys.ecdhSpki);
    expect(wraps.map((w) => w.kind).sort()).toEqual(['handler', 'recovery', 'reporter']);
    const ottoId = await keyId(ottoKeys.ecdhSpki);
    expect(wraps.some((w) => w.recipient_key_id === ottoId)).toBe(false);
    const at = { caseId: sealed.caseId, epoch: 1 };
    const hanneWrap = wraps.find((w) => w.recipient_key_id === hanneId)!;
    expect(Buffer.from(await openSealedBox(hanneKeys.ecdh, hanneWrap.wrap, { ...at, recipientKeyId: hanneId }))).toEqual(Buffer.from(sealed.dataKey));
    const recoveryId = await keyId(recovery.ecdhSpki);
    const recoveryWrap = wraps.find((w) => w.recipient_key_id === recoveryId)!;
    expect(Buffer.from(await openSealedBox(recovery.ecdh, recoveryWrap.wrap, { ...at, recipientKeyId: recoveryId }))).toEqual(Buffer.from(sealed.dataKey));
    const reporterWrap = wraps.find((w) => w.kind === 'reporter')!;
    expect(Buffer.from(await unwrapDataKey(account.reporterKey, reporterWrap.wrap, at))).toEqual(Buffer.from(sealed.dataKey));
    // Otto's key (officer B) opens none of them: there is no wrap for it.
    for (const w of wraps.filter((w) => w.kind !== 'reporter')) {
      await expect(openSealedBox(ottoKeys.ecdh, w.wrap, { ...at, recipientKeyId: await keyId(ottoKeys.ecdhSpki) })).rejects.toThrow();
    }
    // The handler's workspace gets the envelopes and her own wrap, and opens them.
    const view = await call(server, 'GET', `/api/handler/cases/${account.caseNumber}/sealed`, { token: hanne.token });
    expect(view.status, JSON.stringify(view.data)).toBe(200);
    expect(view.data.envelopes).toEqual(sealed.body.envelopes);
    expect(view.data.wrap.recipientKeyId).toBe(hanneId);
    const hanneDk = await openSealedBox(hanneKeys.ecdh, fromBase64(view.data.wrap.wrap), { ...at, recipientKeyId: hanneId });
    expect(await openFieldText(hanneDk, fieldContext(sealed.caseId, DETAILS_COLUMN), fromBase64(view.data.envelopes.details))).toContain(MARKER);
    // Officer B's handler cannot even see it.
    expectError(await call(server, 'GET', `/api/handler/cases/${account.caseNumber}/sealed`, { token: otto.token }), 404, 'CASE_NOT_FOUND');
    // The reporter signs in (here the plain path: the server derives the same verifier) and opens it with the reporter key.
    const tokens = await signIn(new Browser(server, HOST), account.caseNumber, 'a long sealed password');
    const mine = await call(server, 'GET', '/api/private/case/my-case/sealed', { host: HOST, token: tokens.access_token });
    expect(mine.status, JSON.stringify(mine.data)).toBe(200);
    expect(mine.data.wrap.kind).toBe('reporter');
    // Beside it, the clear columns the private area shows: the status history, the pending action, the chosen officer.
    expect(mine.data.caseStatusHistory.map((e: { status: string }) => e.status)).toEqual(['RECEIVED']);
    expect(mine.data.pendingWhistleblowerAction).toBe(false);
    expect(mine.data.protectionOfficer.id).toBe(officers[0]);
    const reporterDk = await unwrapDataKey(account.reporterKey, fromBase64(mine.data.wrap.wrap), at);
    expect(await openFieldText(reporterDk, fieldContext(sealed.caseId, DETAILS_COLUMN), fromBase64(mine.data.envelopes.details))).toContain(MARKER);
    // Messages both ways, sealed by the sender under the data key, bound to their row ids.
    const MESSAGE = 'case_message.body_enc';
    const sealMessage = async (text: string) => {
      const id = crypto.randomUUID();
      return { id, body: toBase64(await sealField(sealed.dataKey, fieldContext(sealed.caseId, MESSAGE, id), text)) };
    };
    const fromHanne = await sealMessage(`Please tell us more ${MARKER}`);
    const sentByHanne = await call(server, 'POST', `/api/handler/cases/${account.caseNumber}/messages/sealed`, { token: hanne.token, json: { ...fromHanne, answerWanted: true } });
    expect(sentByHanne.status, JSON.stringify(sentByHanne.data)).toBe(201);
    const fromReporter = await sealMessage(`Here is more ${MARKER}`);
    const sentByReporter = await call(server, 'POST', '/api/private/case/messages/sealed', { host: HOST, token: tokens.access_token, json: fromReporter });
    expect(sentByReporter.status, JSON.stringify(sentByReporter.data)).toBe(201);
    expectError(await call(server, 'POST', '/api/private/case/messages/sealed', { host: HOST, token: tokens.access_token, json: { id: crypto.randomUUID(), body: toBase64(Uint8Array.of(1, 2, 3)) } }), 400, 'BAD_ENVELOPE', 'body');
    expectError(await call(server, 'POST', '/api/private/case/messages/sealed', { host: HOST, token: tokens.access_token, json: fromReporter }), 409, 'MESSAGE_ID_TAKEN', 'id');
    expectError(await call(server, 'POST', `/api/handler/cases/${account.caseNumber}/messages/sealed`, { token: otto.token, json: await sealMessage('x') }), 404, 'CASE_NOT_FOUND');
    const thread = (await call(server, 'GET', '/api/private/case/my-case/sealed', { host: HOST, token: tokens.access_token })).data.messages as { id: string; body: string; createdByUserId: string; answerWanted: boolean }[];
    expect(thread.map((m) => m.id)).toEqual([fromHanne.id, fromReporter.id]);
    expect(thread[0]!.answerWanted).toBe(true);
    expect(thread[1]!.createdByUserId).toBe(account.caseNumber);
    const handlerThread = (await call(server, 'GET', `/api/handler/cases/${account.caseNumber}/sealed`, { token: hanne.token })).data.messages as { id: string; body: string }[];
    for (const m of handlerThread) expect(await openFieldText(hanneDk, fieldContext(sealed.caseId, MESSAGE, m.id), fromBase64(m.body))).toContain(MARKER);
    // A message moved to another row does not open.
    await expect(openFieldText(reporterDk, fieldContext(sealed.caseId, MESSAGE, thread[1]!.id), fromBase64(thread[0]!.body))).rejects.toThrow();
    // The server's own paths that need a server key say so (409), never a 5xx.
    expectError(await call(server, 'GET', `/api/handler/cases/${account.caseNumber}`, { token: hanne.token }), 409, 'CASE_SEALED');
    expectError(await call(server, 'GET', '/api/private/case/my-case', { host: HOST, token: tokens.access_token }), 409, 'CASE_SEALED');
    // Its upload session holds no key: the browser seals the files (test/server/sealed-files.test.ts).
    const uploadSession = await call(server, 'POST', '/api/private/case/upload-sessions', { host: HOST, token: tokens.access_token });
    expect(uploadSession.status).toBe(201);
    expect((await server.ctx.db.selectFrom('upload_session').select('wrapped_key').where('bound_case_id', '=', sealed.caseId).executeTakeFirstOrThrow()).wrapped_key).toBeNull();
    // Nothing the server keeps holds the marker in clear.
    const dump = JSON.stringify(await server.ctx.db.selectFrom('report_case').selectAll().execute()) + JSON.stringify(await server.ctx.db.selectFrom('case_key_wrap').selectAll().execute()) + JSON.stringify(await server.ctx.db.selectFrom('case_message').selectAll().execute());
    expect(dump).not.toContain(MARKER);
  });

  it('takes an anonymous, unfollowed case with no reporter wrap', async () => {
    const sealed = await sealCase(await log(), { officerId: officers[0]!, details });
    const res = await create(sealed.body);
    expect(res.status, JSON.stringify(res.data)).toBe(201);
    expect(await server.ctx.db.selectFrom('case_account').select('case_id').where('case_id', '=', sealed.caseId).executeTakeFirst()).toBeUndefined();
  });

  it('refuses malformed envelopes, a wrap set that misses an entitled key or names another, and stores none of them', async () => {
    const read = await log();
    const base = await sealCase(read, { officerId: officers[0]!, details });
    const before = { rows: await countRows(server), wraps: await wrapCount() };
    const b64 = (bytes: Uint8Array) => toBase64(bytes);
    const detailsBytes = fromBase64(base.body.envelopes.details);
    const badVersion = Uint8Array.from(detailsBytes);
    badVersion[0] = 9;
    const withDetails = (d: string) => ({ ...base.body, envelopes: { ...base.body.envelopes, details: d } });
    expectError(await create(withDetails(b64(badVersion))), 400, 'BAD_ENVELOPE', 'envelopes.details');
    expectError(await create(withDetails(b64(detailsBytes.subarray(0, 20)))), 400, 'BAD_ENVELOPE', 'envelopes.details');
    expectError(await create({ ...base.body, envelopes: { details: base.body.envelopes.details, whistleblower: b64(Uint8Array.of(1, 2, 3)) } }), 400, 'BAD_ENVELOPE', 'envelopes.whistleblower');

    const hanneId = await keyId(hanneKeys.ecdhSpki);
    const withoutHanne = base.body.wraps.filter((w) => w.recipientKeyId !== hanneId);
    expectError(await create({ ...base.body, wraps: withoutHanne }), 400, 'WRAP_MISSING', 'wraps');
    const recoveryId = await keyId(recovery.ecdhSpki);
    expectError(await create({ ...base.body, wraps: base.body.wraps.filter((w) => w.recipientKeyId !== recoveryId) }), 400, 'WRAP_MISSING', 'wraps');
    // Otto is certified, but for officer B: a wrap to him would open officer A's case to him.
    const ottoId = await keyId(ottoKeys.ecdhSpki);
    const hanneWrap = base.body.wraps.find((w) => w.recipientKeyId === hanneId)!;
    expectError(await create({ ...base.body, wraps: [...base.body.wraps, { ...hanneWrap, recipientKeyId: ottoId }] }), 400, 'WRAP_UNKNOWN_KEY');
    expectError(await create({ ...base.body, wraps: [...base.body.wraps, { ...hanneWrap, recipientKeyId: 'ab'.repeat(32) }] }), 400, 'WRAP_UNKNOWN_KEY');
    // The recovery key named as a handler's, a wrap twice, a box of the wrong size or version.
    expectError(await create({ ...base.body, wraps: base.body.wraps.map((w) => (w.recipientKeyId === recoveryId ? { ...w, kind: 'handler' } : w)) }), 400, 'WRAP_UNKNOWN_KEY');
    expectError(await create({ ...base.body, wraps: [...base.body.wraps, hanneWrap] }), 400, 'DUPLICATE_WRAP');
    const shortBox = { ...hanneWrap, wrap: b64(fromBase64(hanneWrap.wrap).subarray(0, 100)) };
    expectError(await create({ ...base.body, wraps: base.body.wraps.map((w) => (w.recipientKeyId === hanneId ? shortBox : w)) }), 400, 'BAD_WRAP');
    const boxBytes = Uint8Array.from(fromBase64(hanneWrap.wrap));
    boxBytes[0] = 1;
    expectError(await create({ ...base.body, wraps: base.body.wraps.map((w) => (w.recipientKeyId === hanneId ? { ...w, wrap: b64(boxBytes) } : w)) }), 400, 'BAD_WRAP');
    // A reporter wrap on a case nobody follows; a followed case without one.
    expectError(await create({ ...base.body, wraps: [...base.body.wraps, { recipientKeyId: 'reporter', kind: 'reporter', wrap: b64(new Uint8Array(61).fill(1)) }] }), 400, 'WRAP_UNEXPECTED');
    const account = await followedAccount(server, HOST, 'another sealed password');
    expectError(await create({ ...base.body, caseAccount: account.caseAccount }), 400, 'WRAP_MISSING', 'wraps');
    // Not base64, not a UUID.
    expect((await create(withDetails('!!!'))).status).toBe(400);
    expect((await create({ ...base.body, caseId: 'not-a-uuid' })).status).toBe(400);
    expect({ rows: await countRows(server), wraps: await wrapCount() }).toEqual(before);
    expect(await server.ctx.db.selectFrom('report_case').select('id').where('id', '=', base.caseId).executeTakeFirst()).toBeUndefined();
  });

  it('refuses an officer with no certified key (409 SEALING_UNAVAILABLE) and a case id already in use (409 CASE_ID_TAKEN)', async () => {
    const read = await log();
    const none = await sealCase(read, { officerId: officers[2]!, details });
    expectError(await create(none.body), 409, 'SEALING_UNAVAILABLE', 'protectionOfficer.id');
    const first = await sealCase(read, { officerId: officers[0]!, details });
    expect((await create(first.body)).status).toBe(201);
    const again = await sealCase(read, { officerId: officers[0]!, details });
    const rows = await countRows(server);
    expectError(await create({ ...again.body, caseId: first.caseId }), 409, 'CASE_ID_TAKEN', 'caseId');
    expect(await countRows(server)).toEqual(rows);
  });
});

describe('with SEALED_CASES off (the default)', () => {
  it('the sealed route refuses and the key-log answer is as before', async () => {
    const off = await startTestServer();
    try {
      expect(off.ctx.config.sealedCases).toBe('off');
      const res = await call(off, 'POST', '/api/public/case/new/sealed', { host: 'localhost', json: {} });
      expectError(res, 409, 'SEALED_CASES_OFF');
      const answer = await call(off, 'GET', '/api/public/key-log', { host: 'localhost' });
      expect(Object.keys(answer.data).sort()).toEqual(['anchor', 'entries']);
    } finally {
      await off.cleanup();
    }
  });
});
