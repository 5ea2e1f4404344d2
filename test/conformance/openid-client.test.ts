/**
 * panva's openid-client, a certified relying party nobody here wrote, against the real
 * embedded provider of both demo companies: discovery, authorization code + PKCE
 * through our own sign-in page (real HTTP form posts, as a browser sends them), ID
 * token validation, userinfo, refresh with rotation, revocation and end session; and
 * every one of those refused when the token or code comes from the other company.
 * openid-client is told nothing about the portal beyond its issuer and client id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as client from 'openid-client';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { call } from '../server/api.ts';
import { Browser, MOUNT, followToApp, formAction, newCase, withProof } from '../server/identity-flow.ts';
import { hostFetch } from './host-fetch.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.cleanup());

const CLIENT_ID = 'whistleblower-app';
/** What the SPA asks for (src/private/services.ts), and what the portal grants. */
const SCOPE = 'openid offline_access';
const GRANTED = 'openid';

async function discover(host: string): Promise<client.Configuration> {
  const issuer = new URL(`http://${host}:${server.port}${MOUNT}`);
  // The demo runs on plain HTTP; openid-client refuses it unless told.
  return client.discovery(issuer, CLIENT_ID, undefined, client.None(), { execute: [client.allowInsecureRequests], [client.customFetch]: hostFetch(server.port) });
}

/** openid-client builds the request, a browser (real HTTP, cookies) signs in on our page, openid-client redeems the code. */
async function signIn(config: client.Configuration, b: Browser, caseNumber: string, password = 'pass1234') {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const redirectUri = `${b.origin}/private/callback`;
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: SCOPE,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
  });
  const auth = await b.get(url.pathname + url.search);
  expect(auth.status, auth.text).toBe(303);
  let back: URL;
  if (auth.headers.location!.startsWith(`${MOUNT}/interaction/`)) {
    const page = await b.get(auth.headers.location!);
    expect(page.status).toBe(200);
    back = await followToApp(b, await b.postForm(formAction(page.text), withProof(page.text, { caseNumber, password })));
  } else {
    // Still signed in at the provider (its session cookie): the code comes at once.
    back = await followToApp(b, auth);
  }
  const tokens = await client.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedState: state });
  return { tokens, back, verifier, redirectUri };
}

async function jwksOf(config: client.Configuration) {
  const res = await hostFetch(server.port)(config.serverMetadata().jwks_uri!);
  return createLocalJWKSet(await res.json());
}

