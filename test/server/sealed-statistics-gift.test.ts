/**
 * The statistics key for handlers certified after it was made, and its rotation (issue 37;
 * docs/decisions/sealed-workspace.md "The statistics key, published and counted"). Hilde
 * makes the key; Bruno is certified later and holds none (the answer names Hilde as its
 * holder); Hilde's browser seals it to Bruno's certified key and the server stores that
 * wrap, but not one to an uncertified key, another company's key, a disabled colleague's,
 * nor a malformed one (400 with the product's code, nothing stored). Bruno then rotates
 * the key: categories of new cases go to the new key, the old case stays counted with the
 * old one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { addCompany } from './fixtures/company.ts';
import { call, expectError } from './api.ts';
import { sealCase, type PublicKeyLog } from '../helpers/sealed-case.ts';
import {
  countCategories, fromBase64, hashKeyLogEntry, keyId, makeHandlerKeys, makeStatisticsKey, openStatisticsPrivateKey, sealCategories, sealStatisticsPrivateKey, signKeyLogEntry,
  signStatisticsKey, toBase64, verifyKeyLog, verifyStatisticsKey, verifyStatisticsKeyChain, type HandlerKeys, type KeyLogEntry, type PublishedStatisticsKey,
} from '../../core/crypto/index.ts';

const HOST = 'statsgift.test';
const OTHER_HOST = 'statsgift-other.test';

let server: TestServer;
let officer: string;
let otherOfficer: string;
type Handler = { id: string; token: string; keys: HandlerKeys };
const h = {} as Record<'hilde' | 'bruno' | 'sven' | 'dora' | 'olga', Handler>;
const recovery = {} as Record<'own' | 'other', HandlerKeys>;

type Answer = Omit<PublicKeyLog, 'entries'> & { entries: KeyLogEntry[]; statisticsKey?: PublishedStatisticsKey | null };
type Statistics = {
  key: PublishedStatisticsKey | null;
  wrap: { recipientKeyId: string; box: string } | null;
  keys: { key: PublishedStatisticsKey; wrap: { recipientKeyId: string; box: string } | null; holders: string[] }[];
  boxes: { caseId: string; keyId: string; box: string }[];
  notHeld: number;
};
const log = async (host = HOST) => (await call(server, 'GET', '/api/public/key-log', { host })).data as Answer;
const statistics = async (who: Handler) => (await call(server, 'GET', '/api/handler/statistics', { token: who.token })).data as Statistics;
const give = (who: Handler, json: unknown) => call(server, 'POST', '/api/handler/statistics-key/wraps', { token: who.token, json });
const publish = (who: Handler, json: unknown) => call(server, 'POST', '/api/handler/statistics-key', { token: who.token, json });
const wrapRows = () => server.ctx.db.selectFrom('statistics_key_wrap').select(['stats_key_id', 'recipient_key_id']).orderBy('stats_key_id').orderBy('recipient_key_id').execute();
const ecdhId = (who: Handler) => keyId(who.keys.ecdhSpki);

async function account(company: string, name: string, officers: string[]): Promise<Handler> {
  const a = await createHandlerAccount(server.ctx.db, company, name, { email: `${name.toLowerCase()}@example.com`, officers });
  const keys = await makeHandlerKeys();
  await server.ctx.db.updateTable('handler_account').set({ ecdh_spki: Buffer.from(keys.ecdhSpki), ecdsa_spki: Buffer.from(keys.ecdsaSpki) }).where('id', '=', a.id).execute();
  return { id: a.id, token: a.token, keys };
}

async function anchor(company: string): Promise<HandlerKeys> {
  const keys = await makeHandlerKeys();
  const r = await call(server, 'PUT', `/api/admin/companies/${company}/key-anchor`, { headers: { authorization: `Bearer ${server.ctx.adminToken}` }, json: { ecdhSpki: toBase64(keys.ecdhSpki), ecdsaSpki: toBase64(keys.ecdsaSpki) } });
  expect(r.status).toBe(201);
  return keys;
}

async function certify(host: string, certifier: HandlerKeys, subject: Handler, officers: string[]) {
  const { entries } = await log(host);
  const prev = entries.at(-1);
  const entry = await signKeyLogEntry(certifier.ecdsa.privateKey, {
    seq: entries.length + 1, handlerId: subject.id, ecdhSpki: toBase64(subject.keys.ecdhSpki), ecdsaSpki: toBase64(subject.keys.ecdsaSpki), officerIds: officers,
    addedAt: new Date().toISOString(), action: 'add', prevHash: prev ? await hashKeyLogEntry(prev) : '', certifierKeyId: await keyId(certifier.ecdsaSpki),
  });
  expect((await call(server, 'POST', '/api/handler/key-log', { token: subject.token, json: entry })).status).toBe(201);
}

/** The private halves a handler holds, opened as her browser opens them (extractable: to seal on). */
async function opened(who: Handler, data: Statistics) {
  const own = await ecdhId(who);
  const pairs = [];
  for (const k of data.keys) {
    if (!k.wrap) continue;
    const pair = await openStatisticsPrivateKey({ privateKey: who.keys.ecdh.privateKey, publicKey: who.keys.ecdhSpki, keyId: own }, { spki: fromBase64(k.key.spki), keyId: k.key.keyId }, k.wrap.box, { extractable: true });
    expect(pair, k.key.keyId).not.toBeNull();
    pairs.push(pair!);
  }
  return pairs;
}

