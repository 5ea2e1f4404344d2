/**
 * The life of a company's accounts (issue 39; docs/decisions/administration.md):
 * invite, edit, disable and re-enable, remove, reset (a new enrolment; the old
 * password, second factor, recovery codes, sessions and tokens stop at once), end
 * every session; API tokens made, listed and revoked. Every act writes one row of
 * the administration trail in the same transaction, so there is no act without its
 * row. Who may call these is decided before, in server/security/roles.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
import type { DB } from '../db/schema.ts';
import type { Database } from '../db/database.ts';
import { HttpError } from '../errors.ts';
import { createHandlerAccount, enrolmentLink, hashToken, HandlerAccountError, newApiToken, newEnrolment, TOKEN_TTL_MS } from './accounts.ts';
import { asLanguage, enrolmentMail, portalUrl } from '../mail/messages.ts';
import { describeSmtpError } from '../mail/transport.ts';

export interface Actor {
  actorId: string | null;
  actorName: string;
  actorRole: string;
}

export type TrailAction =
  | 'COMPANY_CREATED'
  | 'ACCOUNT_INVITED'
  | 'ACCOUNT_UPDATED'
  | 'ACCOUNT_DISABLED'
  | 'ACCOUNT_ENABLED'
  | 'ACCOUNT_REMOVED'
  | 'ACCOUNT_RESET'
  | 'SESSIONS_ENDED'
  | 'TOKEN_CREATED'
  | 'TOKEN_REVOKED'
  | 'OPERATOR_CREATED'
  | (string & {});

export async function appendTrail(
  db: Database | Transaction<DB>,
  companyId: string | null,
  actor: Actor,
  action: TrailAction,
  target?: { id: string; name: string } | null,
  detail: Record<string, unknown> = {},
): Promise<void> {
  await db
    .insertInto('admin_trail')
    .values({ company_id: companyId, at: new Date(), actor_id: actor.actorId, actor_name: actor.actorName, actor_role: actor.actorRole, action, target_id: target?.id ?? null, target_name: target?.name ?? null, detail: JSON.stringify(detail) })
    .execute();
}

export interface TrailEntry {
  id: string;
  at: string;
  actor: { id: string | null; name: string; role: string };
  action: string;
  target: { id: string; name: string | null } | null;
  detail: Record<string, unknown>;
}

/** The company's trail, newest first (the operator's own acts: companyId null). */
export async function readTrail(db: Database, companyId: string | null, limit = 200): Promise<TrailEntry[]> {
  const rows = await db
    .selectFrom('admin_trail')
    .selectAll()
    .where((eb) => (companyId === null ? eb('company_id', 'is', null) : eb('company_id', '=', companyId)))
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: String(r.id),
    at: new Date(r.at).toISOString(),
    actor: { id: r.actor_id, name: r.actor_name, role: r.actor_role },
    action: r.action,
    target: r.target_id ? { id: r.target_id, name: r.target_name } : null,
    detail: JSON.parse(r.detail) as Record<string, unknown>,
  }));
}

export type AccountState = 'invited' | 'active' | 'disabled' | 'expired';

export interface AccountView {
  id: string;
  name: string;
  email: string | null;
  officers: string[];
  roles: { admin: boolean; handler: boolean };
  enrolled: boolean;
  enrolledAt: string | null;
  lastSignInAt: string | null;
  state: AccountState;
  enrolmentExpiresAt: string | null;
  activeSessions: number;
  activeTokens: number;
}

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

