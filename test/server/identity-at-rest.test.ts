/**
 * Nothing in the database works as a credential (issue 11, finding 1).
 *
 * While cases, sign-in sessions, refresh tokens (used and unused), a grant and an
 * unfinished sign-in page exist, every string is copied out of every table and out
 * of every file of the data folder, and each one that could be a token, code, id or
 * cookie value is tried against the running server: as a refresh token at `/token`,
 * as the session cookie at `/auth` (signed with the provider's real cookie key, so
 * only the stored value is on trial, not the attacker's lack of that key), and as a
 * bearer token on the private API, and as an authorization code at `/token` (with the
 * right PKCE verifier and redirect URI of a code issued and not yet exchanged, so again
 * only the stored value is on trial). None may be accepted. The real browser's cookie
 * and refresh token are then shown to be accepted by the same probes, so the probes
 * can tell acceptance when they see it.
 */
import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { call } from './api.ts';
import { Browser, MOUNT, exchangeCode, followToApp, formAction, newCase, openSignIn, pkce, refresh, signIn, withProof, type Tokens } from './identity-flow.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.cleanup());

const HOSTS = ['localhost', 'group.localhost'];

function cookieSig(key: string, name: string, value: string): string {
  // What the `cookies` module (keygrip, HMAC-SHA1) signs: `name=value`.
  return createHmac('sha1', key).update(`${name}=${value}`).digest('base64').replace(/\/|\+|=/g, (x) => ({ '/': '_', '+': '-', '=': '' })[x]!);
}

/** Every string stored in any table of the portal's database, as JSON text. */
async function databaseText(): Promise<string> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind = 'r'`.execute(server.ctx.db);
  let out = '';
  for (const { name } of rows) {
    const res = await sql<{ j: string }>`select row_to_json(t)::text as j from ${sql.id(name)} t`.execute(server.ctx.db);
    for (const r of res.rows) out += `${r.j}\n`;
  }
  return out;
}

function filesIn(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) out.push(...filesIn(p));
    else if (st.isFile()) out.push(p);
  }
  return out;
}

/** Runs of token characters that could be a token, id, code or JWT. */
function candidates(text: string, min: number): string[] {
  return text.match(new RegExp(`[A-Za-z0-9_~.-]{${min},}`, 'g')) ?? [];
}

/** Looks random: letters and digits mixed, as every id and token the provider makes is. */
const randomLooking = (s: string) => s.length <= 2048 && /[0-9]/.test(s) && /[A-Za-z]/.test(s);

async function sessionCookieSignsIn(host: string, value: string): Promise<boolean> {
  const b = new Browser(server, host);
  const key = server.app.identity.currentKeys.cookies[0]!;
  b.cookies.set('_session', value);
  b.cookies.set('_session.sig', cookieSig(key, '_session', value));
  const { challenge } = pkce();
  const q = new URLSearchParams({
    client_id: 'whistleblower-app',
    response_type: 'code',
    scope: 'openid offline_access',
    redirect_uri: `${b.origin}/private/callback`,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'probe',
  });
  const res = await b.get(`${MOUNT}/auth?${q}`);
  // Signed in: the provider answers with a code at once instead of its sign-in page.
  return res.status === 303 && !String(res.headers.location).startsWith(`${MOUNT}/interaction/`);
}

async function refreshTokenAccepted(host: string, value: string): Promise<boolean> {
  const res = await refresh(new Browser(server, host), value);
  return res.status === 200;
}

/** An authorization code the server issued and nobody has exchanged yet, with what exchanging it needs. */
interface PendingCode {
  browser: Browser;
  code: string;
  verifier: string;
  redirectUri: string;
}

async function codeAccepted(pending: PendingCode, value: string): Promise<boolean> {
  const res = await exchangeCode(new Browser(server, pending.browser.host), value, pending.verifier, pending.redirectUri);
  return res.status === 200;
}

async function bearerAccepted(host: string, value: string): Promise<boolean> {
  const res = await call(server, 'GET', '/api/private/case/my-case', { token: value, host });
  return res.status === 200;
}

describe('a copy of the database and the data folder', () => {
  it('holds no string the running server accepts as a refresh token, session cookie or bearer token', async () => {
    // Cases, sign-ins at two company hosts, a refresh (one used and one live refresh
    // token), a silent second sign-in on the same session, an unfinished sign-in page.
    const mine = await newCase(server, { password: 'pass1234' });
    const theirs = await newCase(server, { host: 'group.localhost', password: 'pass5678' });
    const a = new Browser(server, 'localhost');
    const first = await signIn(a, mine, 'pass1234');
    const rotated = await refresh(a, first.refresh_token);
    expect(rotated.status, rotated.text).toBe(200);
    const live = JSON.parse(rotated.text) as Tokens;
    const g = new Browser(server, 'group.localhost');
    const other = await signIn(g, theirs, 'pass5678');
    await openSignIn(new Browser(server, 'localhost'));
    // A sign-in that got its code and has not exchanged it yet.
    const c = new Browser(server, 'localhost');
    const started = await openSignIn(c);
    const back = await followToApp(c, await c.postForm(formAction(started.page.text), withProof(started.page.text, { caseNumber: mine, password: 'pass1234' })));
    const pending: PendingCode = { browser: c, code: back.searchParams.get('code')!, verifier: started.verifier, redirectUri: started.redirectUri };
    expect(pending.code).toBeTruthy();
    const sessionCookie = a.cookies.get('_session');
    expect(sessionCookie).toBeTruthy();

    const seen = new Set<string>();
    for (const c of candidates(await databaseText(), 16)) if (randomLooking(c)) seen.add(c);
    for (const file of filesIn(server.dataDir)) {
      for (const c of candidates(readFileSync(file).toString('latin1'), 20)) if (randomLooking(c)) seen.add(c);
    }
    const list = [...seen];
    expect(list.length).toBeGreaterThan(20);

    const accepted: string[] = [];
    const tryOne = async (c: string) => {
      // Opaque values (tokens, ids, cookie values) are base64url; bearer tokens are JWTs.
      const opaque = /^[A-Za-z0-9_-]{16,128}$/.test(c);
      const jwt = /^[\w-]+\.[\w-]+\.[\w-]+$/.test(c);
      for (const host of HOSTS) {
        if (opaque && (await refreshTokenAccepted(host, c))) accepted.push(`refresh token at ${host}: ${c}`);
        if (opaque && (await sessionCookieSignsIn(host, c))) accepted.push(`session cookie at ${host}: ${c}`);
        if ((opaque || jwt) && (await bearerAccepted(host, c))) accepted.push(`bearer at ${host}: ${c}`);
      }
      if (opaque && (await codeAccepted(pending, c))) accepted.push(`authorization code: ${c}`);
    };
    // A few at a time: quick, without starving a loaded machine.
    for (let i = 0; i < list.length; i += 8) await Promise.all(list.slice(i, i + 8).map(tryOne));
    expect(accepted).toEqual([]);

    // The probes do see acceptance: the reporters' own cookie and tokens still work.
    expect(await sessionCookieSignsIn('localhost', sessionCookie!)).toBe(true);
    expect(await bearerAccepted('localhost', live.access_token)).toBe(true);
    expect(await bearerAccepted('group.localhost', other.access_token)).toBe(true);
    expect(await refreshTokenAccepted('localhost', live.refresh_token)).toBe(true);
    expect(await codeAccepted(pending, pending.code)).toBe(true);
  }, 240_000);
});