async function counted(who: Handler) {
  const data = await statistics(who);
  const total = { total: 0, unopened: 0, violation: {} as Record<string, number> };
  for (const pair of await opened(who, data)) {
    const c = await countCategories(pair, data.boxes.filter((b) => b.keyId === pair.keyId));
    total.total += c.total;
    total.unopened += c.unopened;
    for (const [k, n] of Object.entries(c.violation)) total.violation[k] = (total.violation[k] ?? 0) + n;
  }
  return { ...total, notHeld: data.notHeld };
}

async function sendCase(violation: string, statsKey: { spki: string; keyId: string }) {
  const read = await log();
  const sealed = await sealCase(read as PublicKeyLog, { officerId: officer, details: { violation } });
  const categories = await sealCategories(statsKey, sealed.caseId, { violation, channel: 'ONLINE_FORM' });
  return call(server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: { ...sealed.body, categories } });
}

let first: Awaited<ReturnType<typeof makeStatisticsKey>>;

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, sealedCases: 'browser', jobs: false });
  officer = (await addCompany(server.ctx.db, { id: 'statsgift', hosts: [HOST], officers: 1, languages: ['en'] })).officerIds[0]!;
  otherOfficer = (await addCompany(server.ctx.db, { id: 'statsgift-other', hosts: [OTHER_HOST], officers: 1, languages: ['en'] })).officerIds[0]!;
  recovery.own = await anchor('statsgift');
  recovery.other = await anchor('statsgift-other');
  h.hilde = await account('statsgift', 'Hilde', [officer]);
  await certify(HOST, recovery.own, h.hilde, [officer]);
  h.olga = await account('statsgift-other', 'Olga', [otherOfficer]);
  await certify(OTHER_HOST, recovery.other, h.olga, [otherOfficer]);

  // Hilde makes the statistics key: its private half sealed to the one certified key there is, hers.
  first = await makeStatisticsKey();
  const key = await signStatisticsKey({ privateKey: h.hilde.keys.ecdsa.privateKey, keyId: await keyId(h.hilde.keys.ecdsaSpki) }, first.spki);
  const made = await publish(h.hilde, { key, wraps: [await sealStatisticsPrivateKey(first, { spki: h.hilde.keys.ecdhSpki, keyId: await ecdhId(h.hilde) })] });
  expect(made.status, JSON.stringify(made.data)).toBe(201);
  expect((await sendCase('FRAUD', { spki: toBase64(first.spki), keyId: first.keyId })).status).toBe(201);

  // Certified after the key was made: Bruno and Dora (whose account is then disabled); Sven's key is never certified.
  h.bruno = await account('statsgift', 'Bruno', [officer]);
  await certify(HOST, h.hilde.keys, h.bruno, [officer]);
  h.dora = await account('statsgift', 'Dora', [officer]);
  await certify(HOST, recovery.own, h.dora, [officer]);
  await server.ctx.db.updateTable('handler_account').set({ disabled_at: new Date() }).where('id', '=', h.dora.id).execute();
  h.sven = await account('statsgift', 'Sven', [officer]);
});

afterAll(async () => {
  await server?.cleanup();
});

/** A gift as Hilde's browser makes it: each key she holds, sealed to the recipient's key. */
async function giftFrom(giver: Handler, to: HandlerKeys) {
  const recipientKeyId = await keyId(to.ecdhSpki);
  const wraps = [];
  for (const pair of await opened(giver, await statistics(giver))) wraps.push({ statsKeyId: pair.keyId, box: (await sealStatisticsPrivateKey(pair, { spki: to.ecdhSpki, keyId: recipientKeyId })).box });
  return { recipientKeyId, wraps };
}