/** The company's accounts, by name. */
export async function listAccounts(db: Database, companyId: string): Promise<AccountView[]> {
  const now = new Date();
  const rows = await db
    .selectFrom('handler_account')
    .select(['id', 'name', 'email', 'role_admin', 'role_handler', 'enrolled_at', 'last_signin_at', 'disabled_at', 'enrolment_expires_at', 'enrolment_code_hash'])
    .select((eb) => [
      eb.selectFrom('handler_session').select(eb.fn.countAll<number>().as('n')).whereRef('handler_session.handler_id', '=', 'handler_account.id').where('expires_at', '>', now).as('sessions'),
      eb.selectFrom('handler_token').select(eb.fn.countAll<number>().as('n')).whereRef('handler_token.handler_id', '=', 'handler_account.id').where('revoked_at', 'is', null).where('expires_at', '>', now).as('tokens'),
    ])
    .where('company_id', '=', companyId)
    .orderBy('name')
    .orderBy('id')
    .execute();
  const officers = rows.length ? await db.selectFrom('handler_officer').select(['handler_id', 'officer_id']).where('handler_id', 'in', rows.map((r) => r.id)).orderBy('officer_id').execute() : [];
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    email: r.email,
    officers: officers.filter((o) => o.handler_id === r.id).map((o) => o.officer_id),
    roles: { admin: r.role_admin, handler: r.role_handler },
    enrolled: r.enrolled_at !== null && r.enrolment_code_hash === null,
    enrolledAt: iso(r.enrolled_at),
    lastSignInAt: iso(r.last_signin_at),
    state: r.disabled_at ? 'disabled' : r.enrolment_code_hash !== null ? (r.enrolment_expires_at && new Date(r.enrolment_expires_at) > now ? 'invited' : 'expired') : 'active',
    enrolmentExpiresAt: r.enrolment_code_hash ? iso(r.enrolment_expires_at) : null,
    activeSessions: Number(r.sessions ?? 0),
    activeTokens: Number(r.tokens ?? 0),
  }));
}

/** One account of the company, or 404 ACCOUNT_NOT_FOUND (another company's account included). */
export async function accountOf(db: Database | Transaction<DB>, companyId: string, accountId: string) {
  const row = /^[0-9a-f-]{36}$/i.test(accountId)
    ? await db.selectFrom('handler_account').select(['id', 'name', 'email', 'disabled_at', 'company_id']).where('id', '=', accountId.toLowerCase()).where('company_id', '=', companyId).executeTakeFirst()
    : undefined;
  if (!row) throw new HttpError(404, 'ACCOUNT_NOT_FOUND', 'The company has no such account.');
  return row;
}

export interface Invitation {
  account: AccountView;
  /** The enrolment link, when it was not mailed (shown once). */
  enrolmentLink: string | null;
  mailed: boolean;
  enrolmentExpiresAt: string;
}

interface CompanyInfo {
  id: string;
  name: string;
  hosts: string[];
  defaultLanguage: string;
  officerIds: string[];
}

export async function companyInfo(db: Database, companyId: string): Promise<CompanyInfo> {
  const c = await db.selectFrom('company').select(['id', 'name', 'settings']).where('id', '=', companyId).executeTakeFirst();
  if (!c) throw new HttpError(404, 'UNKNOWN_COMPANY', 'No such company.', 'company');
  const hosts = await db.selectFrom('company_host').select('host').where('company_id', '=', companyId).orderBy('host').execute();
  const settings = (typeof c.settings === 'string' ? JSON.parse(c.settings) : c.settings) as { defaultLanguage?: string; protectionOfficers?: { id: string }[] };
  return { id: c.id, name: c.name, hosts: hosts.map((h) => h.host), defaultLanguage: settings.defaultLanguage ?? 'en', officerIds: (settings.protectionOfficers ?? []).map((o) => o.id) };
}

/**
 * Sends the enrolment link to the account's own address when mail is set up; answers
 * the link itself otherwise (or when the send failed), for the caller to show once.
 */
async function deliverEnrolment(ctx: AppContext, company: CompanyInfo, to: string, name: string, code: string, origin?: string): Promise<{ link: string | null; mailed: boolean }> {
  const portal = portalOf(ctx, company, origin);
  const link = enrolmentLink(portal, code);
  if (!ctx.mailer.enabled) return { link, mailed: false };
  try {
    await ctx.mailer.send(enrolmentMail(asLanguage(company.defaultLanguage, 'en'), to, name, company.name, link, portal));
    return { link: null, mailed: true };
  } catch (err) {
    ctx.log.warn({ err: { message: describeSmtpError(err) } }, 'enrolment mail not sent; the link is shown instead');
    return { link, mailed: false };
  }
}

