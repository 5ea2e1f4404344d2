/**
 * The key log's routes (docs/decisions/blind-server.md, "Key authenticity";
 * server/keys/key-log.ts):
 * - `GET /api/public/key-log`: the company's trust anchor and every entry, for the
 *   reporter's browser to check before it seals a case;
 * - `POST /api/handler/key-log`: a signed-in handler appends an entry a certifier's
 *   browser signed;
 * - `PUT /api/admin/companies/:company/key-anchor`: the operator sets a company's
 *   recovery public key once (a browser made the pair; its private half never came here);
 * - `POST /api/handler/key-anchor`: or a signed-in handler with keys sets it from the
 *   workspace, where the pair is made, while the company has none (blind-server.md:
 *   the private half is printed from the handler's browser and never meets the server
 *   or the operator's terminal).
 * - `POST /api/handler/statistics-key`: a certified handler publishes the company's
 *   statistics key, or rotates it (server/keys/statistics-key.ts);
 *   `POST /api/handler/statistics-key/wraps`: a holder gives the keys she holds to a
 *   colleague certified later; `GET /api/handler/statistics` gives her browser what it
 *   counts: the keys, their private halves sealed to her key, the boxes.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { requireCompany } from '../companies/service.ts';
import type { HandlerIdentity } from '../handlers/cases.ts';
import { appendKeyLogEntry, readKeyLog, setKeyAnchor } from '../keys/key-log.ts';
import { wrapNewKeys } from '../keys/migrate-wraps.ts';
import { giveStatisticsKey, readStatisticsKey, setStatisticsKey, statisticsFor } from '../keys/statistics-key.ts';
import { statisticsKeyDtoSchema, statisticsKeyGiftDtoSchema } from '../../machines/schema.ts';
import { adminGuard, findCompany } from './admin.ts';
import { parseOr400 } from './parse.ts';

const spki = v.pipe(v.string(), v.maxLength(512), v.regex(/^[A-Za-z0-9+/]+={0,2}$/, 'must be base64'));
export const keyAnchorSchema = v.object({ ecdhSpki: spki, ecdsaSpki: spki });

export function registerKeyLogRoutes(app: FastifyInstance, ctx: AppContext, who: (req: FastifyRequest) => Promise<HandlerIdentity>) {
  app.get('/api/public/key-log', async (req, reply) => {
    const company = await requireCompany(ctx.db, req);
    // Always the log as it is now: a cached copy could hide a removal.
    // With SEALED_CASES on, the answer says so: the reporter's browser seals only then (off: the answer as before),
    // and gives the mail key the browser seals the notification address to (core/crypto sealNotifyAddress).
    // The statistics key rides with it, for the browser to check against the log it verified (core/crypto verifyStatisticsKey).
    const log = await readKeyLog(ctx, company.id);
    return reply
      .header('cache-control', 'no-store')
      .send(ctx.config.sealedCases === 'browser' ? { ...log, sealedCases: 'browser', mailKey: await ctx.mailKeys.publicKey(), statisticsKey: await readStatisticsKey(ctx, company.id) } : log);
  });

  app.post('/api/handler/key-log', { bodyLimit: 16 * 1024 }, async (req, reply) => {
    const h = await who(req);
    if (!req.body || typeof req.body !== 'object') throw new HttpError(400, 'BAD_JSON', 'Send the signed entry as a JSON object.');
    const appended = await appendKeyLogEntry(ctx, h.company_id, req.body);
    // A newly certified key gets the legacy cases of its officers (server/keys/migrate-wraps.ts).
    wrapNewKeys(ctx);
    return reply.status(201).send(appended);
  });

  app.post('/api/handler/key-anchor', async (req, reply) => {
    const h = await who(req);
    const body = parseOr400(keyAnchorSchema, req.body ?? {}, 'body');
    const own = await ctx.db.selectFrom('handler_account').select('ecdsa_spki').where('id', '=', h.id).executeTakeFirst();
    // Only a handler who can be certified right after (has keys) starts a company's log.
    if (!own?.ecdsa_spki) throw new HttpError(409, 'KEYS_MISSING', 'Make your own keys first: sign in again with the password.');
    const anchor = await setKeyAnchor(ctx, h.company_id, body);
    wrapNewKeys(ctx);
    return reply.status(201).send(anchor);
  });

  app.put<{ Params: { company: string } }>('/api/admin/companies/:company/key-anchor', async (req, reply) => {
    await adminGuard(ctx, req);
    const body = parseOr400(keyAnchorSchema, req.body ?? {}, 'body');
    const company = await findCompany(ctx, req.params.company);
    if (!company) throw new HttpError(404, 'UNKNOWN_COMPANY', `No company has the host name or id "${req.params.company}".`, 'company');
    const anchor = await setKeyAnchor(ctx, company.id, body);
    wrapNewKeys(ctx);
    return reply.status(201).send(anchor);
  });

  app.post('/api/handler/statistics-key', { bodyLimit: 256 * 1024 }, async (req, reply) => {
    const h = await who(req);
    const body = parseOr400(statisticsKeyDtoSchema, req.body ?? {}, 'body');
    const own = await ctx.db.selectFrom('handler_account').select('ecdh_spki').where('id', '=', h.id).executeTakeFirst();
    const key = await setStatisticsKey(ctx, h.company_id, { ecdhSpki: own?.ecdh_spki ? new Uint8Array(own.ecdh_spki) : null }, body);
    return reply.status(201).send(key);
  });

  app.post('/api/handler/statistics-key/wraps', { bodyLimit: 128 * 1024 }, async (req, reply) => {
    const h = await who(req);
    const body = parseOr400(statisticsKeyGiftDtoSchema, req.body ?? {}, 'body');
    const own = await ctx.db.selectFrom('handler_account').select('ecdh_spki').where('id', '=', h.id).executeTakeFirst();
    return reply.status(201).send(await giveStatisticsKey(ctx, h, own?.ecdh_spki ? new Uint8Array(own.ecdh_spki) : null, body));
  });

  app.get('/api/handler/statistics', async (req, reply) => {
    const h = await who(req);
    const own = await ctx.db.selectFrom('handler_account').select('ecdh_spki').where('id', '=', h.id).executeTakeFirst();
    return reply.header('cache-control', 'no-store').send(await statisticsFor(ctx, h.company_id, { ecdhSpki: own?.ecdh_spki ? new Uint8Array(own.ecdh_spki) : null }));
  });
}
