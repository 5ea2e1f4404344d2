/**
 * The embedded OpenID provider (node `oidc-provider`), one instance per issuer.
 *
 * The issuer is `<origin>/idp/realms/whistleblower`, the origin being the portal's
 * public URL or the company host the browser used, so `config.json` `idSettings`
 * and the provider's discovery document always agree. Instances share the same
 * database storage and keys; they differ only in issuer and allowed redirects.
 *
 * - public client `whistleblower-app`: authorization code + PKCE (S256 only), no
 *   client secret; the only redirect URI is the SPA's callback on the issuer's own
 *   origin and sign-out returns only to `/` (exact match, nothing else);
 * - access tokens are JWTs for the resource `<origin>/api/private` (resource
 *   indicator chosen by default), carrying `sub` (case id), `case_number`, `company`
 *   and `gen`, the account's token generation, which sign-out moves on;
 * - refresh tokens rotate on every use and end with the sign-in session;
 * - consent is implied for our own client (no consent page).
 */
import { Stream } from 'node:stream';
import Provider, { errors as oidcErrors } from 'oidc-provider';
import compress from 'koa-compress';
import { COMPRESSIBLE_TYPES, COMPRESSION_THRESHOLD_BYTES } from '../compression.ts';
import type { AppContext } from '../context.ts';
import { errorBody } from '../errors.ts';
import type { IdentitySettings } from './settings.ts';
import type { KeySet } from './keys.ts';
import { createAdapterClass, type PayloadCrypto } from './adapter.ts';

export const MOUNT = '/idp/realms/whistleblower';
export const CLIENT_ID = 'whistleblower-app';
export const RESOURCE_PATH = '/api/private';
export const RESOURCE_SCOPE = 'case';
/**
 * What the one access token may carry. It is also the token a standard client
 * presents at userinfo (`/me` below), so `openid` belongs to it: its `scope` claim and
 * the token answer's `scope` say what was granted (RFC 6749 §5.1), where they said ""
 * (oidc-provider puts on a resource's token only the scopes that resource lists).
 * Never `offline_access`: the SPA asks for it, but every refresh token ends with the
 * sign-in session and with sign-out (`expiresWithSession`), which is no offline access,
 * and oidc-provider drops it from a request without `prompt=consent` anyway.
 */
export const RESOURCE_SCOPES = `openid ${RESOURCE_SCOPE}`;
/** The SPA's sign-in callback (src/private/services.ts `CALLBACK_PATH`): the one registered redirect URI. */
export const CALLBACK_PATH = '/private/callback';

