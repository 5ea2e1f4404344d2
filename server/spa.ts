/**
 * How the built SPA and the API's text answers reach the browser
 * (docs/decisions/performance.md):
 * - build assets are precompressed at build time (scripts/precompress.ts) and sent
 *   as Brotli or gzip by `Accept-Encoding`; hashed files are cached for a year;
 * - other text answers over 1 kB (JSON, HTML) are compressed per request;
 * - `index.html` is `no-cache` with an ETag, so a revisit costs a 304;
 * - `/robots.txt` follows the company's `allowIndexing` (off by default).
 */
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import fastifyCompress from '@fastify/compress';
import type { AppContext } from './context.ts';
import { companyByHost, requestHost } from './companies/service.ts';

/** Hashed build output: its name changes with its content, so it never needs revalidating. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Text worth compressing. `application/octet-stream` (case files, up to 2 GB,
 * mostly compressed formats already) is left alone, unlike the plug-in's default.
 */
const COMPRESSIBLE_TYPES = /^text\/(?!event-stream)|(?:\+|\/)json(?:;|$)|(?:\+|\/)xml(?:;|$)|javascript/u;

/** Per-request compression of API answers; must be registered before any route. */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCompress, {
    global: true,
    threshold: 1024,
    encodings: ['br', 'gzip'],
    customTypes: COMPRESSIBLE_TYPES,
  });
}

/** A weak validator of a body: the same bytes give the same ETag in every process. */
export function etagOf(body: string | Buffer): string {
  return `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** True when the request's `If-None-Match` names `etag` (or `*`). */
export function isFresh(req: FastifyRequest, etag: string): boolean {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  const strip = (t: string) => t.trim().replace(/^W\//, '');
  const want = strip(etag);
  return header.split(',').some((t) => t.trim() === '*' || strip(t) === want);
}

/** Sends `body` with its ETag, or a bodiless 304 when the client holds it already. */
export function sendWithEtag(req: FastifyRequest, reply: FastifyReply, body: string, type: string) {
  const etag = etagOf(body);
  reply.header('etag', etag);
  if (isFresh(req, etag)) return reply.status(304).send();
  return reply.type(type).send(body);
}

/** A body held in memory with its validator and, over 1 kB, its compressed forms. */
export interface Representation {
  body: Buffer;
  etag: string;
  br?: Buffer;
  gzip?: Buffer;
}

export function representation(text: string): Representation {
  const body = Buffer.from(text, 'utf8');
  const rep: Representation = { body, etag: etagOf(body) };
  if (body.length >= 1024) {
    rep.br = brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 9, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT } });
    rep.gzip = gzipSync(body, { level: 9 });
  }
  return rep;
}

/**
 * Sends a representation: 304 when the client's copy is current, else the body in
 * the best encoding the client accepts. (The not-found handler, which answers the
 * SPA's routes, gets no compression from @fastify/compress, which hooks routes.)
 */
export function sendRepresentation(req: FastifyRequest, reply: FastifyReply, rep: Representation, type: string) {
  reply.header('etag', rep.etag);
  if (rep.br || rep.gzip) reply.header('vary', 'accept-encoding');
  if (isFresh(req, rep.etag)) return reply.status(304).send();
  reply.type(type);
  const accepted = req.headers['accept-encoding'];
  const encoding = accepted && rep.br && rep.gzip ? negotiate(accepted, ['br', 'gzip']) : undefined;
  if (encoding === 'br' || encoding === 'gzip') {
    return reply.header('content-encoding', encoding).send(encoding === 'br' ? rep.br : rep.gzip);
  }
  return reply.send(rep.body);
}

export function robotsTxt(allowIndexing: boolean): string {
  return allowIndexing
    ? // The public pages may be found; the reporter's own area and the API never.
      'User-agent: *\nAllow: /\nDisallow: /private\nDisallow: /api/\nDisallow: /idp/\n'
    : 'User-agent: *\nDisallow: /\n';
}

/** index.html as built, re-read when the file changes (a rebuild under a running server). */
class IndexFile {
  private mtime = -1;
  private rep: Representation | undefined;
  constructor(private readonly file: string) {}
  read(): Representation {
    const m = statSync(this.file).mtimeMs;
    if (m !== this.mtime || !this.rep) {
      this.rep = representation(readFileSync(this.file, 'utf8'));
      this.mtime = m;
    }
    return this.rep;
  }
}

export interface Spa {
  /** True when a build is being served. */
  hasDist: boolean;
  /** Answers a client-side route with index.html. */
  sendIndex(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>;
}

export async function registerSpa(app: FastifyInstance, ctx: AppContext): Promise<Spa> {
  app.get('/robots.txt', async (req, reply) => {
    const host = requestHost(req);
    const company = host ? await companyByHost(ctx.db, host) : null;
    return reply.type('text/plain; charset=utf-8').header('cache-control', 'public, max-age=300').send(robotsTxt(company?.settings.allowIndexing === true));
  });

  const distDir = ctx.config.distDir;
  const indexPath = path.join(distDir, 'index.html');
  const hasDist = existsSync(indexPath);
  if (!hasDist) return { hasDist, sendIndex: async (_req, reply) => reply.status(404).send() };

  await app.register(fastifyStatic, {
    root: distDir,
    wildcard: false,
    index: false,
    cacheControl: false,
    preCompressed: true,
    // The compressed copies are variants, not resources of their own; index.html is
    // answered per request below.
    allowedPath: (pathName) => !/\.(?:br|gz)$/.test(pathName) && pathName !== '/index.html',
    setHeaders: (reply, filePath) => {
      const inAssets = path.relative(distDir, filePath).split(path.sep)[0] === 'assets';
      reply.header('cache-control', inAssets ? IMMUTABLE : 'no-cache');
    },
  });

  const index = new IndexFile(indexPath);
  return {
    hasDist,
    sendIndex: async (req, reply) => {
      // The SPA decides what the path means, including not-found; the page is
      // revalidated on every visit, so a deploy is seen at once.
      reply.header('cache-control', 'no-cache');
      return sendRepresentation(req, reply, index.read(), 'text/html; charset=utf-8');
    },
  };
}
