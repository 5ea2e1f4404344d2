/**
 * The administration API (issue 39; docs/decisions/administration.md lists every
 * route with its body and answer). Who may call what is decided by the one entry
 * point, server/security/roles.ts `authorize`:
 * - operator routes: the loopback admin token of DATA_DIR/admin.token (the CLIs; PGlite
 *   lets only one process open the data folder, so while the server runs the CLIs ask
 *   it over HTTP) or an operator's workspace session;
 * - company routes (/api/admin/companies/:company/…): the operator, or that company's
 *   administrator signed in to the workspace (never an API token).
 * Every act is written to the administration trail (server/handlers/administration.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { createHandlerAccount, enrolmentLink, HandlerAccountError } from '../handlers/accounts.ts';
import { CompanyFileError, companyByHost, companyById, importCompany, validateBundle, type AssetBytes } from '../companies/service.ts';
import { parseOr400 } from './parse.ts';
import { purge } from '../retention/purge.ts';
import { actorOf, authorize, type Principal } from '../security/roles.ts';
import {
  accountOf,
  appendTrail,
  companyInfo,
  createToken,
  endSessions,
  inviteAccount,
  listAccounts,
  listTokens,
  readTrail,
  removeAccount,
  resetAccount,
  revokeToken,
  setDisabled,
  updateAccount,
  portalOf,
} from '../handlers/administration.ts';

/** The operator's check, kept under its old name for the routes elsewhere (key anchor). */
export async function adminGuard(ctx: AppContext, req: FastifyRequest): Promise<Principal> {
  return authorize(ctx, req, 'operator');
}

export const handlerSchema = v.object({
  company: v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(253), v.regex(/^[\w.:[\]-]+$/, 'must be a host name or a company id')),
  // eslint-disable-next-line no-control-regex
  name: v.optional(v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(200), v.regex(/^[^\u0000-\u001f\u007f]+$/, 'must not hold control characters')), 'handler'),
  email: v.optional(v.pipe(v.string(), v.trim(), v.toLowerCase(), v.maxLength(254), v.email('must be an e-mail address'))),
  officers: v.optional(v.array(v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(100))), []),
  /** Also the company's administrator (the first one, made by the operator). */
  admin: v.optional(v.boolean(), false),
  /** Reads cases (default); false: an administrator only. */
  handler: v.optional(v.boolean(), true),
  /** Make an API token for automation (default, as before); false: the web enrolment only. */
  token: v.optional(v.boolean(), true),
});

// eslint-disable-next-line no-control-regex
const personName = v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(200), v.regex(/^[^\u0000-\u001f\u007f]+$/, 'must not hold control characters'));
const emailField = v.pipe(v.string(), v.trim(), v.toLowerCase(), v.nonEmpty('validation.required'), v.maxLength(254), v.email('validation.email'));
const officerIds = v.pipe(v.array(v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(100))), v.maxLength(200));

export const inviteSchema = v.object({
  name: personName,
  email: emailField,
  officers: v.optional(officerIds, []),
  admin: v.optional(v.boolean(), false),
  handler: v.optional(v.boolean(), true),
});
export const accountChangeSchema = v.object({
  name: v.optional(personName),
  officers: v.optional(officerIds),
  admin: v.optional(v.boolean()),
  handler: v.optional(v.boolean()),
});
export const resetSchema = v.object({ what: v.picklist(['password', 'secondFactor'], 'must be password or secondFactor') });
export const tokenLabel = v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(100));
export const operatorTokenSchema = v.object({ label: tokenLabel });
export const operatorSchema = v.object({ name: personName, email: emailField });

export const purgeSchema = v.object({ dryRun: v.optional(v.boolean(), false) });

export const importSchema = v.object({
  file: v.unknown(),
  assets: v.optional(v.record(v.string(), v.object({ contentType: v.string(), base64: v.string() })), {}),
});

/** A company named by host name or by id. */
export async function findCompany(ctx: AppContext, nameOrHost: string) {
  return (await companyByHost(ctx.db, nameOrHost)) ?? (await companyById(ctx.db, nameOrHost));
}

/** The company of a company route, and a caller allowed to administer it (404 for any other company). */
async function companyFor(ctx: AppContext, req: FastifyRequest<{ Params: { company: string } }>) {
  const p = await authorize(ctx, req, 'admin');
  const company = await findCompany(ctx, req.params.company);
  if (!company) throw new HttpError(404, 'UNKNOWN_COMPANY', `No company has the host name or id "${req.params.company}".`, 'company');
  await authorize(ctx, req, 'admin', { companyId: company.id });
  return { p, company, actor: actorOf(p) };
}

/** The caller's origin (scheme and Host), a hint for enrolment links; the service uses it only for a host of the company. */
function originOf(req: FastifyRequest): string | undefined {
  return req.headers.host ? `${req.protocol}://${req.headers.host}` : undefined;
}