export interface ProviderHooks {
  /** Renders oidc-provider's own pages (sign-out, errors) in the reporter's language. */
  logoutSource(ctx: KoaCtx, form: string): Promise<void>;
  postLogoutSuccessSource(ctx: KoaCtx): Promise<void>;
  /** `/session/end` with no sign-in to end: our page, which goes on to where the client asked (no inline script). */
  nothingToSignOut(ctx: KoaCtx, form: string): Promise<void>;
  /**
   * The claims userinfo answers for one of our access tokens (a JWT for this issuer's
   * private API), or undefined when it is not one that the private API would accept.
   */
  userinfo(token: string, issuer: string): Promise<{ sub: string } | undefined>;
  /** The reporter confirmed sign-out: end what the session alone would leave alive. */
  signedOut(caseId: string): Promise<void>;
  renderError(ctx: KoaCtx, out: Record<string, string>, error: unknown): Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type KoaCtx = any;

export function resourceFor(origin: string): string {
  return `${origin}${RESOURCE_PATH}`;
}

export function createProvider(ctx: AppContext, issuer: string, keys: KeySet, settings: IdentitySettings, hooks: ProviderHooks, payloadCrypto: PayloadCrypto) {
  const origin = new URL(issuer).origin;
  const resource = resourceFor(origin);
  const { db } = ctx;

  const provider = new Provider(issuer, {
    adapter: createAdapterClass(db, payloadCrypto, issuer),
    clients: [
      {
        client_id: CLIENT_ID,
        client_name: 'Whistleblower portal',
        token_endpoint_auth_method: 'none',
        application_type: 'web',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        // Matched exactly (oidc-provider's own comparison): no other path, no
        // percent-encoded spelling of one, no other origin.
        redirect_uris: [`${origin}${CALLBACK_PATH}`],
        post_logout_redirect_uris: [`${origin}/`],
      },
    ],
    jwks: { keys: keys.signing },
    cookies: {
      keys: keys.cookies,
      long: { httpOnly: true, sameSite: 'lax', signed: true, path: '/idp/' },
      short: { httpOnly: true, sameSite: 'lax', signed: true },
    },
    claims: { openid: ['sub'] },
    scopes: ['openid', 'offline_access'],
    pkce: { required: () => true },
    responseTypes: ['code'],
    features: {
      devInteractions: { enabled: false },
      // Our one client is public: it may revoke its own tokens, and anything else is
      // quietly not revoked (RFC 7009 §2.2 answers 200 either way).
      revocation: { enabled: true, allowedPolicy: async (_ctx: KoaCtx, client: { clientId: string }, token: { clientId?: string }) => token.clientId === client.clientId },
      rpInitiatedLogout: { enabled: true, logoutSource: hooks.logoutSource, postLogoutSuccessSource: hooks.postLogoutSuccessSource },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => resource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: KoaCtx, indicator: string) => {
          if (indicator !== resource) {
            // Another company's API, or anything else: an OAuth `invalid_target`, never a 5xx.
            throw new oidcErrors.InvalidTarget();
          }
          return {
            scope: RESOURCE_SCOPES,
            audience: resource,
            accessTokenTTL: settings.accessTokenTtl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    interactions: {
      url: async (_ctx: KoaCtx, interaction: { uid: string }) => `${MOUNT}/interaction/${interaction.uid}`,
    },
    ttl: {
      AccessToken: () => settings.accessTokenTtl,
      AuthorizationCode: () => 60,
      IdToken: () => settings.idTokenTtl,
      RefreshToken: () => settings.refreshTokenTtl,
      Interaction: () => settings.interactionTtl,
      Session: () => settings.sessionTtl,
      Grant: () => settings.sessionTtl,
    },
    // Every refresh rotates; the old refresh token is consumed (reuse revokes the grant).
    rotateRefreshToken: () => true,
    issueRefreshToken: async (_ctx: KoaCtx, client: { grantTypeAllowed(t: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    // Tokens end with the sign-in session, so signing out ends them too.
    expiresWithSession: async () => true,
    // The only browser origin that may call the token endpoint is the portal's own.
    clientBasedCORS: (_ctx: KoaCtx, requestOrigin: string) => requestOrigin === origin,
    findAccount: async (_ctx: KoaCtx, sub: string) => {
      const row = await db
        .selectFrom('report_case')
        .innerJoin('case_account', 'case_account.case_id', 'report_case.id')
        .select(['report_case.id'])
        .where('report_case.id', '=', isUuid(sub) ? sub : '00000000-0000-0000-0000-000000000000')
        .executeTakeFirst();
      if (!row) return undefined;
      return { accountId: row.id, claims: async () => ({ sub: row.id }) };
    },
    extraTokenClaims: async (_ctx: KoaCtx, token: { kind: string; accountId?: string }) => {
      if (token.kind !== 'AccessToken' || !token.accountId || !isUuid(token.accountId)) return undefined;
      const row = await db
        .selectFrom('report_case')
        .innerJoin('case_account', 'case_account.case_id', 'report_case.id')
        .select(['report_case.case_number', 'report_case.company_id', 'case_account.token_generation'])
        .where('report_case.id', '=', token.accountId)
        .executeTakeFirst();
      return row ? { case_number: row.case_number, company: row.company_id, gen: row.token_generation } : undefined;
    },
    // Our own client: consent is implied, so a grant covering what it asks is made here.
    loadExistingGrant: async (kctx: KoaCtx) => {
      const clientId = kctx.oidc.client.clientId;
      const grantId = kctx.oidc.result?.consent?.grantId || kctx.oidc.session.grantIdFor(clientId);
      let grant = grantId ? await kctx.oidc.provider.Grant.find(grantId) : undefined;
      if (!grant) {
        grant = new kctx.oidc.provider.Grant({ clientId, accountId: kctx.oidc.session.accountId });
      }
      grant.addOIDCScope('openid offline_access');
      grant.addResourceScope(resource, RESOURCE_SCOPES);
      await grant.save();
      return grant;
    },
    renderError: hooks.renderError,
    enabledJWA: { idTokenSigningAlgValues: ['RS256'] },
  });
  provider.proxy = !!ctx.config.publicUrl;

  // The provider answers on the raw response, past @fastify/compress: its answers are
  // compressed here by the same rules (server/compression.ts). First, so it sees the
  // body every middleware after it settles on. Brotli at quality 4, then gzip, are
  // koa-compress's own defaults; deflate and zstd are not offered, as on Fastify's side.
  const compressAnswer = compress({
    filter: (type: string) => COMPRESSIBLE_TYPES.test(type),
    threshold: COMPRESSION_THRESHOLD_BYTES,
    deflate: false,
    zstd: false,
  });
  provider.use(compressAnswer);
  provider.use(async (kctx: KoaCtx, next: () => Promise<void>) => {
    await next();
    // Koa turns an object body (the discovery document, a token answer) into JSON only
    // as it responds; as text here its size is known, so the threshold holds.
    const body: unknown = kctx.body;
    if (body !== null && typeof body === 'object' && !(body instanceof Stream) && !Buffer.isBuffer(body)) kctx.body = JSON.stringify(body);
  });

  // Every answer of the provider: never stored by a cache, and never Koa's plain-text
  // default for a refusal. The provider's own errors already are OAuth error bodies
  // (JSON) or our error page (renderError); what is left (an unknown path or method,
  // Koa's "Not Found") gets the portal's JSON error body (issue 11, findings 6, 11).
  provider.use(async (kctx: KoaCtx, next: () => Promise<void>) => {
    try {
      await next();
    } finally {
      kctx.set('cache-control', 'no-store');
    }
    if (kctx.status >= 400 && (kctx.body === undefined || kctx.body === null || (typeof kctx.body === 'string' && kctx.response.is('text/plain')))) {
      const notFound = kctx.status === 404 || kctx.status === 405;
      kctx.status = notFound ? 404 : kctx.status;
      kctx.body = notFound
        ? errorBody('NOT_FOUND', `No such resource: ${kctx.method} ${MOUNT}${kctx.path}`)
        : errorBody(kctx.status >= 500 ? 'INTERNAL' : 'BAD_REQUEST', kctx.status >= 500 ? 'Something went wrong on our side.' : 'Bad request.');
      kctx.set('cache-control', 'no-store');
    }
  });

  // Userinfo (OpenID Connect Core §5.3), listed in discovery. oidc-provider's own
  // answers only opaque tokens without an audience, and a client here gets exactly
  // one access token: the JWT for the private API. That token, checked as the private
  // API checks it (issuer, signature, audience, type, case, token generation) and
  // granted `openid`, gets the claims; anything else goes on to the provider, which
  // refuses it with its own `invalid_token` and WWW-Authenticate challenge.
  provider.use(async (kctx: KoaCtx, next: () => Promise<void>) => {
    if (kctx.path !== '/me' || (kctx.method !== 'GET' && kctx.method !== 'POST')) return next();
    const m = /^Bearer ([A-Za-z0-9_\-.]+)$/.exec(String(kctx.get('authorization') ?? '').trim());
    const claims = m ? await hooks.userinfo(m[1]!, issuer) : undefined;
    if (!claims) return next();
    kctx.status = 200;
    kctx.type = 'application/json; charset=utf-8';
    kctx.body = claims;
  });

  // `/session/end` without a sign-in: oidc-provider would send its stock page ("Submitting
  // Callback", English, an inline script the CSP refuses); ours says so in the company's
  // language and goes on through the same form (logout.js, same origin).
  provider.use(async (kctx: KoaCtx, next: () => Promise<void>) => {
    // The stock page adds its inline script's hash to our CSP: ours keeps the policy as it was.
    const csp = kctx.response.get('content-security-policy');
    await next();
    if (kctx.oidc?.route !== 'end_session' || kctx.status !== 200 || kctx.oidc.session?.accountId) return;
    if (csp) kctx.set('content-security-policy', csp);
    const secret = kctx.oidc.session?.state?.secret;
    if (typeof secret !== 'string') return;
    const action = kctx.oidc.urlFor('end_session_confirm');
    await hooks.nothingToSignOut(kctx, `<form id="op.logoutForm" method="post" action="${escapeHtml(action)}"><input type="hidden" name="xsrf" value="${escapeHtml(secret)}"/></form>`);
  });

  // Sign-out is confirmed here (RP-initiated logout's confirm step). Awaited before the
  // answer leaves, so the reporter's old access tokens are dead by the time the
  // browser is back on `/`.
  provider.use(async (kctx: KoaCtx, next: () => Promise<void>) => {
    await next();
    if (kctx.oidc?.route !== 'end_session_confirm' || kctx.status !== 303) return;
    // The "signed out" page in the language of the confirmation (its form carries it).
    const lang = kctx.query?.ui_locales;
    const location = String(kctx.response.get('location') ?? '');
    if (typeof lang === 'string' && /^[a-z]{2}(-[A-Za-z]{2})?$/.test(lang) && /\/session\/end\/success(\?|$)/.test(location)) {
      kctx.set('location', `${location}${location.includes('?') ? '&' : '?'}ui_locales=${lang}`);
    }
    const accountId = kctx.oidc.session?.accountId;
    if (typeof accountId === 'string' && isUuid(accountId)) await hooks.signedOut(accountId);
  });

  // Not a log line can carry who a reporter is: the provider's events are not logged with request data.
  provider.on('server_error', (_kctx: KoaCtx, err: Error) => ctx.log.error({ err: { message: err.message, stack: err.stack } }, 'identity provider error'));
  return provider;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(s: string): boolean {
  return UUID.test(s);
}
