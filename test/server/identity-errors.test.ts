/**
 * The identity provider's refusals (issue 11, findings 6 and 11, identity part):
 * bad input is a 4xx with the OAuth error body where OAuth defines one (or our
 * error page for a person in a browser), otherwise the portal's JSON error body;
 * never a 5xx, never Koa's plain-text default. Redirect URIs match the registered
 * list exactly. No answer under /idp may be cached.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { Browser, MOUNT, newCase, authorizeParams, signIn, type RawResponse } from './identity-flow.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.cleanup());

const authQuery = (b: Browser, over: Record<string, string> = {}) => authorizeParams(b, undefined, over);

/** The portal's JSON error body, or an OAuth error body. */
function expectErrorBody(res: RawResponse) {
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(res.text);
  if (typeof body.error === 'string') expect(body.error).toMatch(/^[a-z_]+$/);
  else expect(body.error.code).toMatch(/^[A-Z_]+$/);
}

describe('refusals under /idp', () => {
  it('answers /auth with a foreign resource with an OAuth invalid_target, not a 5xx', async () => {
    const a = new Browser(server);
    for (const resource of ['https://evil.example/api', `http://group.localhost:${server.port}/api/private`, 'not a uri']) {
      const res = await a.get(`${MOUNT}/auth?${authQuery(a, { resource })}`);
      expect(res.status, resource).toBeLessThan(500);
      // The redirect URI is valid, so OAuth sends the error back to it.
      expect(res.status).toBe(303);
      const to = new URL(res.headers.location!);
      expect(to.origin + to.pathname).toBe(`${a.origin}/private/callback`);
      expect(to.searchParams.get('error')).toBe('invalid_target');
      expect(to.searchParams.get('code')).toBeNull();
    }
  });

  it('answers an unknown path or method with the JSON error body, not Koa\'s "Not Found"', async () => {
    const a = new Browser(server);
    for (const [method, p] of [
      ['GET', `${MOUNT}/nope`],
      ['DELETE', `${MOUNT}/token`],
      ['PUT', `${MOUNT}/jwks`],
      ['GET', `${MOUNT}/%2e%2e/x`],
    ] as const) {
      const res = await a.request(method, p);
      expect(res.status, `${method} ${p}`).toBe(404);
      expectErrorBody(res);
      expect(JSON.parse(res.text).error.code).toBe('NOT_FOUND');
    }
  });

  it('gives a program that asks for JSON the OAuth error body for a bad authorization request', async () => {
    const a = new Browser(server);
    const res = await a.get(`${MOUNT}/auth?client_id=nobody`, { accept: 'application/json' });
    expect(res.status).toBe(400);
    expectErrorBody(res);
    expect(JSON.parse(res.text).error).toBe('invalid_client');
  });
});

describe('redirect URIs', () => {
  it('accepts only the registered callback, exactly', async () => {
    const a = new Browser(server);
    const ok = await a.get(`${MOUNT}/auth?${authQuery(a)}`);
    expect(ok.status).toBe(303);
    expect(ok.headers.location).toMatch(new RegExp(`^${MOUNT}/interaction/`));
    for (const path of ['/anything/else', '/%61pi/private/case/my-case', '/private/callback/', '/private/%63allback', '/', '/private/callback?x=1']) {
      const res = await a.get(`${MOUNT}/auth?${authQuery(a, { redirect_uri: `${a.origin}${path}` })}`);
      expect(res.status, path).toBe(400);
      expect(res.headers.location, path).toBeUndefined();
      expect(res.text).not.toContain('code=');
    }
  });

  it('signs out only to the registered page', async () => {
    const caseNumber = await newCase(server);
    const a = new Browser(server);
    const t = await signIn(a, caseNumber, 'pass1234');
    const res = await a.get(`${MOUNT}/session/end?${new URLSearchParams({ id_token_hint: t.id_token, post_logout_redirect_uri: `${a.origin}/%61pi/x` })}`);
    expect(res.status).toBe(400);
  });
});

describe('caching', () => {
  it('sends Cache-Control: no-store on every answer under /idp', async () => {
    const caseNumber = await newCase(server);
    const a = new Browser(server);
    const t = await signIn(a, caseNumber, 'pass1234');
    const auth = await new Browser(server).get(`${MOUNT}/auth?${authQuery(a)}`);
    const answers: [string, RawResponse][] = [
      ['discovery', await a.get(`${MOUNT}/.well-known/openid-configuration`)],
      ['jwks', await a.get(`${MOUNT}/jwks`)],
      ['auth', auth],
      ['interaction', await a.get(auth.headers.location!)],
      ['token refusal', await a.postForm(`${MOUNT}/token`, { grant_type: 'refresh_token', refresh_token: 'nope', client_id: 'whistleblower-app' })],
      ['revocation', await a.postForm(`${MOUNT}/token/revocation`, { token: t.refresh_token, client_id: 'whistleblower-app' })],
      ['revocation refusal', await a.postForm(`${MOUNT}/token/revocation`, { token: 'x' })],
      ['session end', await a.get(`${MOUNT}/session/end`)],
      ['unknown path', await a.get(`${MOUNT}/nope`)],
      ['unknown host', await new Browser(server, 'nobody.example').get(`${MOUNT}/jwks`)],
      ['stylesheet', await a.get(`${MOUNT}/assets/idp.css`)],
      ['theme', await a.get(`${MOUNT}/assets/theme.css`)],
    ];
    for (const [name, res] of answers) expect(res.headers['cache-control'], name).toBe('no-store');
  });
});