describe('the statistics key for a handler certified later', () => {
  it('is not Bruno\'s yet: no wrap, no boxes, the case counted as not held, Hilde named as its holder', async () => {
    const mine = await statistics(h.bruno);
    expect(mine.key?.keyId).toBe(first.keyId);
    expect({ wrap: mine.wrap, boxes: mine.boxes, notHeld: mine.notHeld }).toEqual({ wrap: null, boxes: [], notHeld: 1 });
    expect(mine.keys.map((k) => k.holders)).toEqual([[await ecdhId(h.hilde)]]);
  });

  it('refuses malformed gifts with 400 and a code, and stores nothing', async () => {
    const before = await wrapRows();
    const good = await giftFrom(h.hilde, h.bruno.keys);
    const w = good.wraps[0]!;
    expectError(await give(h.hilde, { ...good, wraps: [{ ...w, box: toBase64(new Uint8Array(40)) }] }), 400, 'BAD_ENVELOPE', 'wraps[0].box');
    // A box of the right size but not of the box format's version.
    const unversioned = fromBase64(w.box);
    unversioned[0] = 0x7f;
    expectError(await give(h.hilde, { ...good, wraps: [{ ...w, box: toBase64(unversioned) }] }), 400, 'BAD_ENVELOPE', 'wraps[0].box');
    expectError(await give(h.hilde, { ...good, wraps: [{ ...w, box: '***' }] }), 400, 'VALIDATION');
    expectError(await give(h.hilde, { ...good, wraps: [] }), 400, 'VALIDATION');
    expectError(await give(h.hilde, { ...good, recipientKeyId: 'not-a-key' }), 400, 'VALIDATION');
    expectError(await give(h.hilde, { ...good, wraps: [w, w] }), 400, 'DUPLICATE_WRAP', 'wraps[1].statsKeyId');
    expectError(await give(h.hilde, 'nonsense'), 400, 'BAD_JSON');
    expect(await wrapRows()).toEqual(before);
  });

  it('is refused for an uncertified key, another company\'s, a disabled colleague\'s, a key nobody holds, and from a handler who holds none', async () => {
    const before = await wrapRows();
    expectError(await give(h.hilde, await giftFrom(h.hilde, h.sven.keys)), 400, 'WRAP_UNKNOWN_KEY', 'recipientKeyId');
    expectError(await give(h.hilde, await giftFrom(h.hilde, h.olga.keys)), 400, 'WRAP_UNKNOWN_KEY', 'recipientKeyId');
    expectError(await give(h.hilde, await giftFrom(h.hilde, h.dora.keys)), 400, 'WRAP_NOT_ENTITLED', 'recipientKeyId');
    // Bruno holds no statistics key to give; nor does Olga, of another company, hold this one.
    const toDora = await giftFrom(h.hilde, h.dora.keys);
    expectError(await give(h.bruno, { ...toDora, recipientKeyId: await ecdhId(h.hilde) }), 409, 'NO_STATISTICS_KEY', 'wraps[0].statsKeyId');
    expectError(await give(h.olga, { ...toDora, recipientKeyId: await ecdhId(h.olga) }), 409, 'NO_STATISTICS_KEY', 'wraps[0].statsKeyId');
    expectError(await give(h.hilde, { ...(await giftFrom(h.hilde, h.bruno.keys)), wraps: [{ statsKeyId: 'e'.repeat(64), box: toDora.wraps[0]!.box }] }), 409, 'NO_STATISTICS_KEY');
    expect((await call(server, 'POST', '/api/handler/statistics-key/wraps', { json: toDora })).status).toBe(401);
    expect(await wrapRows()).toEqual(before);
  });

  it('is given by Hilde to Bruno, who then counts the case; a second gift is 409 and changes nothing', async () => {
    const gift = await giftFrom(h.hilde, h.bruno.keys);
    const given = await give(h.hilde, gift);
    expect(given.status, JSON.stringify(given.data)).toBe(201);
    expect(given.data).toEqual({ recipientKeyId: await ecdhId(h.bruno), statsKeyIds: [first.keyId] });
    expect(await counted(h.bruno)).toEqual({ total: 1, unopened: 0, violation: { FRAUD: 1 }, notHeld: 0 });
    const rows = await wrapRows();
    expectError(await give(h.hilde, gift), 409, 'WRAP_EXISTS', 'recipientKeyId');
    expect(await wrapRows()).toEqual(rows);
  });
});