/**
 * The portal address in an enrolment link when PUBLIC_URL is not set: the caller's own
 * origin when it is one of the company's hosts, else the company's first host on the
 * caller's scheme and port (one server serves every host); with PUBLIC_URL, or without
 * a caller's origin, the mails' rule (server/mail/messages.ts portalUrl).
 */
export function portalOf(ctx: Pick<AppContext, 'config'>, company: { hosts: string[] }, origin?: string): string {
  if (origin && !ctx.config.publicUrl && company.hosts.length) {
    try {
      const u = new URL(origin);
      if (company.hosts.includes(u.hostname.toLowerCase())) return u.origin;
      // Another host of this one server (the operator's): the company's first host, on the same scheme and port.
      return `${u.protocol}//${company.hosts[0]}${u.port ? `:${u.port}` : ''}`;
    } catch {
      // not an origin: the mails' rule
    }
  }
  return portalUrl(ctx.config, company);
}

export interface InviteInput {
  name: string;
  email: string;
  officers: string[];
  admin: boolean;
  handler: boolean;
}

export async function inviteAccount(ctx: AppContext, companyId: string, actor: Actor, input: InviteInput, origin?: string): Promise<Invitation> {
  const company = await companyInfo(ctx.db, companyId);
  let created;
  try {
    created = await createHandlerAccount(ctx.db, companyId, input.name, { email: input.email, officers: input.officers, knownOfficers: company.officerIds, roles: { admin: input.admin, handler: input.handler }, token: false });
  } catch (err) {
    if (err instanceof HandlerAccountError) throw new HttpError(err.code === 'EMAIL_TAKEN' ? 409 : 400, err.code, err.message, err.field);
    throw err;
  }
  await appendTrail(ctx.db, companyId, actor, 'ACCOUNT_INVITED', { id: created.id, name: input.name }, { email: input.email, officers: input.officers, admin: input.admin, handler: input.handler });
  const sent = await deliverEnrolment(ctx, company, input.email, input.name, created.enrolmentCode!, origin);
  const account = (await listAccounts(ctx.db, companyId)).find((a) => a.id === created.id)!;
  return { account, enrolmentLink: sent.link, mailed: sent.mailed, enrolmentExpiresAt: created.enrolmentExpiresAt!.toISOString() };
}

export interface AccountChange {
  name?: string;
  officers?: string[];
  admin?: boolean;
  handler?: boolean;
}

export async function updateAccount(ctx: AppContext, companyId: string, actor: Actor, accountId: string, change: AccountChange): Promise<AccountView> {
  const company = await companyInfo(ctx.db, companyId);
  if (change.officers) {
    const unknown = change.officers.find((o) => !company.officerIds.includes(o));
    if (unknown !== undefined) throw new HttpError(400, 'UNKNOWN_OFFICER', `The company has no protection officer "${unknown}".`, 'officers');
  }
  await ctx.db.transaction().execute(async (trx) => {
    const a = await accountOf(trx, companyId, accountId);
    const set: { name?: string; role_admin?: boolean; role_handler?: boolean } = {};
    if (change.name !== undefined) set.name = change.name;
    if (change.admin !== undefined) set.role_admin = change.admin;
    if (change.handler !== undefined) set.role_handler = change.handler;
    if (Object.keys(set).length) await trx.updateTable('handler_account').set(set).where('id', '=', a.id).execute();
    if (change.officers) {
      await trx.deleteFrom('handler_officer').where('handler_id', '=', a.id).execute();
      const officers = [...new Set(change.officers)];
      if (officers.length) await trx.insertInto('handler_officer').values(officers.map((officer_id) => ({ handler_id: a.id, officer_id }))).execute();
    }
    await appendTrail(trx, companyId, actor, 'ACCOUNT_UPDATED', { id: a.id, name: change.name ?? a.name }, { ...change });
  });
  return (await listAccounts(ctx.db, companyId)).find((x) => x.id === accountId.toLowerCase())!;
}

