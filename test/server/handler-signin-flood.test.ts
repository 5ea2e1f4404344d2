/**
 * No lockout by e-mail address (issue 39 item 4; docs/decisions/administration.md):
 * 1,000 wrong sign-ins on a handler's address, each from another client (a trusted
 * proxy on loopback names them in X-Forwarded-For), all through the real endpoint.
 * They make a burst, so from the hundredth on each needs a solved proof-of-work, as
 * the real handler's does. Then the handler, from their own address, signs in with
 * the right password and a fresh code: 200, with no delay demanded of that client,
 * and told of the 1,000 failures. The throttle's own figures are the defaults; only
 * the proof's work factor is lowered, so that the 900 flood requests that need one
 * can be solved by this test in reasonable time (its cost is the bench's subject).
 */
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, expectError } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { solve } from '../../core/pow.ts';
import { SigninThrottle } from '../../server/idp/throttle.ts';
import { identitySettings } from '../../server/idp/settings.ts';

const HOST = 'acme.test';
const EMAIL = 'hilde@acme.test';
const PASSWORD = 'correct horse battery';
const POW_BITS = 8;
let server: TestServer;
let secret: string;

const totp = (offset = 0) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + offset * 30_000 });

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, trustProxy: ['127.0.0.1'], identity: { throttle: { powDifficulty: POW_BITS } } });
  await addCompany(server.ctx.db, { id: 'acme', hosts: [HOST] });
  const account = await createHandlerAccount(server.ctx.db, 'acme', 'Hilde', { email: EMAIL });
  const start = await call(server, 'POST', '/api/handler/enrolment/start', { host: HOST, json: { code: account.enrolmentCode } });
  secret = start.data.secret;
  const fin = await call(server, 'POST', '/api/handler/enrolment/finish', { host: HOST, json: { code: account.enrolmentCode, password: PASSWORD, totpCode: totp() } });
  expect(fin.status).toBe(200);
});
afterAll(async () => server?.cleanup());

/** The proof header for the sign-in, when the server asks for one now. */
async function proof(from: string): Promise<Record<string, string>> {
  const r = await call(server, 'GET', '/api/handler/session/challenge', { host: HOST, headers: { 'x-forwarded-for': from } });
  const c = r.data.challenge as { challenge: string; difficulty: number } | null;
  return c ? { 'x-proof-of-work': `${c.challenge}:${solve(c.challenge, c.difficulty)}` } : {};
}

describe("a flood of wrong sign-ins on a handler's address", () => {
  it('1,000 from other clients never keep the handler with the right password and code out', async () => {
    const TOTAL = 1000;
    for (let i = 0; i < TOTAL; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, async (_, j) => {
          const n = i + j;
          const from = `10.${(n >> 8) & 255}.${n & 255}.7`;
          const res = await call(server, 'POST', '/api/handler/session', { host: HOST, headers: { 'x-forwarded-for': from, ...(await proof(from)) }, json: { email: EMAIL, password: `wrong password ${n}`, code: '123456' } });
          expectError(res, 401, 'SIGNIN_FAILED');
        }),
      );
    }
    // A post without the work during the burst is refused before any password check.
    const lazy = await call(server, 'POST', '/api/handler/session', { host: HOST, headers: { 'x-forwarded-for': '10.99.99.99' }, json: { email: EMAIL, password: PASSWORD, code: totp() } });
    expectError(lazy, 403, 'POW_REQUIRED');
    const failures = await server.ctx.db.selectFrom('handler_account').select('failed_signins').where('email', '=', EMAIL).executeTakeFirstOrThrow();
    expect(failures.failed_signins).toBe(TOTAL);

    // The handler, from their own address: the proof (solved as the workspace does), then the sign-in.
    const mine = '192.0.2.44';
    const headers: Record<string, string> = { 'x-forwarded-for': mine, ...(await proof(mine)) };
    expect(headers['x-proof-of-work']).toBeDefined();
    const started = performance.now();
    const ok = await call(server, 'POST', '/api/handler/session', { host: HOST, headers, json: { email: EMAIL, password: PASSWORD, code: totp(1) } });
    const ms = performance.now() - started;
    expect(ok.status, JSON.stringify(ok.data)).toBe(200);
    // Told of the failures at this sign-in, once.
    expect(ok.data.signIn).toEqual({ failedSignIns: TOTAL, previousSignInAt: null });
    // No delay was demanded of this client: its one attempt was within its free failures,
    // and the success gave it back.
    const throttle = new SigninThrottle(server.ctx.db, server.ctx.crypto.deriveKey('handler-throttle'), identitySettings(server.ctx.config.identity).throttle);
    const row = await server.ctx.db.selectFrom('signin_throttle').select('failures').where('key', '=', throttle.clientRowKey(mine)).executeTakeFirstOrThrow();
    expect(Number(row.failures)).toBe(0);
    expect(throttle.clientDelayFor(0)).toBe(0);
    // Nothing was counted per address.
    expect(await server.ctx.db.selectFrom('signin_throttle').select('key').where('key', 'like', 'case:%').execute()).toEqual([]);
    // A hang guard only (the 5 s): the figure itself is the bench's.
    expect(ms).toBeLessThan(5000);
  }, 300_000);
});
