/**
 * The key log on the server (docs/decisions/blind-server.md, "Key authenticity";
 * server/keys/key-log.ts): the operator sets a company's recovery public key once; a
 * handler appends entries a certifier's browser signed (here: core/crypto, as the
 * browser will); the reporter's browser reads the log and checks it itself. The server
 * refuses an entry that does not extend the chain, names a handler of another company,
 * or ties a key to officers that are not the handler's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, expectError } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { hashKeyLogEntry, keyId, makeHandlerKeys, signKeyLogEntry, toBase64, verifyKeyLog, fromBase64, type HandlerKeys, type KeyLogEntry } from '../../core/crypto/index.ts';

const HOST = 'keys.test';
const OTHER = 'other-keys.test';
let server: TestServer;
let officers: string[];
let recovery: HandlerKeys;
let hanne: { id: string; token: string };
let otto: { id: string; token: string };
let stranger: { id: string; token: string };

const admin = (json: unknown, company = 'keys') =>
  call(server, 'PUT', `/api/admin/companies/${company}/key-anchor`, { headers: { authorization: `Bearer ${server.ctx.adminToken}` }, json });
const anchorBody = (k: HandlerKeys) => ({ ecdhSpki: toBase64(k.ecdhSpki), ecdsaSpki: toBase64(k.ecdsaSpki) });
const log = async (host = HOST) => (await call(server, 'GET', '/api/public/key-log', { host })).data as { anchor: { ecdsaSpki: string; fingerprint: string } | null; entries: KeyLogEntry[] };

async function entryFor(certifier: HandlerKeys, subject: HandlerKeys, handlerId: string, officerIds: string[], action: 'add' | 'remove' = 'add') {
  const { entries } = await log();
  const prev = entries.at(-1);
  return signKeyLogEntry(certifier.ecdsa.privateKey, {
    seq: entries.length + 1,
    handlerId,
    ecdhSpki: toBase64(subject.ecdhSpki),
    ecdsaSpki: toBase64(subject.ecdsaSpki),
    officerIds,
    addedAt: new Date().toISOString(),
    action,
    prevHash: prev ? await hashKeyLogEntry(prev) : '',
    certifierKeyId: await keyId(certifier.ecdsaSpki),
  });
}

const append = (token: string, entry: unknown) => call(server, 'POST', '/api/handler/key-log', { token, json: entry });

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false });
  officers = (await addCompany(server.ctx.db, { id: 'keys', hosts: [HOST], officers: 2 })).officerIds;
  await addCompany(server.ctx.db, { id: 'other-keys', hosts: [OTHER] });
  recovery = await makeHandlerKeys();
  hanne = await createHandlerAccount(server.ctx.db, 'keys', 'Hanne', { officers: [officers[0]!] });
  otto = await createHandlerAccount(server.ctx.db, 'keys', 'Otto', { officers: [officers[1]!] });
  stranger = await createHandlerAccount(server.ctx.db, 'other-keys', 'Stranger');
});
afterAll(async () => server?.cleanup());

describe('the key log', () => {
  it('has no anchor and no entries until the operator sets the recovery key', async () => {
    // Sealing is on by default: the answer says so beside the empty log (the form then sends the plain way).
    expect(await log()).toMatchObject({ anchor: null, entries: [], sealedCases: 'browser' });
    const k = await makeHandlerKeys();
    expectError(await append(hanne.token, await entryFor(recovery, k, hanne.id, [officers[0]!])), 409, 'KEY_ANCHOR_MISSING');
  });

  it('takes the recovery public key once, over the admin API only, and publishes its fingerprint', async () => {
    expectError(await admin({ ecdhSpki: 'AAAA', ecdsaSpki: 'AAAA' }), 400, 'KEY_INVALID');
    const set = await admin(anchorBody(recovery));
    expect(set.status).toBe(201);
    expect(set.data.fingerprint).toBe(await keyId(recovery.ecdsaSpki));
    expectError(await admin(anchorBody(await makeHandlerKeys())), 409, 'KEY_ANCHOR_SET');
    expect((await call(server, 'PUT', '/api/admin/companies/keys/key-anchor', { json: anchorBody(recovery) })).status).toBe(401);
    expect((await log()).anchor?.fingerprint).toBe(set.data.fingerprint);
    expect((await log(OTHER)).anchor).toBeNull();
  });

  it('appends entries the anchor and then a certified handler signed; the reporter side verifies the log it reads', async () => {
    const hanneKeys = await makeHandlerKeys();
    const first = await append(hanne.token, await entryFor(recovery, hanneKeys, hanne.id, [officers[0]!]));
    expect(first.status).toBe(201);
    expect(first.data.seq).toBe(1);
    // Hanne, now in the log, certifies her colleague.
    const ottoKeys = await makeHandlerKeys();
    expect((await append(hanne.token, await entryFor(hanneKeys, ottoKeys, otto.id, [officers[1]!]))).status).toBe(201);

    const read = await log();
    const checked = await verifyKeyLog(read.entries, fromBase64(read.anchor!.ecdsaSpki));
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.byOfficer.get(officers[0]!)?.map((k) => k.handlerId)).toEqual([hanne.id]);
    expect(checked.byOfficer.get(officers[1]!)?.map((k) => k.handlerId)).toEqual([otto.id]);
  });

  it('refuses an entry changed after signing, one off the chain, or signed by a key the log does not hold, and keeps the log as it was', async () => {
    const before = await log();
    const k = await makeHandlerKeys();
    const good = await entryFor(recovery, k, otto.id, [officers[1]!]);
    // A server (or anyone) that swaps the public key in a signed entry.
    const swapped = { ...good, ecdhSpki: toBase64((await makeHandlerKeys()).ecdhSpki) };
    const r1 = await append(otto.token, swapped);
    expectError(r1, 409, 'KEY_LOG_INVALID', 'signature');
    expectError(await append(otto.token, { ...good, seq: good.seq + 1 }), 409, 'KEY_LOG_INVALID');
    expectError(await append(otto.token, await entryFor(await makeHandlerKeys(), k, otto.id, [officers[1]!])), 409, 'KEY_LOG_INVALID', 'unknown-certifier');
    expectError(await append(otto.token, { not: 'an entry' }), 409, 'KEY_LOG_INVALID', 'format');
    expect(await log()).toEqual(before);
  });

  it('refuses an entry for a handler of another company, or with officers that are not the handler\'s own', async () => {
    const k = await makeHandlerKeys();
    expectError(await append(hanne.token, await entryFor(recovery, k, stranger.id, [])), 409, 'KEY_LOG_INVALID', 'handlerId');
    // Hanne would open officer B's new cases to herself.
    expectError(await append(hanne.token, await entryFor(recovery, k, hanne.id, [officers[0]!, officers[1]!])), 409, 'KEY_LOG_INVALID', 'officerIds');
    expectError(await append(hanne.token, await entryFor(recovery, k, hanne.id, [])), 409, 'KEY_LOG_INVALID', 'officerIds');
  });

  it('takes appends from signed-in handlers only, each into their own company\'s log', async () => {
    const k = await makeHandlerKeys();
    const entry = await entryFor(recovery, k, hanne.id, [officers[0]!]);
    expect((await call(server, 'POST', '/api/handler/key-log', { json: entry })).status).toBe(401);
    // The stranger's company has no anchor: their append lands nowhere near this log.
    expectError(await append(stranger.token, entry), 409, 'KEY_ANCHOR_MISSING');
  });

  it('gives two appends racing for one place one place each: the second is refused, never a fork', async () => {
    const a = await entryFor(recovery, await makeHandlerKeys(), hanne.id, [officers[0]!]);
    const b = await entryFor(recovery, await makeHandlerKeys(), otto.id, [officers[1]!]);
    expect(a.seq).toBe(b.seq);
    const results = await Promise.all([append(hanne.token, a), append(otto.token, b)]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    const read = await log();
    expect((await verifyKeyLog(read.entries, fromBase64(read.anchor!.ecdsaSpki))).ok).toBe(true);
  });
});
