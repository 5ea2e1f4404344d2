/**
 * A burst of failed sign-ins at one company makes that company's sign-in form carry
 * a proof-of-work (issue 11, "a proof-of-work challenge when a company sees a burst";
 * docs/decisions/identity-throttle.md). Without a burst nobody sees one; during a
 * burst a post without a solved, unspent challenge is refused before any password
 * is checked, with the typed case number kept; another company is not affected.
 * The burst is counted in the database, so another process sees it.
 */
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { Browser, exchangeCode, followToApp, formAction, newCase, openSignIn, signIn, withProof } from './identity-flow.ts';
import { SigninThrottle } from '../../server/idp/throttle.ts';
import { companyByHost } from '../../server/companies/service.ts';
// The demo company's language (no ui_locales): Danish.
import da from '../../server/idp/i18n/da.json' with { type: 'json' };

const THRESHOLD = 5;
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ identity: { throttle: { burstThreshold: THRESHOLD, powDifficulty: 8 } } });
});
afterAll(async () => server?.cleanup());

const randomCaseNumber = () => Array.from({ length: 16 }, () => randomInt(10)).join('');
const esc = (s: string) => s.replace(/'/g, '&#39;');
const hasChallenge = (html: string) => /<form[^>]* data-pow-challenge="v1\.8\.[^"]+"/.test(html);

describe('proof-of-work on the sign-in page when a company sees a burst', () => {
  let mine: string;
  let theirs: string;
  beforeAll(async () => {
    mine = await newCase(server, { password: 'right-pass-1' });
    theirs = await newCase(server, { host: 'group.localhost', password: 'right-pass-2' });
  });

  it('asks nothing without a burst: no challenge, no worker, and a plain post signs in', async () => {
    const b = new Browser(server);
    const { page } = await openSignIn(b);
    expect(hasChallenge(page.text)).toBe(false);
    expect(page.text).not.toContain('name="pow"');
    // signin.js is on every sign-in page (the handed-over case number, "Opening your case…"); the worker is not.
    expect(page.text).not.toContain('data-pow-worker');
    const tokens = await signIn(new Browser(server), mine, 'right-pass-1');
    expect(tokens.access_token).toBeTruthy();
  });

  it('after the threshold of failed sign-ins, the form carries a challenge and the script that solves it', async () => {
    for (let i = 0; i < THRESHOLD; i++) {
      const b = new Browser(server);
      const { page } = await openSignIn(b);
      const res = await b.postForm(formAction(page.text), withProof(page.text, { caseNumber: randomCaseNumber(), password: 'wrong' }));
      expect(res.status).toBe(400);
      expect(res.text).toContain(esc(da['signin.error.invalid']));
    }
    const { page } = await openSignIn(new Browser(server));
    expect(hasChallenge(page.text)).toBe(true);
    expect(page.text).toContain('<input type="hidden" name="pow" value="">');
    expect(page.text).toMatch(/<script src="\/idp\/realms\/whistleblower\/assets\/signin\.js" integrity="sha256-[\w+/=]+" defer><\/script>/);
    // The count is in the database: another server process on it sees the burst.
    const identity = server.app.identity;
    const other = new SigninThrottle(server.ctx.db, await identity.keys.derive('throttle'), identity.settings.throttle);
    const company = (await companyByHost(server.ctx.db, 'localhost'))!;
    expect(await other.isBurst(company.id)).toBe(true);
  });

  it('refuses a post without a solution, with a wrong one or a spent one, before checking the password, and keeps the typed case number', async () => {
    const b = new Browser(server);
    const { page } = await openSignIn(b);
    const action = formAction(page.text);
    const typed = `${mine.slice(0, 4)} ${mine.slice(4)}`;
    const identity = server.app.identity;
    const company = (await companyByHost(server.ctx.db, 'localhost'))!;
    const throttle = new SigninThrottle(server.ctx.db, await identity.keys.derive('throttle'), identity.settings.throttle);
    const caseRow = () => server.ctx.db.selectFrom('signin_throttle').select('failures').where('key', '=', throttle.caseKey(company.id, mine)).executeTakeFirst();

    const challenge = /data-pow-challenge="([^"]+)"/.exec(page.text)![1]!;
    for (const pow of [undefined, '', `${challenge}:zzzzzz`, `${challenge.replace(/.$/, 'A')}:0`]) {
      const res = await b.postForm(action, { caseNumber: typed, password: 'right-pass-1', ...(pow === undefined ? {} : { pow }) });
      expect(res.status).toBe(400);
      expect(res.text).toContain(esc(da['signin.error.pow']));
      expect(res.text).toContain(`value="${typed}"`);
      expect(res.text).not.toContain('right-pass-1');
      // The page comes back with a fresh challenge to solve.
      expect(hasChallenge(res.text)).toBe(true);
      expect(res.text).not.toContain(challenge);
    }
    // Not one attempt was counted against the case number.
    expect(await caseRow()).toBeUndefined();

    // A solved proof from another form is spent once only.
    const solved = withProof(page.text, { caseNumber: mine, password: 'right-pass-1' });
    const b2 = new Browser(server);
    const second = await openSignIn(b2);
    const ok = await b2.postForm(formAction(second.page.text), solved);
    expect(ok.status).toBe(303);
    const b3 = new Browser(server);
    const third = await openSignIn(b3);
    const reused = await b3.postForm(formAction(third.page.text), solved);
    expect(reused.status).toBe(400);
    expect(reused.text).toContain(esc(da['signin.error.pow']));
  });

  it('accepts the right password with a solved challenge: the reporter signs in', async () => {
    const b = new Browser(server);
    const { page, verifier, redirectUri } = await openSignIn(b);
    expect(hasChallenge(page.text)).toBe(true);
    const res = await b.postForm(formAction(page.text), withProof(page.text, { caseNumber: mine, password: 'right-pass-1' }));
    const back = await followToApp(b, res);
    const tok = await exchangeCode(b, back.searchParams.get('code')!, verifier, redirectUri);
    expect(tok.status, tok.text).toBe(200);
  });

  it('leaves another company alone: its form has no challenge and a plain post signs in', async () => {
    const b = new Browser(server, 'group.localhost');
    const { page } = await openSignIn(b);
    expect(hasChallenge(page.text)).toBe(false);
    const res = await b.postForm(formAction(page.text), { caseNumber: theirs, password: 'right-pass-2' });
    expect(res.status, res.text).toBe(303);
  });

  it('serves the worker and the SHA-256 it imports from our own origin, and nothing else under noble/', async () => {
    const b = new Browser(server);
    for (const p of ['signin.js', 'signin-pow.worker.js', 'noble/sha2.js', 'noble/_md.js', 'noble/_u64.js', 'noble/utils.js']) {
      const res = await b.get(`/idp/realms/whistleblower/assets/${p}`);
      expect(res.status, p).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/javascript/);
    }
    const other = await b.get('/idp/realms/whistleblower/assets/noble/argon2.js');
    expect(other.status).toBe(404);
    expect(JSON.parse(other.text).error.code).toBe('NOT_FOUND');
  });
});
