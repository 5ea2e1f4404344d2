/**
 * The sign-in throttle cannot be turned against reporters (issue 11, finding 3).
 *
 * An attacker sends 5,000 wrong sign-ins at random case numbers of one company,
 * from many client addresses. To keep this quick the bulk goes through the
 * throttle's own API on the same database, exactly as another server process
 * would record it (same derived key, same settings), and a share goes through the
 * real sign-in endpoint. Then reporters with the right password, of that company
 * and of another one, sign in through the real endpoint at once. The default
 * throttle settings apply: nothing is loosened for the test.
 */
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { Browser, formAction, newCase, openSignIn, signIn, withProof } from './identity-flow.ts';
import { SigninThrottle } from '../../server/idp/throttle.ts';
import { companyByHost } from '../../server/companies/service.ts';
import type { IdentityService } from '../../server/idp/index.ts';

let server: TestServer;
let throttle: SigninThrottle;
beforeAll(async () => {
  server = await startTestServer();
  const identity: IdentityService = server.app.identity;
  // A second process's view of the same throttle state.
  throttle = new SigninThrottle(server.ctx.db, await identity.keys.derive('throttle'), identity.settings.throttle);
});
afterAll(async () => server?.cleanup());

const randomCaseNumber = () => Array.from({ length: 16 }, () => randomInt(10)).join('');

async function wrongSignIn(host: string, caseNumber: string) {
  const b = new Browser(server, host);
  const { page } = await openSignIn(b);
  const res = await b.postForm(formAction(page.text), withProof(page.text, { caseNumber, password: 'not-the-password' }));
  expect(res.status).toBe(400);
}

/**
 * Signs in with the right password and returns how long the server took to answer the
 * form: that answer is where the throttle waits or refuses. The proof-of-work, when the
 * form asks for one, is solved before the post, as the page's worker does while the
 * reporter types; the client's solving time depends on its CPU, not on the throttle.
 */
async function timedSignIn(host: string, caseNumber: string, password: string): Promise<number> {
  const answer = { ms: NaN };
  const tokens = await signIn(new Browser(server, host), caseNumber, password, { answer });
  expect(tokens.access_token).toBeTruthy();
  return answer.ms;
}

describe('a flood of wrong sign-ins at one company', () => {
  it('after 5,000 failures on random case numbers, reporters of that company and of another get in, answered within 5 s', async () => {
    const mine = await newCase(server, { password: 'right-pass-1' });
    const theirs = await newCase(server, { host: 'group.localhost', password: 'right-pass-2' });
    const company = (await companyByHost(server.ctx.db, 'localhost'))!;

    // 4,990 through the throttle, from 50 attacker addresses, 50 at a time.
    const TOTAL = 5000;
    const REAL = 10;
    for (let i = 0; i < TOTAL - REAL; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, TOTAL - REAL - i) }, async (_, j) => {
          const a = await throttle.begin(company.id, randomCaseNumber(), `198.51.100.${(i + j) % 50}`);
          await throttle.failure(a);
        }),
      );
    }
    // The rest through the real page (from the test's own address, within its budget).
    for (let i = 0; i < REAL; i++) await wrongSignIn('localhost', randomCaseNumber());

    // The flood is a burst: this company's form asks for a proof-of-work at the
    // default work factor, which the reporter's sign-in below solves; the other
    // company's form asks for none.
    const burst = await openSignIn(new Browser(server));
    expect(burst.page.text).toMatch(new RegExp(`data-pow-challenge="v1\\.${server.app.identity.settings.throttle.powDifficulty}\\.`));
    expect(server.app.identity.settings.throttle.powDifficulty).toBe(18);
    expect((await openSignIn(new Browser(server, 'group.localhost'))).page.text).not.toContain('data-pow-challenge');

    // Neither waits on the flood. The bound is generous for a loaded machine (the
    // issue's "within a few seconds"); a delay the flood put on them would break it.
    expect(await timedSignIn('localhost', mine, 'right-pass-1')).toBeLessThan(5000);
    expect(await timedSignIn('group.localhost', theirs, 'right-pass-2')).toBeLessThan(5000);
  }, 300_000);

  it('a reporter who shares the attacker\'s address is slowed, never locked out', async () => {
    const mine = await newCase(server, { password: 'shared-pass' });
    const company = (await companyByHost(server.ctx.db, 'localhost'))!;
    // 1,000 failures from the address this test's requests come from (as behind one NAT).
    for (let i = 0; i < 1000; i += 50) {
      await Promise.all(Array.from({ length: 50 }, async () => throttle.failure(await throttle.begin(company.id, randomCaseNumber(), '127.0.0.1'))));
    }
    const { clientMaxDelayMs } = server.app.identity.settings.throttle;
    // Bounded by the capped delay plus the sign-in itself (generous for a loaded machine).
    expect(await timedSignIn('localhost', mine, 'shared-pass')).toBeLessThan(clientMaxDelayMs + 5000);
  }, 120_000);

  it('counts the failures for one case number together, from whatever client, into one lock', async () => {
    const caseNumber = await newCase(server, { password: 'locked-pass' });
    const neighbour = await newCase(server, { password: 'neighbour-pass' });
    const company = (await companyByHost(server.ctx.db, 'localhost'))!;
    const { lockAfter } = server.app.identity.settings.throttle;
    // Each failure from another address: per-client budgets must not split the count.
    for (let i = 0; i < lockAfter; i++) await throttle.failure(await throttle.begin(company.id, caseNumber, `203.0.113.${i}`));
    // The right password is refused now, with the usual page.
    const b = new Browser(server);
    const { page } = await openSignIn(b);
    const res = await b.postForm(formAction(page.text), withProof(page.text, { caseNumber, password: 'locked-pass' }));
    expect(res.status).toBe(400);
    const locked = await server.ctx.db.selectFrom('signin_throttle').select('key').where('key', '=', throttle.caseKey(company.id, caseNumber)).where('locked_until', '>', new Date()).execute();
    expect(locked).toHaveLength(1);
    // The lock is the case's alone: a neighbour signs in. This test's address already
    // spent its budget above (and in the test before, as behind one NAT), so the
    // neighbour may wait that address's capped delay, never a lock.
    const { clientMaxDelayMs } = server.app.identity.settings.throttle;
    expect(await timedSignIn('localhost', neighbour, 'neighbour-pass')).toBeLessThan(clientMaxDelayMs + 5000);
  }, 120_000);
});
