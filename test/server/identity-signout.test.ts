/**
 * Sign-out and a password change end a case's access on every device at once,
 * access tokens included: they are JWTs checked without a token look-up, so each
 * carries its account's token generation and ending a sign-in moves it on. Runs
 * with the real 5-minute lifetime, so a 401 here is the sign-out, never expiry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { call } from './api.ts';
import { Browser, MOUNT, formAction, newCase, refresh, signIn, type Tokens } from './identity-flow.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.cleanup());

const myCase = (t: Tokens) => call(server, 'GET', '/api/private/case/my-case', { token: t.access_token, host: 'localhost' });

async function signOut(b: Browser, t: Tokens) {
  const q = new URLSearchParams({ id_token_hint: t.id_token, post_logout_redirect_uri: `${b.origin}/`, client_id: 'whistleblower-app' });
  const end = await b.get(`${MOUNT}/session/end?${q}`);
  expect(end.status, end.text).toBe(200);
  const out = await b.postForm(formAction(end.text), { xsrf: /name="xsrf" value="([^"]+)"/.exec(end.text)![1]!, logout: 'yes' });
  expect(out.status).toBe(303);
  expect(out.headers.location).toBe(`${b.origin}/`);
}

describe('ending a sign-in ends its access tokens', () => {
  it('sign-out on one device ends every sign-in of the case, unexpired access tokens included', async () => {
    const caseNumber = await newCase(server, { password: 'pass1234' });
    const phone = new Browser(server);
    const laptop = new Browser(server);
    const a = await signIn(phone, caseNumber, 'pass1234');
    const b = await signIn(laptop, caseNumber, 'pass1234');
    expect(decodeJwt(a.access_token).exp! - decodeJwt(a.access_token).iat!).toBe(300);
    expect((await myCase(a)).status).toBe(200);
    expect((await myCase(b)).status).toBe(200);

    await signOut(phone, a);

    // Minutes of lifetime left, yet refused: on this device and on the other.
    for (const t of [a, b]) {
      expect(decodeJwt(t.access_token).exp! * 1000).toBeGreaterThan(Date.now() + 60_000);
      const res = await myCase(t);
      expect(res.status).toBe(401);
      expect(JSON.stringify(res.data)).not.toContain(caseNumber);
      expect((await call(server, 'GET', '/api/private/case/token/verify', { token: t.access_token, host: 'localhost' })).status).toBe(401);
    }
    expect((await refresh(phone, a.refresh_token)).status).toBe(400);
    expect((await refresh(laptop, b.refresh_token)).status).toBe(400);

    // Signing in again works at once, and only the new token does.
    const again = await signIn(new Browser(server), caseNumber, 'pass1234');
    expect((await myCase(again)).status).toBe(200);
    expect((await myCase(a)).status).toBe(401);
  });

  it('a password change request ends the access token that asked for it', async () => {
    const caseNumber = await newCase(server, { password: 'old-pass' });
    const t = await signIn(new Browser(server), caseNumber, 'old-pass');
    const req = await call(server, 'PUT', '/api/private/case/password/request-update', { token: t.access_token, host: 'localhost' });
    expect(req.status).toBe(200);
    expect((await myCase(t)).status).toBe(401);
    // A second request with the same token cannot run either.
    expect((await call(server, 'PUT', '/api/private/case/password/request-update', { token: t.access_token, host: 'localhost' })).status).toBe(401);
  });

  it('the sign-out of one case leaves another case signed in', async () => {
    const mine = await newCase(server, { password: 'mine-pass' });
    const other = await newCase(server, { password: 'other-pass' });
    const b = new Browser(server);
    const t = await signIn(b, mine, 'mine-pass');
    const o = await signIn(new Browser(server), other, 'other-pass');
    await signOut(b, t);
    expect((await myCase(t)).status).toBe(401);
    expect((await myCase(o)).status).toBe(200);
  });
});

describe('sign-out when nobody is signed in', () => {
  // A link to /session/end from elsewhere, a second tab, an expired session: oidc-provider's
  // stock answer was an English "Submitting Callback" page with an inline script (issue 42).
  for (const [host, lang, heading] of [
    ['localhost', 'da', 'Du er logget ud'],
    ['group.localhost', 'en', 'You are logged out'],
  ] as const) {
    it(`${host}: the portal's own page in the company's language (${lang}), no inline script, and it goes on to the registered page`, async () => {
      const b = new Browser(server, host);
      const q = new URLSearchParams({ post_logout_redirect_uri: `${b.origin}/`, client_id: 'whistleblower-app' });
      const page = await b.get(`${MOUNT}/session/end?${q}`);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('Submitting Callback');
      expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)/);
      expect(page.text).toContain(`<html lang="${lang}">`);
      expect(page.text).toContain(`<h1>${heading}</h1>`);
      expect(page.text).toContain(`src="${MOUNT}/assets/logout.js"`);
      expect(page.text).toContain('<link rel="stylesheet" href="/idp/realms/whistleblower/assets/idp.css">');
      // The policy is the portal's, with no hash let in for a script.
      const csp = String(page.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('sha256-');
      expect(page.headers['cache-control']).toBe('no-store');
      const out = await b.postForm(formAction(page.text), { xsrf: /name="xsrf" value="([^"]+)"/.exec(page.text)![1]!, logout: 'yes' });
      expect(out.status).toBe(303);
      expect(out.headers.location).toBe(`${b.origin}/`);
    });
  }
});
