/**
 * A small browser stand-in for the identity tests: raw HTTP with a chosen `Host`
 * (the company comes from it; fetch cannot set it), a cookie jar, and the whole
 * authorization code + PKCE flow against the real embedded provider.
 */
import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { call, caseDto, form, oralDto } from './api.ts';
import { solve } from '../../core/pow.ts';
import { deriveReporterKeys } from '../../core/crypto/index.ts';

export const MOUNT = '/idp/realms/whistleblower';
/** Sent with every request, so a test can show it is stored nowhere. */
export const USER_AGENT = 'WB-Identity-Test-Agent/1.0';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

export class Browser {
  cookies = new Map<string, string>();
  /** Where requests really go when not to `server` (a process behind the same public host; two-processes.test.ts). */
  via?: { port: number };

  constructor(
    readonly server: TestServer,
    readonly host = 'localhost',
  ) {}

  get origin() {
    return `http://${this.host}:${this.server.port}`;
  }

  request(method: string, pathOrUrl: string, opts: { body?: string; headers?: Record<string, string> } = {}): Promise<RawResponse> {
    const u = new URL(pathOrUrl, this.origin);
    const headers: Record<string, string> = { host: `${this.host}:${this.server.port}`, 'user-agent': USER_AGENT, ...(opts.headers ?? {}) };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (opts.body !== undefined) headers['content-length'] = String(Buffer.byteLength(opts.body));
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: this.via?.port ?? this.server.port, method, path: u.pathname + u.search, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          for (const c of res.headers['set-cookie'] ?? []) {
            const [pair, ...attrs] = c.split(';');
            const eq = pair!.indexOf('=');
            const name = pair!.slice(0, eq).trim();
            const value = pair!.slice(eq + 1).trim();
            const expired = attrs.some((a) => /expires=Thu, 01 Jan 1970/i.test(a)) || value === '';
            if (expired) this.cookies.delete(name);
            else this.cookies.set(name, value);
          }
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') });
        });
      });
      req.on('error', reject);
      if (opts.body !== undefined) req.write(opts.body);
      req.end();
    });
  }

  get(p: string, headers?: Record<string, string>) {
    return this.request('GET', p, { headers });
  }

  postForm(p: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
    return this.request('POST', p, { body: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });
  }
}

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  id_token: string;
  expires_in: number;
  token_type: string;
  scope?: string;
}

/** The form's action on a rendered page. */
export function formAction(html: string): string {
  // The page's own form, not the bar's quick-exit form (a GET to /leave).
  const m = /<form(?![^>]*class="quick-exit")[^>]* action="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no form in page: ${html.slice(0, 500)}`);
  return m[1]!.replace(/&amp;/g, '&');
}

/** The query of an authorization request as the SPA sends it (src/private/services.ts); `over` replaces any part. */
export function authorizeParams(b: Browser, challenge = pkce().challenge, over: Record<string, string> = {}) {
  return new URLSearchParams({
    client_id: 'whistleblower-app',
    response_type: 'code',
    scope: 'openid offline_access',
    redirect_uri: `${b.origin}/private/callback`,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st',
    ...over,
  });
}

/**
 * The form's fields plus, when the page carries a proof-of-work (a burst of failed
 * sign-ins at its company), the solved `pow` field as the page's worker fills it.
 */
export function withProof(html: string, fields: Record<string, string>): Record<string, string> {
  const challenge = /data-pow-challenge="([^"]+)"/.exec(html)?.[1];
  if (!challenge) return fields;
  const difficulty = Number(/data-pow-difficulty="(\d+)"/.exec(html)![1]);
  return { ...fields, pow: `${challenge}:${solve(challenge, difficulty)}` };
}

/** Starts an authorization request and follows it to our sign-in page. */
export async function openSignIn(b: Browser, opts: { uiLocales?: string; redirectPath?: string; allowSession?: boolean; scope?: string } = {}) {
  const { verifier, challenge } = pkce();
  const state = randomBytes(8).toString('hex');
  const redirectUri = `${b.origin}${opts.redirectPath ?? '/private/callback'}`;
  const q = authorizeParams(b, challenge, {
    scope: opts.scope ?? 'openid offline_access',
    redirect_uri: redirectUri,
    state,
    ...(opts.uiLocales ? { ui_locales: opts.uiLocales } : {}),
  });
  const auth = await b.get(`${MOUNT}/auth?${q}`);
  expect(auth.status, auth.text).toBe(303);
  const interactionUrl = auth.headers.location!;
  if (opts.allowSession && !interactionUrl.startsWith(MOUNT)) {
    // Still signed in (single sign-on session): the provider answers at once.
    return { verifier, state, redirectUri, interactionUrl, page: undefined as unknown as RawResponse, silent: auth as RawResponse | undefined };
  }
  expect(interactionUrl).toMatch(new RegExp(`^${MOUNT}/interaction/[\\w-]+$`));
  const page = await b.get(interactionUrl);
  return { verifier, state, redirectUri, interactionUrl, page, silent: undefined as RawResponse | undefined };
}

