/**
 * Sessions belong to one company (issue 11, finding 7; finding 6 for the 5xx).
 *
 * Every company host has its own issuer, but all issuers share one database and one
 * cookie key. A session, code, refresh token or grant made at one host must be
 * refused at every other host by the server itself, whatever the browser's cookie
 * scoping would have done: the test hands host A's cookies and tokens to host B.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { Browser, MOUNT, exchangeCode, followToApp, formAction, newCase, openSignIn, authorizeParams, refresh, signIn, type Tokens } from './identity-flow.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.cleanup());

const authQuery = (b: Browser, over: Record<string, string> = {}) => authorizeParams(b, undefined, over);

async function signedInAt(host: string) {
  const caseNumber = await newCase(server, { host, password: 'tenancy-pass' });
  const b = new Browser(server, host);
  const tokens = await signIn(b, caseNumber, 'tenancy-pass');
  return { b, tokens, caseNumber };
}

describe('a sign-in belongs to the company host it was made at', () => {
  it('a session cookie from host A does not sign anyone in at host B', async () => {
    const { b: a } = await signedInAt('localhost');
    // At A itself the session signs in silently (the probe can see a session).
    const atA = await a.get(`${MOUNT}/auth?${authQuery(a)}`);
    expect(atA.status).toBe(303);
    expect(atA.headers.location).toMatch(/\/private\/callback\?code=/);

    const b = new Browser(server, 'group.localhost');
    for (const [k, v] of a.cookies) b.cookies.set(k, v);
    const atB = await b.get(`${MOUNT}/auth?${authQuery(b)}`);
    expect(atB.status).toBe(303);
    // B asks for a case number and password: no code without them.
    expect(atB.headers.location).toMatch(new RegExp(`^${MOUNT}/interaction/[\\w-]+$`));
    expect(atB.headers.location).not.toContain('code=');
  });

  it("host A's refresh token at host B's /token is an OAuth invalid_grant (400), and still works at A", async () => {
    const { b: a, tokens } = await signedInAt('localhost');
    const res = await refresh(new Browser(server, 'group.localhost'), tokens.refresh_token);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(res.text).error).toBe('invalid_grant');
    // The refusal at B did not touch A's grant.
    const again = await refresh(a, tokens.refresh_token);
    expect(again.status, again.text).toBe(200);
  });

  it("host A's authorization code at host B's /token is an OAuth invalid_grant (400)", async () => {
    const caseNumber = await newCase(server, { password: 'tenancy-pass' });
    const a = new Browser(server, 'localhost');
    const { verifier, redirectUri, page } = await openSignIn(a);
    const back = await followToApp(a, await a.postForm(formAction(page.text), { caseNumber, password: 'tenancy-pass' }));
    const code = back.searchParams.get('code')!;
    const res = await exchangeCode(new Browser(server, 'group.localhost'), code, verifier, redirectUri);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error).toBe('invalid_grant');
  });

  it("revoking host A's refresh token at host B leaves it alive at A", async () => {
    const { b: a, tokens } = await signedInAt('localhost');
    const b = new Browser(server, 'group.localhost');
    const res = await b.postForm(`${MOUNT}/token/revocation`, { token: tokens.refresh_token, token_type_hint: 'refresh_token', client_id: 'whistleblower-app' });
    expect(res.status).toBeLessThan(500);
    const again = await refresh(a, tokens.refresh_token);
    expect(again.status, again.text).toBe(200);
    expect((JSON.parse(again.text) as Tokens).access_token).toBeTruthy();
  });
});