/** What openid-client throws for a refusal: an OAuth error body, or a WWW-Authenticate challenge. */
async function refusal(p: Promise<unknown>): Promise<{ error?: string; status?: number; challenge?: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof client.ResponseBodyError) return { error: err.error, status: err.status };
    if (err instanceof client.WWWAuthenticateChallengeError) return { challenge: err.cause[0]?.parameters.error, status: err.response.status };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('openid-client (panva) against the embedded provider', () => {
  for (const host of ['localhost', 'group.localhost']) {
    it(`${host}: discovery, code + PKCE, ID token, userinfo, refresh with rotation, revocation, end session`, async () => {
      const config = await discover(host);
      const meta = config.serverMetadata();
      const issuer = `http://${host}:${server.port}${MOUNT}`;
      expect(meta.issuer).toBe(issuer);
      expect(meta.code_challenge_methods_supported).toContain('S256');
      expect(meta.userinfo_endpoint).toBe(`${issuer}/me`);
      expect(meta.revocation_endpoint).toBeTruthy();
      expect(meta.end_session_endpoint).toBe(`${issuer}/session/end`);

      const caseNumber = await newCase(server, { host });
      const b = new Browser(server, host);
      const { tokens } = await signIn(config, b, caseNumber);

      // ID token: openid-client checked iss, aud, exp, iat; the signature is checked here against the published keys.
      const idClaims = tokens.claims()!;
      expect(idClaims.iss).toBe(issuer);
      expect(idClaims.aud).toBe(CLIENT_ID);
      const { payload: verified } = await jwtVerify(tokens.id_token!, await jwksOf(config), { issuer, audience: CLIENT_ID, algorithms: ['RS256'] });
      expect(verified.sub).toBe(idClaims.sub);
      // RFC 6749 §5.1: what was granted (openid; the refresh token ends with the sign-in, so no offline_access).
      expect(tokens.scope).toBe(GRANTED);
      expect(decodeJwt(tokens.access_token).scope).toBe(GRANTED);
      expect(tokens.refresh_token).toBeTruthy();
      expect(tokens.token_type.toLowerCase()).toBe('bearer');

      // Userinfo (listed in discovery) answers the one access token the client got, for the ID token's subject.
      const info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
      expect(info).toEqual({ sub: idClaims.sub });
      // And the same token still opens the private API.
      expect((await call(server, 'GET', '/api/private/case/my-case', { token: tokens.access_token, host })).status).toBe(200);

      // Refresh rotates: each answer has a new refresh token; a used one is refused.
      const r1 = await client.refreshTokenGrant(config, tokens.refresh_token!);
      expect(r1.refresh_token).toBeTruthy();
      expect(r1.refresh_token).not.toBe(tokens.refresh_token);
      expect(r1.scope).toBe(GRANTED);
      expect(r1.claims()!.sub).toBe(idClaims.sub);
      expect(await client.fetchUserInfo(config, r1.access_token, idClaims.sub)).toEqual({ sub: idClaims.sub });
      const r2 = await client.refreshTokenGrant(config, r1.refresh_token!);
      expect(r2.refresh_token).not.toBe(r1.refresh_token);

      // Revocation (RFC 7009): the revoked refresh token is dead; the consumed first one too.
      await client.tokenRevocation(config, r2.refresh_token!, { token_type_hint: 'refresh_token' });
      expect(await refusal(client.refreshTokenGrant(config, r2.refresh_token!))).toMatchObject({ error: 'invalid_grant', status: 400 });
      expect(await refusal(client.refreshTokenGrant(config, tokens.refresh_token!))).toMatchObject({ error: 'invalid_grant', status: 400 });

      // End session, as openid-client builds the URL: the portal's confirmation submits itself
      // (same-origin script); posting its form signs out and lands on the registered page.
      const again = await signIn(config, b, caseNumber);
      const end = client.buildEndSessionUrl(config, { id_token_hint: again.tokens.id_token!, post_logout_redirect_uri: `${b.origin}/` });
      const page = await b.get(end.pathname + end.search);
      expect(page.status).toBe(200);
      expect(page.text).toContain('src="/idp/realms/whistleblower/assets/logout.js"');
      expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)/);
      const out = await b.postForm(formAction(page.text), { xsrf: /name="xsrf" value="([^"]+)"/.exec(page.text)![1]!, logout: 'yes' });
      expect(out.status).toBe(303);
      expect(out.headers.location).toBe(`${b.origin}/`);
      // Signed out everywhere: the unexpired access token is refused by userinfo and the API.
      expect(await refusal(client.fetchUserInfo(config, again.tokens.access_token, idClaims.sub))).toMatchObject({ challenge: 'invalid_token', status: 401 });
      expect((await call(server, 'GET', '/api/private/case/my-case', { token: again.tokens.access_token, host })).status).toBe(401);
      expect(await refusal(client.refreshTokenGrant(config, again.tokens.refresh_token!))).toMatchObject({ error: 'invalid_grant' });
    });
  }

  it("refuses one company's case number, code, tokens and ID token at the other company", async () => {
    const [here, there] = await Promise.all([discover('localhost'), discover('group.localhost')]);
    const caseNumber = await newCase(server, { host: 'localhost' });

    // The case number is unknown at the other company's sign-in page.
    const foreign = new Browser(server, 'group.localhost');
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(there, { redirect_uri: `${foreign.origin}/private/callback`, scope: SCOPE, code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state: client.randomState() });
    const auth = await foreign.get(url.pathname + url.search);
    const page = await foreign.get(auth.headers.location!);
    const tried = await foreign.postForm(formAction(page.text), withProof(page.text, { caseNumber, password: 'pass1234' }));
    expect(tried.status).toBe(400);
    expect(tried.headers.location).toBeUndefined();

    const b = new Browser(server, 'localhost');
    const { tokens } = await signIn(here, b, caseNumber);
    const sub = tokens.claims()!.sub;

    // A code made at localhost, redeemed at group.localhost's token endpoint (its own redirect URI).
    const v2 = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const u2 = client.buildAuthorizationUrl(here, { redirect_uri: `${b.origin}/private/callback`, scope: SCOPE, code_challenge: await client.calculatePKCECodeChallenge(v2), code_challenge_method: 'S256', state });
    const silent = await b.get(u2.pathname + u2.search);
    const code = (await followToApp(b, silent)).searchParams.get('code')!;
    expect(code).toBeTruthy();
    expect(await refusal(client.genericGrantRequest(there, 'authorization_code', { code, code_verifier: v2, redirect_uri: `${foreign.origin}/private/callback` }))).toMatchObject({ error: 'invalid_grant', status: 400 });

    // Its refresh token, its access token at userinfo, and the ID token's issuer.
    expect(await refusal(client.refreshTokenGrant(there, tokens.refresh_token!))).toMatchObject({ error: 'invalid_grant', status: 400 });
    expect(await refusal(client.fetchUserInfo(there, tokens.access_token, sub))).toMatchObject({ challenge: 'invalid_token', status: 401 });
    await expect(jwtVerify(tokens.id_token!, await jwksOf(there), { issuer: there.serverMetadata().issuer, audience: CLIENT_ID })).rejects.toThrow();
    // The private API, asked on behalf of the other company's page.
    expect((await call(server, 'GET', '/api/private/case/my-case', { token: tokens.access_token, host: 'group.localhost' })).status).toBe(403);

    // Nothing of that touched the sign-in at its own company.
    expect(await client.fetchUserInfo(here, tokens.access_token, sub)).toEqual({ sub });
    const r = await client.refreshTokenGrant(here, tokens.refresh_token!);
    expect(r.refresh_token).not.toBe(tokens.refresh_token);
  });
});
