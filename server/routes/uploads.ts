/**
 * Resumable uploads over tus 1.0 (core, creation, termination; docs/api.md
 * "Resumable uploads", docs/decisions/resumable-uploads.md). The session call is a
 * public submission (rate limit and proof-of-work, server/security/abuse.ts); the
 * tus calls are authorised by the session's secret instead, so a resumed upload does
 * not pay a proof-of-work for every retry.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { companyByHost, requireCompany } from '../companies/service.ts';
import { TUS_VERSION, UPLOADS_PATH, UPLOAD_SESSIONS_PATH, UPLOAD_SESSION_HEADER, assertSessionCompany, type ResumableUploads } from '../uploads/resumable.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A tus call: authorised by its upload session, not by a proof-of-work (server/security/abuse.ts). */
    tusUpload?: boolean;
  }
}

/** What a tus client may learn from OPTIONS: only what is really offered (docs/decisions/resumable-uploads.md). */
export const TUS_EXTENSIONS = ['creation', 'termination'] as const;

/**
 * tus core: a client that cannot send PATCH or DELETE (an old proxy, a restricted
 * HTTP stack, tus-js-client's `overridePatchMethod`) sends POST with
 * `X-HTTP-Method-Override`, and the server MUST treat the request as that method.
 * Done before routing (app.ts `rewriteUrl`), so the method's route and every hook
 * (cross-site check, content type, connection close on a refused PATCH) see the
 * real one; only on the upload addresses, where no POST route of its own exists.
 */
export function applyTusMethodOverride(raw: IncomingMessage, url: string): void {
  if (raw.method !== 'POST' || !url.startsWith(`${UPLOADS_PATH}/`)) return;
  const given = raw.headers['x-http-method-override'];
  const method = (Array.isArray(given) ? given[0] : given)?.trim().toUpperCase();
  if (method && /^[A-Z]{1,20}$/.test(method)) raw.method = method;
}

const header = (req: FastifyRequest, name: string) => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

export async function registerUploadRoutes(app: FastifyInstance, ctx: AppContext, uploads: ResumableUploads) {
  app.post(UPLOAD_SESSIONS_PATH, async (req, reply) => {
    const company = await requireCompany(ctx.db, req);
    // `{ "sealed": true }`: a session for a case sealed in the browser, whose files arrive as ciphertext (docs/decisions/sealed-cases.md "Sealed files").
    const sealed = !!req.body && typeof req.body === 'object' && (req.body as { sealed?: unknown }).sealed === true;
    if (sealed && ctx.config.sealedCases !== 'browser') throw new HttpError(409, 'SEALED_CASES_OFF', 'This portal does not take sealed cases (SEALED_CASES is off).');
    return reply.status(201).header('cache-control', 'no-store').send(await uploads.createSession(company, { sealed }));
  });

  /**
   * The session of a tus call, used at its own company only. As for a reporter's
   * token (server/idp/tokens.ts): `X-Company-Host` must name the session's company;
   * without it, a `Host` naming another company is refused and one naming none
   * (a bare address, a proxy) passes, the session still being its company's.
   */
  const sessionOf = async (req: FastifyRequest) => {
    const session = await uploads.session(header(req, UPLOAD_SESSION_HEADER));
    const named = header(req, 'x-company-host')?.trim();
    const company = await companyByHost(ctx.db, named || (req.headers.host ?? ''));
    if (named || company) assertSessionCompany(session, company?.id ?? null);
    return session;
  };

  // Requests streaming into an upload end (and save their offset) before the app closes.
  app.addHook('preClose', async () => uploads.stop());

  await app.register(async (tus) => {
    // PATCH bodies are read by the route, as a stream; never buffered by a parser.
    tus.addContentTypeParser('application/offset+octet-stream', (_req, _payload, done) => done(null));
    tus.addHook('onSend', async (req, reply, payload) => {
      reply.header('tus-resumable', TUS_VERSION);
      // A refused PATCH whose body is still coming (a wrong offset, a browser resending
      // a cut request by itself): close the connection rather than read up to 2 GB for nothing.
      if (req.method === 'PATCH' && reply.statusCode >= 400 && !req.raw.complete) reply.header('connection', 'close');
      return payload;
    });
    tus.addHook('onRequest', async (req, reply) => {
      // tus core: OPTIONS is how a client learns the version, so it is the one call sent without it.
      if (req.method === 'OPTIONS') return;
      if (header(req, 'tus-resumable') !== TUS_VERSION) {
        reply.header('tus-version', TUS_VERSION);
        throw new HttpError(412, 'TUS_VERSION_UNSUPPORTED', `Send Tus-Resumable: ${TUS_VERSION}.`, 'Tus-Resumable');
      }
      // Before any body parser sees the body.
      if (req.method === 'PATCH' && (header(req, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase() !== 'application/offset+octet-stream') {
        throw new HttpError(415, 'UPLOAD_CONTENT_TYPE', 'Send the bytes as Content-Type: application/offset+octet-stream.', 'Content-Type');
      }
    });
    const config = { tusUpload: true };

    tus.options(UPLOADS_PATH, { config }, async (_req, reply) =>
      reply
        .status(204)
        .header('tus-version', TUS_VERSION)
        .header('tus-extension', TUS_EXTENSIONS.join(','))
        .header('tus-max-size', String(ctx.config.maxFileBytes))
        .send(),
    );

    tus.post(UPLOADS_PATH, { config }, async (req, reply) => {
      const session = await sessionOf(req);
      const { id } = await uploads.create(session, {
        length: header(req, 'upload-length'),
        deferLength: header(req, 'upload-defer-length'),
        metadata: header(req, 'upload-metadata'),
      }, uploads.quotas.clientOf(req));
      // Relative, so it holds behind any proxy; tus clients resolve it against the endpoint.
      return reply.status(201).header('location', `${UPLOADS_PATH}/${id}`).header('upload-offset', '0').send();
    });

    // During a graceful stop, 423 rather than 503: tus-js-client retries a HEAD answered
    // 423 but takes any other refusal of HEAD for a lost upload and starts again from
    // byte 0 (lib/upload.js `_resumeUpload`); a 503 to PATCH or POST it does retry.
    tus.head<{ Params: { id: string } }>(`${UPLOADS_PATH}/:id`, { config: { ...config, drainingStatus: 423 } }, async (req, reply) => {
      const session = await sessionOf(req);
      const state = await uploads.state(session, req.params.id);
      return reply
        .status(200)
        .header('upload-offset', String(state.offset))
        .header('upload-length', String(state.length))
        .header('cache-control', 'no-store')
        .send();
    });

    tus.patch<{ Params: { id: string } }>(`${UPLOADS_PATH}/:id`, { config }, async (req, reply) => {
      const session = await sessionOf(req);
      const state = await uploads.append(session, req.params.id, header(req, 'upload-offset'), req.raw);
      return reply.status(204).header('upload-offset', String(state.offset)).send();
    });

    tus.delete<{ Params: { id: string } }>(`${UPLOADS_PATH}/:id`, { config }, async (req, reply) => {
      const session = await sessionOf(req);
      await uploads.terminate(session, req.params.id);
      return reply.status(204).send();
    });
  });
}