describe('rotating the statistics key', () => {
  let second: Awaited<ReturnType<typeof makeStatisticsKey>>;
  it('is done by a certified handler naming the newest key, signed as the first; a rotation that names none or another is refused', async () => {
    second = await makeStatisticsKey();
    const signer = { privateKey: h.bruno.keys.ecdsa.privateKey, keyId: await keyId(h.bruno.keys.ecdsaSpki) };
    const wraps = [];
    for (const who of [h.hilde, h.bruno]) wraps.push(await sealStatisticsPrivateKey(second, { spki: who.keys.ecdhSpki, keyId: await ecdhId(who) }));
    const before = await wrapRows();
    expectError(await publish(h.bruno, { key: await signStatisticsKey(signer, second.spki), wraps }), 409, 'STATISTICS_KEY_SET');
    expectError(await publish(h.bruno, { key: await signStatisticsKey(signer, second.spki, 'f'.repeat(64)), wraps }), 409, 'STATISTICS_KEY_CHANGED', 'key.replaces');
    // `replaces` is under the signature: added afterwards, the key does not verify.
    expectError(await publish(h.bruno, { key: { ...(await signStatisticsKey(signer, second.spki)), replaces: first.keyId }, wraps }), 400, 'STATISTICS_KEY_INVALID', 'key');
    expectError(await publish(h.sven, { key: await signStatisticsKey(signer, second.spki, first.keyId), wraps }), 409, 'KEYS_MISSING');
    expect(await wrapRows()).toEqual(before);
    expect((await server.ctx.db.selectFrom('company_statistics_key').select('key_id').execute()).map((r) => r.key_id)).toEqual([first.keyId]);

    const rotated = await publish(h.bruno, { key: await signStatisticsKey(signer, second.spki, first.keyId), wraps });
    expect(rotated.status, JSON.stringify(rotated.data)).toBe(201);
    expect(rotated.data.replaces).toBe(first.keyId);
    // The key log's answer publishes the new key, and a reporter's browser takes it.
    const read = await log();
    const checked = await verifyKeyLog(read.entries, fromBase64(read.anchor!.ecdsaSpki));
    expect(checked.ok).toBe(true);
    expect((await verifyStatisticsKey(read.statisticsKey, fromBase64(read.anchor!.ecdsaSpki), checked.ok ? checked.keys : []))?.keyId).toBe(second.keyId);
    // A second rotation over the same key came too late.
    const third = await makeStatisticsKey();
    expectError(await publish(h.hilde, { key: await signStatisticsKey({ privateKey: h.hilde.keys.ecdsa.privateKey, keyId: await keyId(h.hilde.keys.ecdsaSpki) }, third.spki, first.keyId), wraps: [await sealStatisticsPrivateKey(third, { spki: h.hilde.keys.ecdhSpki, keyId: await ecdhId(h.hilde) })] }), 409, 'STATISTICS_KEY_CHANGED', 'key.replaces');
  });

  it('sends the categories of new cases to the new key only; the old case stays counted with the old key, and both are counted', async () => {
    expectError(await sendCase('THEFT', { spki: toBase64(first.spki), keyId: first.keyId }), 409, 'STATISTICS_KEY_CHANGED', 'categories.keyId');
    expect((await sendCase('THEFT', { spki: toBase64(second.spki), keyId: second.keyId })).status).toBe(201);
    const rows = await server.ctx.db.selectFrom('case_categories').select('stats_key_id').execute();
    expect(rows.map((r) => r.stats_key_id).sort()).toEqual([first.keyId, second.keyId].sort());
    for (const who of [h.hilde, h.bruno]) expect(await counted(who)).toEqual({ total: 2, unopened: 0, violation: { FRAUD: 1, THEFT: 1 }, notHeld: 0 });

    // The handlers' browsers take the keys as one chain, newest first; out of order or cut short, none.
    const data = await statistics(h.hilde);
    expect(data.keys.map((k) => k.key.keyId)).toEqual([second.keyId, first.keyId]);
    const read = await log();
    const checked = await verifyKeyLog(read.entries, fromBase64(read.anchor!.ecdsaSpki));
    const certifiers = checked.ok ? checked.keys : [];
    const anchorSpki = fromBase64(read.anchor!.ecdsaSpki);
    expect((await verifyStatisticsKeyChain(data.keys.map((k) => k.key), anchorSpki, certifiers))?.map((k) => k.keyId)).toEqual([second.keyId, first.keyId]);
    expect(await verifyStatisticsKeyChain(data.keys.map((k) => k.key).reverse(), anchorSpki, certifiers)).toBeNull();
    expect(await verifyStatisticsKeyChain([data.keys[0]!.key], anchorSpki, certifiers)).toBeNull();
  });

  it('leaves a colleague certified after the rotation without either key until a holder gives both', async () => {
    const late = await account('statsgift', 'Lene', [officer]);
    await certify(HOST, recovery.own, late, [officer]);
    expect(await statistics(late)).toMatchObject({ wrap: null, boxes: [], notHeld: 2 });
    const gift = await giftFrom(h.bruno, late.keys);
    expect(gift.wraps.map((w) => w.statsKeyId)).toEqual([second.keyId, first.keyId]);
    expect((await give(h.bruno, gift)).status).toBe(201);
    expect(await counted(late)).toEqual({ total: 2, unopened: 0, violation: { FRAUD: 1, THEFT: 1 }, notHeld: 0 });
  });
});