/** Follows redirects inside the provider until one leaves it (to the app's redirect URI). */
export async function followToApp(b: Browser, res: RawResponse): Promise<URL> {
  let r = res;
  for (let i = 0; i < 6; i++) {
    expect([302, 303], r.text).toContain(r.status);
    const loc = new URL(r.headers.location!, b.origin);
    if (!loc.pathname.startsWith('/idp/')) return loc;
    r = await b.get(loc.pathname + loc.search);
  }
  throw new Error('too many redirects');
}

export async function exchangeCode(b: Browser, code: string, verifier: string, redirectUri: string): Promise<RawResponse> {
  return b.postForm(`${MOUNT}/token`, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: 'whistleblower-app' });
}

export async function refresh(b: Browser, refreshToken: string): Promise<RawResponse> {
  return b.postForm(`${MOUNT}/token`, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'whistleblower-app' });
}

/**
 * The whole sign-in: authorization request, our page, form post, code, tokens.
 * `answer.ms` gets how long the server took to answer the form post. The proof-of-work
 * is solved before it, as the page's worker does while the reporter types; how long a
 * browser takes to solve it is a figure of `npm run bench -- signin`.
 */
export async function signIn(b: Browser, caseNumber: string, password: string, opts: { newPassword?: string; allowSession?: boolean; answer?: { ms: number } } = {}): Promise<Tokens> {
  const { verifier, state, redirectUri, page, silent } = await openSignIn(b, { allowSession: opts.allowSession });
  let res: RawResponse;
  if (silent) {
    res = silent;
  } else {
    expect(page.status).toBe(200);
    const fields = withProof(page.text, { caseNumber, password });
    const posted = performance.now();
    res = await b.postForm(formAction(page.text), fields);
    if (opts.answer) opts.answer.ms = performance.now() - posted;
  }
  if (opts.newPassword) {
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain('id="newPassword"');
    res = await b.postForm(formAction(res.text), { newPassword: opts.newPassword, confirmPassword: opts.newPassword });
  }
  const back = await followToApp(b, res);
  expect(back.origin + back.pathname).toBe(redirectUri);
  expect(back.searchParams.get('state')).toBe(state);
  const code = back.searchParams.get('code');
  expect(code).toBeTruthy();
  const tok = await exchangeCode(b, code!, verifier, redirectUri);
  expect(tok.status, tok.text).toBe(200);
  return JSON.parse(tok.text) as Tokens;
}

export async function officerOf(server: TestServer, host: string): Promise<string> {
  const info = await call(server, 'GET', '/api/public/case/company-info', { host });
  expect(info.status).toBe(200);
  return info.data.protectionOfficers[0].id as string;
}

/** A followed case created through the public API; returns its 16-digit number. */
export async function newCase(server: TestServer, opts: { host?: string; password?: string; oral?: boolean; files?: { name: string; bytes: Buffer | string; type?: string }[] } = {}) {
  const host = opts.host ?? 'localhost';
  const officer = await officerOf(server, host);
  const password = opts.password ?? 'pass1234';
  const res = opts.oral
    ? await call(server, 'POST', '/api/public/case/new/by-phone', { host, json: oralDto(officer, { caseAccount: { follow: true, password } }) })
    : await call(server, 'POST', '/api/public/case/new/by-form', { host, body: form('caseDto', caseDto(officer, { caseAccount: { follow: true, password } }), opts.files ?? []) });
  expect(res.status, JSON.stringify(res.data)).toBe(201);
  return res.data.caseDto.caseNumber as string;
}

/** The salt and derivation the sign-in page asks for (issue 37). */
export async function kdfOf(b: Browser, caseNumber: string): Promise<{ status: number; data: any }> {
  const res = await b.request('POST', `${MOUNT}/signin/kdf`, { body: JSON.stringify({ caseNumber }), headers: { 'content-type': 'application/json' } });
  return { status: res.status, data: res.text ? JSON.parse(res.text) : undefined };
}

/**
 * The verifier as the sign-in page derives it (issue 37): salt and kdf from the
 * server, the derivation with core/crypto, as docs/api.md shows a script doing it.
 */
export async function deriveVerifier(b: Browser, caseNumber: string, password: string): Promise<{ verifier: string; kdf: unknown; key: CryptoKey }> {
  const { data } = await kdfOf(b, caseNumber);
  const keys = await deriveReporterKeys({ caseNumber, password, salt: Buffer.from(data.salt, 'base64url'), kdf: data.kdf });
  return { verifier: Buffer.from(keys.verifier).toString('base64url'), kdf: data.kdf, key: keys.reporterKey };
}

/** The whole sign-in with a verifier, as the page sends it; the form post's answer for a refusal. */
export async function signInWithVerifier(b: Browser, caseNumber: string, password: string): Promise<{ tokens?: Tokens; refused?: RawResponse }> {
  const { verifier: pkceVerifier, state, redirectUri, page } = await openSignIn(b);
  expect(page.status).toBe(200);
  const { verifier } = await deriveVerifier(b, caseNumber, password);
  const res = await b.postForm(formAction(page.text), withProof(page.text, { caseNumber, verifier }));
  if (res.status !== 303) return { refused: res };
  const back = await followToApp(b, res);
  expect(back.searchParams.get('state')).toBe(state);
  const tok = await exchangeCode(b, back.searchParams.get('code')!, pkceVerifier, redirectUri);
  expect(tok.status, tok.text).toBe(200);
  return { tokens: JSON.parse(tok.text) as Tokens };
}
