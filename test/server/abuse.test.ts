/**
 * Finding 5 of issue 11: anonymous submission can no longer be flooded or posted
 * from another site. Per-client budgets (429 with Retry-After and the product's
 * error body), a proof-of-work per submission, cross-site refusal of every
 * state-changing call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, countRows, expectError, form, oralDto, solveChallenge } from './api.ts';
import { isSolution, leadingZeroBits, POW_HEADER, proofHeader, solve, type PowChallenge } from '../../core/pow.ts';
import { ProofOfWork } from '../../server/security/pow.ts';

const HOST = 'acme.test';
const BUDGET = 7;

async function challenge(server: TestServer): Promise<PowChallenge> {
  const res = await call(server, 'GET', '/api/public/pow/challenge');
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return res.data as PowChallenge;
}

describe('per-client budget on anonymous submission', () => {
  let server: TestServer;
  let officer: string;
  beforeAll(async () => {
    server = await startTestServer({ submitRateLimit: { max: BUDGET, windowSeconds: 600 }, challengeRateLimit: { max: 1000, windowSeconds: 600 }, powDifficulty: 4 });
    officer = (await addCompany(server.ctx.db, { id: 'acme', hosts: [HOST] })).officerIds[0]!;
  });
  afterAll(() => server?.cleanup());

  it('100 anonymous submissions in 10 s from one client: at most the budget succeed, the rest get 429 with Retry-After and a code', async () => {
    const before = await countRows(server);
    const started = Date.now();
    const paths = ['by-form', 'by-phone', 'by-meeting'] as const;
    const results: Array<{ status: number; headers: Headers; data: any }> = [];
    // Ten at a time, every one with a valid proof: only the budget stops them.
    for (let batch = 0; batch < 10; batch++) {
      results.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, (_, i) => {
            const p = paths[(batch * 10 + i) % 3]!;
            return p === 'by-form'
              ? call(server, 'POST', `/api/public/case/new/${p}`, { host: HOST, body: form('caseDto', caseDto(officer)) })
              : call(server, 'POST', `/api/public/case/new/${p}`, { host: HOST, json: oralDto(officer) });
          }),
        )),
      );
    }
    expect(Date.now() - started).toBeLessThan(10_000);
    const created = results.filter((r) => r.status === 201);
    const limited = results.filter((r) => r.status === 429);
    expect(created.length).toBe(BUDGET);
    expect(limited.length).toBe(100 - BUDGET);
    for (const r of limited) {
      expectError(r, 429, 'RATE_LIMITED');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(600);
    }
    expect((await countRows(server)).cases).toBe(before.cases + BUDGET);
  });

  it('keys the counter by a keyed hash of the address, never the address itself', async () => {
    const rows = await server.ctx.db.selectFrom('rate_limit').selectAll().execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(r.key).toMatch(/^(submit|challenge):[\w-]{43}$/);
      expect(r.key).not.toContain('127.0.0.1');
    }
  });
});

describe('proof-of-work', () => {
  let server: TestServer;
  let officer: string;
  beforeAll(async () => {
    server = await startTestServer({ powDifficulty: 10 });
    officer = (await addCompany(server.ctx.db, { id: 'acme', hosts: [HOST] })).officerIds[0]!;
  });
  afterAll(() => server?.cleanup());

  it('hands out a challenge with the configured work factor, solvable with the shared solver', async () => {
    const c = await challenge(server);
    expect(c.difficulty).toBe(10);
    expect(Date.parse(c.expiresAt)).toBeGreaterThan(Date.now());
    const nonce = solve(c.challenge, c.difficulty)!;
    expect(isSolution(c.challenge, nonce, 10)).toBe(true);
    expect(leadingZeroBits(new Uint8Array([0, 0x1f]))).toBe(11);
  });

  it('refuses a submission without a proof, with a wrong one, a forged one, or one spent already', async () => {
    const post = (headers: Record<string, string>) => call(server, 'POST', '/api/public/case/new/by-phone', { host: HOST, json: oralDto(officer), headers, pow: false });
    const before = await countRows(server);
    expectError(await post({}), 403, 'POW_REQUIRED');
    const c = await challenge(server);
    let wrong = 0;
    while (isSolution(c.challenge, String(wrong), c.difficulty)) wrong++;
    expectError(await post({ [POW_HEADER]: proofHeader({ challenge: c.challenge, nonce: String(wrong) }) }), 403, 'POW_INVALID');
    // A client cannot lower the work factor written in the challenge: the signature breaks.
    const easier = c.challenge.replace(/^v1\.10\./, 'v1.1.');
    expectError(await post({ [POW_HEADER]: proofHeader({ challenge: easier, nonce: solve(easier, 1)! }) }), 403, 'POW_INVALID');
    expectError(await post({ [POW_HEADER]: 'garbage' }), 403, 'POW_INVALID');
    const good = { [POW_HEADER]: proofHeader({ challenge: c.challenge, nonce: solve(c.challenge, c.difficulty)! }) };
    expect((await post(good)).status).toBe(201);
    expectError(await post(good), 403, 'POW_REUSED');
    expect((await countRows(server)).cases).toBe(before.cases + 1);
  });

  it('guards every channel', async () => {
    expectError(await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, body: form('caseDto', caseDto(officer)), pow: false }), 403, 'POW_REQUIRED');
    expectError(await call(server, 'POST', '/api/public/case/new/by-meeting', { host: HOST, json: oralDto(officer), pow: false }), 403, 'POW_REQUIRED');
  });

  it('refuses an expired challenge, and one issued at a lower work factor than now asked', async () => {
    let now = Date.now();
    const key = Buffer.alloc(32, 7);
    const pow = new ProofOfWork(key, server.ctx.db, { difficulty: 4, ttlSeconds: 60 }, () => now);
    const c = pow.issue();
    const header = proofHeader({ challenge: c.challenge, nonce: solve(c.challenge, 4)! });
    now += 61_000;
    await expect(pow.spend(header)).rejects.toMatchObject({ statusCode: 403, code: 'POW_EXPIRED' });
    const raised = new ProofOfWork(key, server.ctx.db, { difficulty: 8, ttlSeconds: 60 }, () => now);
    const old = pow.issue();
    await expect(raised.spend(proofHeader({ challenge: old.challenge, nonce: solve(old.challenge, 4)! }))).rejects.toMatchObject({ code: 'POW_INVALID' });
  });

  it('POW_DIFFICULTY=0 turns the proof off', async () => {
    const off = await startTestServer({ powDifficulty: 0 });
    try {
      const o = (await addCompany(off.ctx.db, { id: 'acme', hosts: [HOST] })).officerIds[0]!;
      expect((await call(off, 'POST', '/api/public/case/new/by-phone', { host: HOST, json: oralDto(o), pow: false })).status).toBe(201);
    } finally {
      await off.cleanup();
    }
  });
});

describe('cross-site requests', () => {
  let server: TestServer;
  let officer: string;
  beforeAll(async () => {
    server = await startTestServer();
    officer = (await addCompany(server.ctx.db, { id: 'acme', hosts: [HOST] })).officerIds[0]!;
  });
  afterAll(() => server?.cleanup());

  const own = () => `http://${new URL(server.url).host}`;

  it('refuses a cross-site case creation (Origin of another site, or Sec-Fetch-Site: cross-site), with no case stored', async () => {
    const before = await countRows(server);
    const variants: Array<Record<string, string>> = [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'null' }];
    for (const headers of variants) {
      expectError(await call(server, 'POST', '/api/public/case/new/by-phone', { host: HOST, json: oralDto(officer), headers }), 403, 'CROSS_SITE_REQUEST');
      expectError(await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, body: form('caseDto', caseDto(officer)), headers }), 403, 'CROSS_SITE_REQUEST');
    }
    expect((await countRows(server)).cases).toBe(before.cases);
  });

  it('lets the same-origin SPA and clients that are not browsers through', async () => {
    const headers = { origin: own(), 'sec-fetch-site': 'same-origin' };
    expect((await call(server, 'POST', '/api/public/case/new/by-phone', { host: HOST, json: oralDto(officer), headers })).status).toBe(201);
    expect((await call(server, 'POST', '/api/public/case/new/by-phone', { host: HOST, json: oralDto(officer) })).status).toBe(201);
    // Reading stays open: a GET is not state-changing.
    expect((await call(server, 'GET', '/api/public/case/company-info', { host: HOST, headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })).status).toBe(200);
  });

  it('refuses cross-site private, handler and admin calls before anything else', async () => {
    const headers = { origin: 'https://evil.example' };
    expectError(await call(server, 'PUT', '/api/private/case/approve', { headers }), 403, 'CROSS_SITE_REQUEST');
    expectError(await call(server, 'POST', '/api/private/case/comments', { json: { comment: 'x' }, headers }), 403, 'CROSS_SITE_REQUEST');
    expectError(await call(server, 'PUT', '/api/handler/cases/1234567890123456/status', { json: { status: 'CLOSED' }, headers }), 403, 'CROSS_SITE_REQUEST');
    expectError(await call(server, 'POST', '/api/admin/handlers', { json: { company: HOST }, headers: { 'sec-fetch-site': 'cross-site' } }), 403, 'CROSS_SITE_REQUEST');
  });

  it('a scripted client solves the challenge from docs/api.md alone', async () => {
    const res = await fetch(`${server.url}/api/public/case/new/by-phone`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-company-host': HOST, ...(await solveChallenge(server)) },
      body: JSON.stringify(oralDto(officer)),
    });
    expect(res.status).toBe(201);
  });
});