/** Ends every session of the account; its tokens too when `tokens`. */
async function endAccess(trx: Transaction<DB>, accountId: string, tokens: boolean): Promise<{ sessions: number; tokens: number }> {
  const s = await trx.deleteFrom('handler_session').where('handler_id', '=', accountId).executeTakeFirst();
  let t = 0;
  if (tokens) {
    const r = await trx.updateTable('handler_token').set({ revoked_at: new Date() }).where('handler_id', '=', accountId).where('revoked_at', 'is', null).executeTakeFirst();
    t = Number(r.numUpdatedRows);
  }
  return { sessions: Number(s.numDeletedRows), tokens: t };
}

export async function setDisabled(ctx: AppContext, companyId: string, actor: Actor, accountId: string, disabled: boolean): Promise<AccountView> {
  await ctx.db.transaction().execute(async (trx) => {
    const a = await accountOf(trx, companyId, accountId);
    if (actor.actorId === a.id && disabled) throw new HttpError(409, 'OWN_ACCOUNT', 'An administrator cannot disable their own account.');
    await trx.updateTable('handler_account').set({ disabled_at: disabled ? new Date() : null }).where('id', '=', a.id).execute();
    // Tokens are refused while the account is disabled (roles.ts) and work again after.
    const ended = disabled ? await endAccess(trx, a.id, false) : { sessions: 0, tokens: 0 };
    await appendTrail(trx, companyId, actor, disabled ? 'ACCOUNT_DISABLED' : 'ACCOUNT_ENABLED', { id: a.id, name: a.name }, disabled ? { sessionsEnded: ended.sessions } : {});
  });
  return (await listAccounts(ctx.db, companyId)).find((x) => x.id === accountId.toLowerCase())!;
}

export async function removeAccount(ctx: AppContext, companyId: string, actor: Actor, accountId: string): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const a = await accountOf(trx, companyId, accountId);
    if (actor.actorId === a.id) throw new HttpError(409, 'OWN_ACCOUNT', 'An administrator cannot remove their own account.');
    // Sessions, tokens, recovery codes, officer ties and read marks go with the row (cascade).
    await trx.deleteFrom('handler_account').where('id', '=', a.id).execute();
    await appendTrail(trx, companyId, actor, 'ACCOUNT_REMOVED', { id: a.id, name: a.name }, { email: a.email });
  });
}

export type ResetWhat = 'password' | 'secondFactor';

/**
 * A new enrolment: the password, the TOTP secret, the recovery codes, every session and
 * every token stop in this transaction; the account works again once its person has
 * enrolled with the new link. Either reset needs the whole enrolment, which sets both.
 */
export async function resetAccount(ctx: AppContext, companyId: string, actor: Actor, accountId: string, what: ResetWhat, origin?: string): Promise<Invitation> {
  const company = await companyInfo(ctx.db, companyId);
  const enrolment = newEnrolment();
  const a = await ctx.db.transaction().execute(async (trx) => {
    const a = await accountOf(trx, companyId, accountId);
    if (!a.email) throw new HttpError(409, 'NO_EMAIL', 'This account has no e-mail address to enrol with.');
    await trx
      .updateTable('handler_account')
      .set({ password_hash: null, totp_secret_enc: null, totp_last_step: null, enrolled_at: null, enrolment_code_hash: hashToken(enrolment.code), enrolment_expires_at: enrolment.expiresAt })
      .where('id', '=', a.id)
      .execute();
    await trx.deleteFrom('handler_recovery_code').where('handler_id', '=', a.id).execute();
    const ended = await endAccess(trx, a.id, true);
    await appendTrail(trx, companyId, actor, 'ACCOUNT_RESET', { id: a.id, name: a.name }, { what, sessionsEnded: ended.sessions, tokensRevoked: ended.tokens });
    return a;
  });
  const sent = await deliverEnrolment(ctx, company, a.email!, a.name, enrolment.code, origin);
  const account = (await listAccounts(ctx.db, companyId)).find((x) => x.id === a.id)!;
  return { account, enrolmentLink: sent.link, mailed: sent.mailed, enrolmentExpiresAt: enrolment.expiresAt.toISOString() };
}

