/**
 * Who may do what, in one place (issue 39; docs/decisions/administration.md). Every
 * handler, administration and operator route asks `authorize` and nothing else; no
 * route reads a token, a cookie or a role column itself.
 *
 * Callers:
 * - the **operator** (the portal's owner, across companies): the loopback admin token
 *   of DATA_DIR/admin.token (the CLIs), or a browser session of an operator account
 *   (`role_operator`, no company; `npm run handler -- create-operator`);
 * - a company **admin** (`role_admin`): manages the company's settings and handler
 *   accounts; reads no case unless also a handler;
 * - a **handler** (`role_handler`): reads and answers the company's cases.
 *
 * Credentials: the workspace session cookie (signed in with password and second
 * factor) or a `wbh_` API token. A token stands for a handler's case work only: the
 * administration and the making of tokens need a session, so a token never stands in
 * for the second factor the workspace asks for. A disabled account, an expired or
 * revoked token, an idle or ended session, or a session used on another company's
 * host all answer 401 the same way.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { companyByHost, requestHost } from '../companies/service.ts';
import { bindCompany } from '../logging.ts';
import { hashToken, TOKEN_PREFIX } from '../handlers/accounts.ts';
import type { HandlerIdentity } from '../handlers/cases.ts';

/** 'signedIn': any account or the operator, whatever its roles (the session's own routes). */
export type Role = 'operator' | 'admin' | 'handler' | 'signedIn';

export interface Roles {
  operator: boolean;
  admin: boolean;
  handler: boolean;
}

/** An authenticated caller. */
export interface Principal {
  /** The account; null for the CLIs' admin token. */
  accountId: string | null;
  name: string;
  email: string | null;
  /** The account's company; null for the operator. */
  companyId: string | null;
  roles: Roles;
  via: 'adminToken' | 'session' | 'apiToken';
  /** The session's end at the latest (sessions only). */
  sessionExpiresAt?: Date;
  /** The API token's row (tokens only). */
  tokenId?: string;
}

export const SESSION_COOKIE = 'wb_handler';
const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
const UNAUTHORIZED = 'Sign in again: the session has ended, or a valid handler token is needed.';

function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** The workspace session token from the cookie. */
export function sessionToken(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie;
  return header ? parseCookie(header)[SESSION_COOKIE] : undefined;
}

/**
 * The session cookie: HttpOnly, SameSite=Strict, for every /api/ path, because the
 * administration (/api/admin/) takes the same session as the workspace (/api/handler/).
 */
export function sessionCookie(req: FastifyRequest, token: string, maxAgeSeconds: number): string {
  return stringifySetCookie({ name: SESSION_COOKIE, value: token, httpOnly: true, sameSite: 'strict', secure: req.protocol === 'https', path: '/api/', maxAge: maxAgeSeconds });
}

/**
 * The admin token's two locks: the caller is on the loopback interface and not behind
 * a proxy (a proxied request names a client and gets 404, as if the route were not
 * there), and sends the token.
 */
function isLoopbackCli(req: FastifyRequest): boolean {
  const proxied = req.headers['x-forwarded-for'] !== undefined || req.headers.forwarded !== undefined || req.headers['x-real-ip'] !== undefined;
  return !proxied && LOOPBACK.has(req.socket.remoteAddress ?? '');
}

function notFound(req: FastifyRequest): HttpError {
  return new HttpError(404, 'NOT_FOUND', `No such resource: ${req.method} ${req.url.split('?')[0]}`);
}

const accountColumns = ['id', 'company_id', 'name', 'email', 'role_handler', 'role_admin', 'role_operator', 'disabled_at'] as const;

type AccountRow = { id: string; company_id: string | null; name: string; email: string | null; role_handler: boolean; role_admin: boolean; role_operator: boolean; disabled_at: Date | string | null };

function rolesOf(row: AccountRow): Roles {
  // An operator's account has no company; a company account is never an operator.
  return row.company_id === null ? { operator: row.role_operator, admin: false, handler: false } : { operator: false, admin: row.role_admin, handler: row.role_handler };
}

/** The session's account, moving its idle clock on; undefined when unknown, idle too long, expired or disabled. */
export async function sessionPrincipal(ctx: AppContext, token: string, idleTimeoutMs: number): Promise<Principal | undefined> {
  const now = new Date();
  const row = await ctx.db
    .updateTable('handler_session')
    .set({ last_seen_at: now })
    .where('token_hash', '=', hashToken(token))
    .where('last_seen_at', '>', new Date(now.getTime() - idleTimeoutMs))
    .where('expires_at', '>', now)
    .returning(['handler_id', 'expires_at'])
    .executeTakeFirst();
  if (!row) return undefined;
  const a = await ctx.db.selectFrom('handler_account').select(accountColumns).where('id', '=', row.handler_id).executeTakeFirst();
  if (!a || a.disabled_at) return undefined;
  return { accountId: a.id, name: a.name, email: a.email, companyId: a.company_id, roles: rolesOf(a), via: 'session', sessionExpiresAt: new Date(row.expires_at) };
}

async function apiTokenPrincipal(ctx: AppContext, token: string): Promise<Principal | undefined> {
  const now = new Date();
  const row = await ctx.db
    .updateTable('handler_token')
    .set({ last_used_at: now })
    .where('token_hash', '=', hashToken(token))
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['id', 'handler_id'])
    .executeTakeFirst();
  if (!row) return undefined;
  const a = await ctx.db.selectFrom('handler_account').select(accountColumns).where('id', '=', row.handler_id).executeTakeFirst();
  if (!a || a.disabled_at) return undefined;
  return { accountId: a.id, name: a.name, email: a.email, companyId: a.company_id, roles: rolesOf(a), via: 'apiToken', tokenId: row.id };
}

