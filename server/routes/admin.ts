/**
 * Operator calls for the CLIs (`npm run handler -- create-account`, `npm run
 * company -- import`). PGlite lets only one process open the data folder, so while
 * the server runs the CLIs ask it over HTTP. Two locks: the caller must be on the
 * loopback interface and not behind a proxy, and must send on every request the admin token that the server keeps in
 * DATA_DIR/admin.token (mode 0600), readable only by the server's own user.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { createHandlerAccount, HandlerAccountError } from '../handlers/accounts.ts';
import { CompanyFileError, companyByHost, companyById, importCompany, validateBundle, type AssetBytes } from '../companies/service.ts';
import { parseOr400 } from './parse.ts';
import { purge } from '../retention/purge.ts';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

function sameSecret(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

/** The admin API's one check (loopback, not proxied, the token), shared by every admin route. */
export function adminGuard(ctx: AppContext, req: FastifyRequest) {
  // Loopback is no credential: a local reverse proxy makes every request arrive over it.
  // A proxied request (it names a client) is not a CLI on this host, and gets nothing;
  // every other request needs the token, wherever it comes from.
  const proxied = req.headers['x-forwarded-for'] !== undefined || req.headers.forwarded !== undefined || req.headers['x-real-ip'] !== undefined;
  if (proxied || !LOOPBACK.has(req.socket.remoteAddress ?? '')) throw new HttpError(404, 'NOT_FOUND', `No such resource: ${req.method} ${req.url.split('?')[0]}`);
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!m || !sameSecret(m[1]!, ctx.adminToken)) throw new HttpError(401, 'UNAUTHORIZED', 'The admin token (DATA_DIR/admin.token) is needed.');
}

export const handlerSchema = v.object({
  company: v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(253), v.regex(/^[\w.:[\]-]+$/, 'must be a host name or a company id')),
  // eslint-disable-next-line no-control-regex
  name: v.optional(v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(200), v.regex(/^[^\u0000-\u001f\u007f]+$/, 'must not hold control characters')), 'handler'),
  email: v.optional(v.pipe(v.string(), v.trim(), v.toLowerCase(), v.maxLength(254), v.email('must be an e-mail address'))),
  officers: v.optional(v.array(v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(100))), []),
});

export const purgeSchema = v.object({ dryRun: v.optional(v.boolean(), false) });

export const importSchema = v.object({
  file: v.unknown(),
  assets: v.optional(v.record(v.string(), v.object({ contentType: v.string(), base64: v.string() })), {}),
});

/** A company named by host name or by id. */
export async function findCompany(ctx: AppContext, nameOrHost: string) {
  return (await companyByHost(ctx.db, nameOrHost)) ?? (await companyById(ctx.db, nameOrHost));
}

export function registerAdminRoutes(app: FastifyInstance, ctx: AppContext) {
  app.post('/api/admin/handlers', async (req, reply) => {
    adminGuard(ctx, req);
    const body = parseOr400(handlerSchema, req.body ?? {}, 'body');
    const company = await findCompany(ctx, body.company);
    if (!company) throw new HttpError(404, 'UNKNOWN_COMPANY', `No company has the host name or id "${body.company}".`, 'company');
    let account;
    try {
      account = await createHandlerAccount(ctx.db, company.id, body.name, {
        email: body.email,
        officers: body.officers,
        knownOfficers: company.settings.protectionOfficers.map((o) => o.id),
      });
    } catch (err) {
      if (err instanceof HandlerAccountError) throw new HttpError(err.code === 'EMAIL_TAKEN' ? 409 : 400, err.code, err.message, err.field);
      throw err;
    }
    const hosts = await ctx.db.selectFrom('company_host').select('host').where('company_id', '=', company.id).orderBy('host').execute();
    return reply.status(201).send({
      id: account.id,
      token: account.token,
      companyId: company.id,
      name: body.name,
      email: body.email ?? null,
      officers: body.officers,
      hosts: hosts.map((h) => h.host),
      enrolmentCode: account.enrolmentCode ?? null,
      enrolmentExpiresAt: account.enrolmentExpiresAt?.toISOString() ?? null,
    });
  });

  // `npm run cases -- purge [--dry-run]` while the server holds the database.
  app.post('/api/admin/cases/purge', async (req) => {
    adminGuard(ctx, req);
    const { dryRun } = parseOr400(purgeSchema, req.body ?? {}, 'body');
    return purge(ctx, ctx.clock.now(), { dryRun });
  });

  app.post('/api/admin/companies', { bodyLimit: 32 * 1024 * 1024 }, async (req, reply) => {
    adminGuard(ctx, req);
    const body = parseOr400(importSchema, req.body ?? {}, 'body');
    const assets: Record<string, AssetBytes> = {};
    for (const [p, a] of Object.entries(body.assets)) assets[p] = { contentType: a.contentType, bytes: Buffer.from(a.base64, 'base64') };
    try {
      const result = await importCompany(ctx.db, validateBundle(body.file, assets));
      return reply.status(result.created ? 201 : 200).send(result);
    } catch (err) {
      if (err instanceof CompanyFileError) throw new HttpError(400, 'INVALID_COMPANY_FILE', err.message, err.field);
      throw err;
    }
  });
}
