/**
 * POST /api/handler/cases/summaries (server/handlers/summaries.ts; docs/decisions/inbox-search.md):
 * a sealed case comes as envelopes and the caller's own wrap, which open with her key as
 * her browser opens them (core/crypto), never as words; a server-keyed case comes opened
 * (category, language, the words to search). Only cases the caller may see are
 * answered; nothing is written (no audit entry, no seen mark: the unread count stays);
 * bad input is 400 with the product's error code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, expectError, form } from './api.ts';
import { sealCase } from '../helpers/sealed-case.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { keyId, makeHandlerKeys, openCaseKeys, openCaseParts, signKeyLogEntry, toBase64, type HandlerKeys, type KeyLogEntry } from '../../core/crypto/index.ts';

const HOST = 'summaries.test';
const MARKER = 'MARKER-summary-fuel-7a2e';
let server: TestServer;
let officers: string[];
type Handler = { id: string; token: string; keys: HandlerKeys };
let hanne: Handler;
let otto: Handler;
let sealedNumber: string;
let sealedId: string;
let plainNumber: string;

async function account(name: string, officerIds: string[]): Promise<Handler> {
  const a = await createHandlerAccount(server.ctx.db, 'summaries', name, { officers: officerIds });
  const keys = await makeHandlerKeys();
  await server.ctx.db.updateTable('handler_account').set({ ecdh_spki: Buffer.from(keys.ecdhSpki), ecdsa_spki: Buffer.from(keys.ecdsaSpki) }).where('id', '=', a.id).execute();
  return { ...a, keys };
}

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, sealedCases: 'browser' });
  officers = (await addCompany(server.ctx.db, { id: 'summaries', hosts: [HOST], officers: 2 })).officerIds;
  hanne = await account('Hanne', [officers[0]!]);
  otto = await account('Otto', [officers[1]!]);
  // Before any key is certified a plain report is server-keyed.
  const plain = await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, body: form('caseDto', caseDto(officers[0]!, { description: `Diesel ${MARKER}`, reportedUnit: 'Garage' })) });
  expect(plain.status, JSON.stringify(plain.data)).toBe(201);
  plainNumber = plain.data.caseDto.caseNumber;
  const recovery = await makeHandlerKeys();
  expect((await call(server, 'PUT', '/api/admin/companies/summaries/key-anchor', { headers: { authorization: `Bearer ${server.ctx.adminToken}` }, json: { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) } })).status).toBe(201);
  const entry = await signKeyLogEntry(recovery.ecdsa.privateKey, {
    seq: 1, handlerId: hanne.id, ecdhSpki: toBase64(hanne.keys.ecdhSpki), ecdsaSpki: toBase64(hanne.keys.ecdsaSpki), officerIds: [officers[0]!],
    addedAt: new Date().toISOString(), action: 'add', prevHash: '', certifierKeyId: await keyId(recovery.ecdsaSpki),
  });
  expect((await call(server, 'POST', '/api/handler/key-log', { token: hanne.token, json: entry })).status).toBe(201);
  const log = (await call(server, 'GET', '/api/public/key-log', { host: HOST })).data as { entries: KeyLogEntry[] };
  const sealed = await sealCase(log as never, { officerId: officers[0]!, details: { description: `The fuel card ${MARKER}`, violation: 'FRAUD', whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: 'Fleet', language: 'de' } });
  const res = await call(server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: sealed.body });
  expect(res.status, JSON.stringify(res.data)).toBe(201);
  sealedNumber = res.data.caseDto.caseNumber;
  sealedId = sealed.caseId;
});
afterAll(async () => server?.cleanup());

const summaries = (h: Handler, json: unknown) => call(server, 'POST', '/api/handler/cases/summaries', { token: h.token, json });

describe('the inbox summaries of a batch of cases', () => {
  it('gives a sealed case as envelopes that open with the caller\'s key, and a server-keyed one opened; writes nothing', async () => {
    const count = async (table: 'case_audit' | 'handler_case_seen') => Number((await server.ctx.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const before = { audit: await count('case_audit'), seen: await count('handler_case_seen') };
    const r = await summaries(hanne, { caseNumbers: [sealedNumber, plainNumber] });
    expect(r.status, JSON.stringify(r.data)).toBe(200);
    const bySealed = Object.fromEntries((r.data.summaries as { caseNumber: string }[]).map((s) => [s.caseNumber, s])) as Record<string, any>;
    const sealed = bySealed[sealedNumber];
    expect(sealed.sealed).toBe(true);
    // The server sends no word of a sealed case: only envelopes.
    expect(JSON.stringify(sealed)).not.toContain('fuel');
    expect(JSON.stringify(sealed)).not.toContain('FRAUD');
    const keys = await openCaseKeys(sealed, { ecdh: { privateKey: hanne.keys.ecdh.privateKey, publicKey: hanne.keys.ecdhSpki }, keyId: await keyId(hanne.keys.ecdhSpki) });
    const parts = await openCaseParts<{ description: string; violation: string; language: string }>(keys, sealed);
    expect(parts.details).toMatchObject({ description: `The fuel card ${MARKER}`, violation: 'FRAUD', language: 'de' });
    expect(sealed.caseId).toBe(sealedId);
    const plain = bySealed[plainNumber];
    expect(plain).toMatchObject({ sealed: false, violation: 'THEFT' });
    expect(plain.texts).toEqual(expect.arrayContaining([`Diesel ${MARKER}`, 'Garage', 'John Doe', 'Cashier']));
    expect({ audit: await count('case_audit'), seen: await count('handler_case_seen') }).toEqual(before);
  });

  it('leaves out cases the caller may not see, and gives no envelopes to a handler without a wrap', async () => {
    const r = await summaries(otto, { caseNumbers: [sealedNumber, plainNumber] });
    expect(r.status).toBe(200);
    expect(r.data.summaries).toEqual([]);
    const unknown = await summaries(hanne, { caseNumbers: ['0000000000000000'] });
    expect(unknown.data.summaries).toEqual([]);
  });

  it('refuses bad input with 400', async () => {
    expectError(await summaries(hanne, {}), 400, 'VALIDATION');
    expectError(await summaries(hanne, { caseNumbers: [] }), 400, 'VALIDATION');
    expectError(await summaries(hanne, { caseNumbers: ['12ab'] }), 400, 'VALIDATION');
    expectError(await summaries(hanne, { caseNumbers: Array.from({ length: 101 }, (_, i) => String(i).padStart(16, '0')) }), 400, 'VALIDATION');
    expectError(await summaries(hanne, { caseNumbers: [sealedNumber], extra: 1 }), 400, 'VALIDATION');
    expect((await call(server, 'POST', '/api/handler/cases/summaries', { json: { caseNumbers: [sealedNumber] } })).status).toBe(401);
  });
});