/**
 * Who sends the request, or null when it carries no credential. A credential that is
 * wrong, expired, revoked or belongs to a disabled account throws 401.
 */
export async function identify(ctx: AppContext, req: FastifyRequest, idleTimeoutMs: number, adminTokenWelcome = true): Promise<Principal | null> {
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (m) {
    const secret = m[1]!;
    if (secret.startsWith(TOKEN_PREFIX) || !adminTokenWelcome) {
      const p = await apiTokenPrincipal(ctx, secret);
      if (!p) throw new HttpError(401, 'UNAUTHORIZED', UNAUTHORIZED);
      return p;
    }
    // Not a handler token: only the loopback admin token is left, and off loopback the
    // admin API does not exist.
    if (!isLoopbackCli(req)) throw notFound(req);
    if (!sameSecret(secret, ctx.adminToken)) throw new HttpError(401, 'UNAUTHORIZED', 'The admin token (DATA_DIR/admin.token) is needed.');
    return { accountId: null, name: 'operator (command line)', email: null, companyId: null, roles: { operator: true, admin: false, handler: false }, via: 'adminToken' };
  }
  const token = sessionToken(req);
  if (!token) return null;
  const p = await sessionPrincipal(ctx, token, idleTimeoutMs);
  if (!p) throw new HttpError(401, 'UNAUTHORIZED', UNAUTHORIZED);
  // A company account's session works on its company's hosts only.
  if (p.companyId !== null) {
    const company = await companyByHost(ctx.db, requestHost(req));
    if (company?.id !== p.companyId) throw new HttpError(401, 'UNAUTHORIZED', UNAUTHORIZED);
  }
  return p;
}

export interface AuthorizeOptions {
  /**
   * For 'admin': the company acted on. The operator may act on any; a company admin
   * only on their own (another company answers 404, as if it did not exist).
   */
  companyId?: string;
  /** Refuse API tokens (403 SESSION_REQUIRED): the act needs the second factor of a session. */
  sessionOnly?: boolean;
}

/**
 * The one authorisation entry point. 'handler' answers the handler (with a company);
 * 'admin' the operator or the company's admin; 'operator' only the operator.
 * Without any credential, operator-only routes answer 404 off loopback (the admin API
 * hides) and everything else 401.
 */
export async function authorize(ctx: AppContext, req: FastifyRequest, need: 'handler', opts?: AuthorizeOptions & { idleTimeoutMs?: number }): Promise<Principal & HandlerIdentity>;
export async function authorize(ctx: AppContext, req: FastifyRequest, need: Role, opts?: AuthorizeOptions & { idleTimeoutMs?: number }): Promise<Principal>;
export async function authorize(ctx: AppContext, req: FastifyRequest, need: Role, opts: AuthorizeOptions & { idleTimeoutMs?: number } = {}): Promise<Principal> {
  const p = await identify(ctx, req, opts.idleTimeoutMs ?? IDLE_MS, need === 'operator' || need === 'admin');
  if (!p) {
    if (need === 'operator' && !isLoopbackCli(req)) throw notFound(req);
    throw new HttpError(401, 'UNAUTHORIZED', need === 'operator' ? 'The admin token (DATA_DIR/admin.token) or an operator sign-in is needed.' : UNAUTHORIZED);
  }
  if (p.companyId) bindCompany(req, p.companyId);
  if (need === 'signedIn') {
    if (opts.sessionOnly && p.via !== 'session') throw new HttpError(403, 'SESSION_REQUIRED', 'This needs a workspace sign-in with the second factor.');
    return p;
  }
  if ((opts.sessionOnly || need !== 'handler') && p.via === 'apiToken') {
    throw new HttpError(403, 'SESSION_REQUIRED', 'An API token reads and answers cases only; this needs a workspace sign-in with the second factor.');
  }
  if (need === 'handler') {
    if (!p.roles.handler || !p.companyId) throw new HttpError(403, 'FORBIDDEN', 'This account does not read cases.');
    return Object.assign(p, { id: p.accountId!, company_id: p.companyId, name: p.name });
  }
  if (need === 'operator') {
    if (!p.roles.operator) throw new HttpError(403, 'FORBIDDEN', 'Only the portal operator may do this.');
    return p;
  }
  // admin
  if (p.roles.operator) return p;
  if (!p.roles.admin) throw new HttpError(403, 'FORBIDDEN', "Only the company's administrator may do this.");
  if (opts.companyId !== undefined && opts.companyId !== p.companyId) throw new HttpError(404, 'UNKNOWN_COMPANY', 'No such company.', 'company');
  return p;
}

/** The same idle limit as the workspace's (server/handlers/auth.ts IDLE_TIMEOUT_MS); kept here to avoid an import cycle. */
const IDLE_MS = 15 * 60_000;

/** How the administration trail names the caller. */
export function actorOf(p: Principal): { actorId: string | null; actorName: string; actorRole: string } {
  return { actorId: p.accountId, actorName: p.name, actorRole: p.roles.operator ? (p.via === 'adminToken' ? 'operator-cli' : 'operator') : 'admin' };
}