type AccountReq = FastifyRequest<{ Params: { company: string; account: string } }>;
type TokenReq = FastifyRequest<{ Params: { company: string; account: string; token: string } }>;

export function registerAdminRoutes(app: FastifyInstance, ctx: AppContext) {
  app.post('/api/admin/handlers', async (req, reply) => {
    const p = await adminGuard(ctx, req);
    const body = parseOr400(handlerSchema, req.body ?? {}, 'body');
    const company = await findCompany(ctx, body.company);
    if (!company) throw new HttpError(404, 'UNKNOWN_COMPANY', `No company has the host name or id "${body.company}".`, 'company');
    let account;
    try {
      account = await createHandlerAccount(ctx.db, company.id, body.name, {
        email: body.email,
        officers: body.officers,
        knownOfficers: company.settings.protectionOfficers.map((o) => o.id),
        roles: { admin: body.admin, handler: body.handler },
        token: body.token,
        tokenTtlMs: ctx.config.handlerTokenTtlMs,
      });
    } catch (err) {
      if (err instanceof HandlerAccountError) throw new HttpError(err.code === 'EMAIL_TAKEN' ? 409 : 400, err.code, err.message, err.field);
      throw err;
    }
    await appendTrail(ctx.db, company.id, actorOf(p), 'ACCOUNT_INVITED', { id: account.id, name: body.name }, { email: body.email ?? null, officers: body.officers, admin: body.admin, handler: body.handler, token: body.token });
    const hosts = await ctx.db.selectFrom('company_host').select('host').where('company_id', '=', company.id).orderBy('host').execute();
    return reply.status(201).send({
      id: account.id,
      token: account.token ?? null,
      companyId: company.id,
      name: body.name,
      email: body.email ?? null,
      officers: body.officers,
      hosts: hosts.map((h) => h.host),
      enrolmentCode: account.enrolmentCode ?? null,
      enrolmentExpiresAt: account.enrolmentExpiresAt?.toISOString() ?? null,
      enrolmentLink: account.enrolmentCode ? enrolmentLink(portalOf(ctx, { hosts: hosts.map((h) => h.host) }, originOf(req)), account.enrolmentCode) : null,
      roles: { admin: body.admin, handler: body.handler },
    });
  });

  // ---- operators -------------------------------------------------------------------

  /** A new operator account (no company): answers its enrolment link, shown once. */
  app.post('/api/admin/operators', async (req, reply) => {
    const p = await authorize(ctx, req, 'operator');
    const body = parseOr400(operatorSchema, req.body ?? {}, 'body');
    let account;
    try {
      account = await createHandlerAccount(ctx.db, null, body.name, { email: body.email, token: false });
    } catch (err) {
      if (err instanceof HandlerAccountError) throw new HttpError(err.code === 'EMAIL_TAKEN' ? 409 : 400, err.code, err.message, err.field);
      throw err;
    }
    await appendTrail(ctx.db, null, actorOf(p), 'OPERATOR_CREATED', { id: account.id, name: body.name }, { email: body.email });
    // The operator's own origin: an operator enrols on any host.
    const origin = ctx.config.publicUrl ?? originOf(req) ?? `http://${ctx.config.operatorHost ?? 'localhost'}:${ctx.config.port}`;
    return reply.status(201).send({ id: account.id, name: body.name, email: body.email, enrolmentCode: account.enrolmentCode!, enrolmentLink: enrolmentLink(origin, account.enrolmentCode!), enrolmentExpiresAt: account.enrolmentExpiresAt!.toISOString() });
  });

  /** The operators' own acts (new operators); a company's acts are in its trail. */
  app.get('/api/admin/trail', async (req) => {
    await authorize(ctx, req, 'operator');
    return { entries: await readTrail(ctx.db, null) };
  });

  /** The companies the caller administers: every one for the operator, their own for a company's administrator. */
  app.get('/api/admin/companies', async (req) => {
    const p = await authorize(ctx, req, 'admin');
    const rows = await ctx.db.selectFrom('company').select(['id', 'name']).$if(!p.roles.operator, (q) => q.where('id', '=', p.companyId!)).orderBy('name').orderBy('id').execute();
    const hosts = rows.length ? await ctx.db.selectFrom('company_host').select(['company_id', 'host']).where('company_id', 'in', rows.map((r) => r.id)).orderBy('host').execute() : [];
    return { companies: rows.map((r) => ({ id: r.id, name: r.name, hosts: hosts.filter((h) => h.company_id === r.id).map((h) => h.host) })), operator: p.roles.operator };
  });

  // ---- a company's accounts (operator, or the company's administrator) -------------

  app.get<{ Params: { company: string } }>('/api/admin/companies/:company/accounts', async (req) => {
    const { company } = await companyFor(ctx, req);
    const info = await companyInfo(ctx.db, company.id);
    return { accounts: await listAccounts(ctx.db, company.id), officers: company.settings.protectionOfficers.map((o) => ({ id: o.id, name: o.name })), mail: ctx.mailer.enabled, hosts: info.hosts };
  });

  app.post<{ Params: { company: string } }>('/api/admin/companies/:company/accounts', async (req, reply) => {
    const { company, actor } = await companyFor(ctx, req);
    const body = parseOr400(inviteSchema, req.body ?? {}, 'body');
    return reply.status(201).send(await inviteAccount(ctx, company.id, actor, body, originOf(req)));
  });

  app.patch('/api/admin/companies/:company/accounts/:account', async (req: AccountReq) => {
    const { company, actor } = await companyFor(ctx, req);
    const body = parseOr400(accountChangeSchema, req.body ?? {}, 'body');
    return updateAccount(ctx, company.id, actor, req.params.account, body);
  });

  app.post('/api/admin/companies/:company/accounts/:account/disable', async (req: AccountReq) => {
    const { company, actor } = await companyFor(ctx, req);
    return setDisabled(ctx, company.id, actor, req.params.account, true);
  });

  app.post('/api/admin/companies/:company/accounts/:account/enable', async (req: AccountReq) => {
    const { company, actor } = await companyFor(ctx, req);
    return setDisabled(ctx, company.id, actor, req.params.account, false);
  });

  app.delete('/api/admin/companies/:company/accounts/:account', async (req: AccountReq, reply) => {
    const { company, actor } = await companyFor(ctx, req);
    await removeAccount(ctx, company.id, actor, req.params.account);
    return reply.status(204).send();
  });

  app.post('/api/admin/companies/:company/accounts/:account/reset', async (req: AccountReq) => {
    const { company, actor } = await companyFor(ctx, req);
    const body = parseOr400(resetSchema, req.body ?? {}, 'body');
    return resetAccount(ctx, company.id, actor, req.params.account, body.what, originOf(req));
  });

  app.post('/api/admin/companies/:company/accounts/:account/sessions/end', async (req: AccountReq) => {
    const { company, actor } = await companyFor(ctx, req);
    return endSessions(ctx, company.id, actor, req.params.account);
  });

  app.get('/api/admin/companies/:company/accounts/:account/tokens', async (req: AccountReq) => {
    const { company } = await companyFor(ctx, req);
    const a = await accountOf(ctx.db, company.id, req.params.account);
    return { tokens: await listTokens(ctx.db, a.id) };
  });

  /** A token for automation: the operator only, marked made_by operator. */
  app.post('/api/admin/companies/:company/accounts/:account/tokens', async (req: AccountReq, reply) => {
    const p = await authorize(ctx, req, 'operator');
    const company = await findCompany(ctx, req.params.company);
    if (!company) throw new HttpError(404, 'UNKNOWN_COMPANY', `No company has the host name or id "${req.params.company}".`, 'company');
    const body = parseOr400(operatorTokenSchema, req.body ?? {}, 'body');
    const a = await accountOf(ctx.db, company.id, req.params.account);
    return reply.status(201).send(await createToken(ctx, company.id, actorOf(p), a, body.label, 'operator'));
  });

  app.delete('/api/admin/companies/:company/accounts/:account/tokens/:token', async (req: TokenReq) => {
    const { company, actor } = await companyFor(ctx, req);
    const a = await accountOf(ctx.db, company.id, req.params.account);
    return revokeToken(ctx, company.id, actor, a, req.params.token);
  });

  app.get<{ Params: { company: string } }>('/api/admin/companies/:company/trail', async (req) => {
    const { company } = await companyFor(ctx, req);
    return { entries: await readTrail(ctx.db, company.id) };
  });

  // `npm run cases -- purge [--dry-run]` while the server holds the database.
  app.post('/api/admin/cases/purge', async (req) => {
    await adminGuard(ctx, req);
    const { dryRun } = parseOr400(purgeSchema, req.body ?? {}, 'body');
    // This request is in flight for the whole purge: the purge waits for the others only.
    const others = ctx.requestsInFlight;
    return purge({ ...ctx, requestsInFlight: others && (() => others() - 1) }, ctx.clock.now(), { dryRun });
  });

  app.post('/api/admin/companies', { bodyLimit: 32 * 1024 * 1024 }, async (req, reply) => {
    const p = await adminGuard(ctx, req);
    const body = parseOr400(importSchema, req.body ?? {}, 'body');
    const assets: Record<string, AssetBytes> = {};
    for (const [p, a] of Object.entries(body.assets)) assets[p] = { contentType: a.contentType, bytes: Buffer.from(a.base64, 'base64') };
    try {
      const result = await importCompany(ctx.db, validateBundle(body.file, assets));
      await appendTrail(ctx.db, result.id, actorOf(p), result.created ? 'COMPANY_CREATED' : 'COMPANY_IMPORTED', null, {});
      return reply.status(result.created ? 201 : 200).send(result);
    } catch (err) {
      if (err instanceof CompanyFileError) throw new HttpError(400, 'INVALID_COMPANY_FILE', err.message, err.field);
      throw err;
    }
  });
}