export async function endSessions(ctx: AppContext, companyId: string, actor: Actor, accountId: string): Promise<{ sessionsEnded: number }> {
  return ctx.db.transaction().execute(async (trx) => {
    const a = await accountOf(trx, companyId, accountId);
    const ended = await endAccess(trx, a.id, false);
    await appendTrail(trx, companyId, actor, 'SESSIONS_ENDED', { id: a.id, name: a.name }, { sessionsEnded: ended.sessions });
    return { sessionsEnded: ended.sessions };
  });
}

// ---- API tokens -------------------------------------------------------------------

export interface TokenView {
  id: string;
  label: string;
  madeBy: string;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
  state: 'active' | 'expired' | 'revoked';
}

export async function listTokens(db: Database, accountId: string): Promise<TokenView[]> {
  const now = Date.now();
  const rows = await db.selectFrom('handler_token').selectAll().where('handler_id', '=', accountId).orderBy('created_at', 'desc').orderBy('id').execute();
  return rows.map((r) => ({
    id: r.id,
    label: r.label,
    madeBy: r.made_by,
    createdAt: iso(r.created_at)!,
    expiresAt: iso(r.expires_at)!,
    revokedAt: iso(r.revoked_at),
    lastUsedAt: iso(r.last_used_at),
    state: r.revoked_at ? 'revoked' : new Date(r.expires_at).getTime() <= now ? 'expired' : 'active',
  }));
}

/** Makes a token; answers it once with its row. `madeBy` 'handler' (after a fresh second factor) or 'operator' (automation). */
export async function createToken(ctx: AppContext, companyId: string | null, actor: Actor, account: { id: string; name: string }, label: string, madeBy: 'handler' | 'operator', ttlMs = ctx.config.handlerTokenTtlMs ?? TOKEN_TTL_MS): Promise<{ token: string } & TokenView> {
  const token = newApiToken();
  const id = randomUUID();
  const now = new Date();
  await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto('handler_token').values({ id, handler_id: account.id, token_hash: hashToken(token), label, made_by: madeBy, created_at: now, expires_at: new Date(now.getTime() + ttlMs) }).execute();
    await appendTrail(trx, companyId, actor, 'TOKEN_CREATED', account, { tokenId: id, label, madeBy });
  });
  const view = (await listTokens(ctx.db, account.id)).find((t) => t.id === id)!;
  return { token, ...view };
}

export async function revokeToken(ctx: AppContext, companyId: string | null, actor: Actor, account: { id: string; name: string }, tokenId: string): Promise<TokenView> {
  await ctx.db.transaction().execute(async (trx) => {
    const row = /^[0-9a-f-]{36}$/i.test(tokenId) ? await trx.selectFrom('handler_token').select(['id', 'revoked_at']).where('id', '=', tokenId.toLowerCase()).where('handler_id', '=', account.id).executeTakeFirst() : undefined;
    if (!row) throw new HttpError(404, 'TOKEN_NOT_FOUND', 'The account has no such token.');
    if (!row.revoked_at) await trx.updateTable('handler_token').set({ revoked_at: new Date() }).where('id', '=', row.id).execute();
    await appendTrail(trx, companyId, actor, 'TOKEN_REVOKED', account, { tokenId: row.id });
  });
  return (await listTokens(ctx.db, account.id)).find((t) => t.id === tokenId.toLowerCase())!;
}
