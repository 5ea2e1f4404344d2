/**
 * The statistics key on the server (issue 37 Build 3; docs/decisions/sealed-cases.md "The
 * statistics key"): a certified handler publishes it once, signed and with its private
 * half sealed to her key; the key log's answer carries it; a sealed case's categories box
 * is stored only to that key and only well-formed (400 with the product's code, nothing
 * stored); no category is in clear in any row; a handler counts what she is given.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { addCompany } from './fixtures/company.ts';
import { call, expectError } from './api.ts';
import { sealCase, type PublicKeyLog } from '../helpers/sealed-case.ts';
import {
  countCategories, fromBase64, hashKeyLogEntry, keyId, makeHandlerKeys, makeStatisticsKey, openStatisticsPrivateKey, sealCategories, sealStatisticsPrivateKey, signKeyLogEntry,
  signStatisticsKey, toBase64, verifyKeyLog, verifyStatisticsKey, type HandlerKeys, type KeyLogEntry, type PublishedStatisticsKey,
} from '../../core/crypto/index.ts';

const HOST = 'sealedstats.test';
const CATEGORY = 'MARKERCATEGORY_7f3a';

let server: TestServer;
let officer: string;
let recovery: HandlerKeys;
let hildeKeys: HandlerKeys;
let hilde: { id: string; token: string };
let stranger: { id: string; token: string };

type Answer = PublicKeyLog & { statisticsKey?: PublishedStatisticsKey | null };
const log = async () => (await call(server, 'GET', '/api/public/key-log', { host: HOST })).data as Answer;
const create = (body: unknown) => call(server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: body });
const categoryRows = () => server.ctx.db.selectFrom('case_categories').selectAll().execute();

async function dump(): Promise<string> {
  const db = server.ctx.db;
  const rows = [
    ...(await db.selectFrom('report_case').selectAll().execute()),
    ...(await db.selectFrom('case_categories').selectAll().execute()),
    ...(await db.selectFrom('company_statistics_key').selectAll().execute()),
    ...(await db.selectFrom('statistics_key_wrap').selectAll().execute()),
    ...(await db.selectFrom('case_key_wrap').selectAll().execute()),
    ...(await db.selectFrom('case_status_event').selectAll().execute()),
  ];
  return rows.map((r) => Object.values(r).map((v) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') + Buffer.from(v).toString('base64') : String(v))).join('|')).join('\n');
}

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, sealedCases: 'browser', jobs: false });
  officer = (await addCompany(server.ctx.db, { id: 'sealedstats', hosts: [HOST], officers: 1, languages: ['en', 'de'] })).officerIds[0]!;
  recovery = await makeHandlerKeys();
  expect((await call(server, 'PUT', '/api/admin/companies/sealedstats/key-anchor', { headers: { authorization: `Bearer ${server.ctx.adminToken}` }, json: { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) } })).status).toBe(201);
  hilde = await createHandlerAccount(server.ctx.db, 'sealedstats', 'Hilde', { email: 'hilde@example.com', officers: [officer] });
  stranger = await createHandlerAccount(server.ctx.db, 'sealedstats', 'Sven', { email: 'sven@example.com', officers: [officer] });
  hildeKeys = await makeHandlerKeys();
  const entry = await signKeyLogEntry(recovery.ecdsa.privateKey, {
    seq: 1, handlerId: hilde.id, ecdhSpki: toBase64(hildeKeys.ecdhSpki), ecdsaSpki: toBase64(hildeKeys.ecdsaSpki), officerIds: [officer],
    addedAt: new Date().toISOString(), action: 'add', prevHash: '', certifierKeyId: await keyId(recovery.ecdsaSpki),
  });
  expect((await call(server, 'POST', '/api/handler/key-log', { token: hilde.token, json: entry })).status).toBe(201);
  await server.ctx.db.updateTable('handler_account').set({ ecdh_spki: Buffer.from(hildeKeys.ecdhSpki), ecdsa_spki: Buffer.from(hildeKeys.ecdsaSpki) }).where('id', '=', hilde.id).execute();
  // Sven has keys the log does not certify.
  const svenKeys = await makeHandlerKeys();
  await server.ctx.db.updateTable('handler_account').set({ ecdh_spki: Buffer.from(svenKeys.ecdhSpki), ecdsa_spki: Buffer.from(svenKeys.ecdsaSpki) }).where('id', '=', stranger.id).execute();
});

afterAll(async () => {
  await server?.cleanup();
});

describe('the statistics key', () => {
  it('takes no categories while no statistics key is published, and stores nothing', async () => {
    const read = await log();
    expect(read.statisticsKey).toBeNull();
    const sealed = await sealCase(read, { officerId: officer, details: { violation: CATEGORY } });
    const stray = await makeStatisticsKey();
    const categories = await sealCategories(stray, sealed.caseId, { violation: CATEGORY, channel: 'ONLINE_FORM' });
    expectError(await create({ ...sealed.body, categories }), 400, 'CATEGORIES_UNEXPECTED', 'categories');
    expect(await categoryRows()).toEqual([]);
    // Without one, the case goes as before: nothing sealed for statistics.
    expect((await create(sealed.body)).status).toBe(201);
    expect(await categoryRows()).toEqual([]);
  });

  let stats: Awaited<ReturnType<typeof makeStatisticsKey>>;
  it('is published once by a certified handler, signed by her key, its private half sealed to it; a bad one is refused', async () => {
    stats = await makeStatisticsKey();
    const hildeEcdh = await keyId(hildeKeys.ecdhSpki);
    const key = await signStatisticsKey({ privateKey: hildeKeys.ecdsa.privateKey, keyId: await keyId(hildeKeys.ecdsaSpki) }, stats.spki);
    const wraps = [await sealStatisticsPrivateKey(stats, { spki: hildeKeys.ecdhSpki, keyId: hildeEcdh })];
    const post = (token: string, json: unknown) => call(server, 'POST', '/api/handler/statistics-key', { token, json });
    expect((await call(server, 'POST', '/api/handler/statistics-key', { json: { key, wraps } })).status).toBe(401);
    // Signed by a key the log does not certify, or a key swapped under the signature.
    const svenSigned = await signStatisticsKey({ privateKey: (await makeHandlerKeys()).ecdsa.privateKey, keyId: key.certifierKeyId }, stats.spki);
    expectError(await post(hilde.token, { key: svenSigned, wraps }), 400, 'STATISTICS_KEY_INVALID', 'key');
    const other = await makeStatisticsKey();
    expectError(await post(hilde.token, { key: { ...key, spki: toBase64(other.spki), keyId: other.keyId }, wraps }), 400, 'STATISTICS_KEY_INVALID', 'key');
    // The private half must be sealed to a certified key, hers among them, and be a box.
    expectError(await post(hilde.token, { key, wraps: [{ recipientKeyId: 'a'.repeat(64), box: wraps[0]!.box }] }), 400, 'WRAP_UNKNOWN_KEY');
    expectError(await post(hilde.token, { key, wraps: [{ ...wraps[0]!, box: toBase64(new Uint8Array(40)) }] }), 400, 'BAD_ENVELOPE', 'wraps[0].box');
    expectError(await post(hilde.token, { key: { ...key, keyId: 'nothex' }, wraps }), 400, 'VALIDATION');
    expectError(await post(stranger.token, { key, wraps }), 409, 'KEYS_MISSING');
    expect(await server.ctx.db.selectFrom('company_statistics_key').selectAll().execute()).toEqual([]);
    const set = await post(hilde.token, { key, wraps });
    expect(set.status, JSON.stringify(set.data)).toBe(201);
    expectError(await post(hilde.token, { key, wraps }), 409, 'STATISTICS_KEY_SET');
    // The reporter's browser checks what the key log gives against the log it verified.
    const read = await log();
    const checked = await verifyKeyLog(read.entries, fromBase64(read.anchor!.ecdsaSpki));
    expect(checked.ok).toBe(true);
    expect((await verifyStatisticsKey(read.statisticsKey, fromBase64(read.anchor!.ecdsaSpki), checked.ok ? checked.keys : []))?.keyId).toBe(stats.keyId);
  });

  it('stores a case\'s categories box only well-formed and to the published key; nothing of a category in clear; Hilde counts them', async () => {
    const read = await log();
    const published = { spki: read.statisticsKey!.spki, keyId: read.statisticsKey!.keyId };
    const sealed = await sealCase(read, { officerId: officer, details: { violation: CATEGORY } });
    const good = await sealCategories(published, sealed.caseId, { violation: CATEGORY, channel: 'ONLINE_FORM' });
    expectError(await create({ ...sealed.body, categories: { ...good, box: toBase64(new Uint8Array(200)) } }), 400, 'BAD_ENVELOPE', 'categories.box');
    expectError(await create({ ...sealed.body, categories: { ...good, box: toBase64(fromBase64(good.box).subarray(0, 60)) } }), 400, 'BAD_ENVELOPE', 'categories.box');
    expectError(await create({ ...sealed.body, categories: { ...good, box: '***' } }), 400, 'VALIDATION');
    expectError(await create({ ...sealed.body, categories: { ...good, keyId: 'b'.repeat(64) } }), 409, 'STATISTICS_KEY_CHANGED', 'categories.keyId');
    expect(await categoryRows()).toEqual([]);
    expect((await create({ ...sealed.body, categories: good })).status).toBe(201);
    const rows = await categoryRows();
    expect(rows.map((r) => [r.case_id, r.stats_key_id])).toEqual([[sealed.caseId, stats.keyId]]);
    expect(Buffer.from(rows[0]!.box).toString('base64')).toBe(good.box);
    const all = await dump();
    expect(all).not.toContain(CATEGORY);

    // Hilde's browser: the key, its private half sealed to her, every box; Sven (not certified) gets no private half.
    const mine = await call(server, 'GET', '/api/handler/statistics', { token: hilde.token });
    expect(mine.status).toBe(200);
    expect(JSON.stringify(mine.data)).not.toContain(CATEGORY);
    const opened = await openStatisticsPrivateKey({ privateKey: hildeKeys.ecdh.privateKey, publicKey: hildeKeys.ecdhSpki, keyId: await keyId(hildeKeys.ecdhSpki) }, { spki: fromBase64(mine.data.key.spki), keyId: mine.data.key.keyId }, mine.data.wrap.box);
    expect(opened).not.toBeNull();
    expect(await countCategories(opened!, mine.data.boxes)).toEqual({ violation: { [CATEGORY]: 1 }, channel: { ONLINE_FORM: 1 }, unopened: 0, total: 1 });
    const his = await call(server, 'GET', '/api/handler/statistics', { token: stranger.token });
    expect({ wrap: his.data.wrap, boxes: his.data.boxes }).toEqual({ wrap: null, boxes: [] });
    expect((await call(server, 'GET', '/api/handler/statistics')).status).toBe(401);
  });
});
