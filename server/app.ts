/**
 * The portal's one process: SPA, runtime config, public and private API, handler
 * API and the embedded OpenID provider, on one origin (DESIGN.md §1).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyError } from 'fastify';
import type { Writable } from 'node:stream';
import fastifyStatic from '@fastify/static';
import fastifyMultipart from '@fastify/multipart';
import type { ServerConfig } from './config.ts';
import { openDatabase } from './db/database.ts';
import type { AppContext } from './context.ts';
import { HttpError, errorBody } from './errors.ts';
import { loadSecret } from './crypto/secrets.ts';
import { loadMasterKey } from './crypto/master-key.ts';
import { CaseCrypto } from './crypto/case-crypto.ts';
import { Passwords } from './cases/passwords.ts';
import { DiskFileStore } from './files/store.ts';
import { seedDemoCompanies } from './companies/service.ts';
import { registerPublicRoutes } from './routes/public.ts';
import { registerHandlerRoutes } from './routes/handler.ts';
import { registerAdminRoutes } from './routes/admin.ts';
import { registerIdentity } from './idp/index.ts';
import { registerPrivateRoutes } from './routes/private.ts';
import { FALLBACK_API_BASE_URL } from '../machines/config.ts';

/** The demo companies imported on first start (SEED_DEMO=false turns it off). */
export const SEED_DIR = path.join(import.meta.dirname, 'seed');

/** Fastify's own client-error codes, renamed to the API's (docs/api.md "Errors"). */
const CLIENT_ERROR_CODES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'BAD_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'BAD_JSON',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
  FST_REQ_FILE_TOO_LARGE: 'FILE_TOO_LARGE',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'NOT_MULTIPART',
};

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

const FALLBACK_ORIGIN = new URL(FALLBACK_API_BASE_URL).origin;

export const SECURITY_HEADERS: Record<string, string> = {
  // Inline *styles* are allowed because Radix and the company colours set style
  // attributes at run time; inline *script* never is.
  'content-security-policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    // The SPA's config fallback (spec §7, §8) must be reachable, or it cannot work.
    `img-src 'self' data: blob: ${FALLBACK_ORIGIN}`,
    "font-src 'self'",
    `connect-src 'self' ${FALLBACK_ORIGIN}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), interest-cohort=()',
};

export interface BuiltApp {
  app: FastifyInstance;
  ctx: AppContext;
}

export interface BuildOptions {
  /** A PGlite dump to start from (tests). */
  loadDataDir?: Blob;
  /** Where log lines go (tests read them); standard output by default. */
  logStream?: Writable;
  /** Folder of demo company files; server/seed by default. */
  seedDir?: string;
}

export async function buildApp(given: ServerConfig, opts: BuildOptions = {}): Promise<BuiltApp> {
  const config: ServerConfig = { ...given, filesDir: given.filesDir ?? path.join(given.dataDir, 'files') };
  const app = Fastify({
    // Reporters' IP addresses, user agents and referrers are never logged: the
    // request serializer keeps only the method and the path without its query.
    logger: {
      level: config.logLevel,
      ...(opts.logStream ? { stream: opts.logStream } : {}),
      // Plug-ins log request headers at debug/trace level (@fastify/multipart logs
      // busboy's options with every header); drop them wherever they appear.
      redact: { paths: ['headers', '*.headers', '*.*.headers', 'busboyOptions', 'remoteAddress', '*.remoteAddress'], remove: true },
      serializers: {
        // Case numbers (the reporter's sign-in name) are masked in logged paths too.
        req: (req) => ({ method: req.method, url: (req.url.split('?')[0] ?? '').replace(/\d{16}/g, '<case>') }),
        res: (res) => ({ statusCode: res.statusCode }),
      },
    },
    trustProxy: false,
    bodyLimit: 1024 * 1024,
  });

  const opened = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, loadDataDir: opts.loadDataDir, onPoolError: (err) => app.log.warn({ err: { message: err.message } }, 'database connection lost') });
  app.addHook('onClose', async () => opened.close());
  let masterKey: Buffer;
  try {
    masterKey = await loadMasterKey({ fromEnv: config.masterKey, dataDir: config.dataDir, db: opened.db });
  } catch (err) {
    await opened.close();
    throw err;
  }
  const pepper = loadSecret({ name: 'PASSWORD_PEPPER', fromEnv: config.passwordPepper, dataDir: config.dataDir, file: 'pepper', bytes: 32 });
  const adminToken = loadSecret({ name: 'admin token', dataDir: config.dataDir, file: 'admin.token', bytes: 32 }).toString('base64');
  const files = new DiskFileStore(config.filesDir!);
  await files.init();
  const ctx: AppContext = {
    config,
    db: opened.db,
    dbKind: opened.kind,
    pgliteDir: opened.pgliteDir,
    version: pkg.version,
    log: app.log,
    crypto: new CaseCrypto(masterKey),
    passwords: new Passwords(pepper),
    files,
    adminToken,
  };

  // Uploads whose database commit happened but whose rename did not (a crash in
  // between) are finished; other leftovers older than an hour are removed.
  const recovered = await files.recover(async (keys) => {
    const rows = await ctx.db.selectFrom('case_file').select('storage_key').where('storage_key', 'in', keys).execute();
    return new Set(rows.map((r) => r.storage_key));
  });
  if (recovered.committed || recovered.removed) app.log.info(recovered, 'file store: finished interrupted uploads');

  if (config.seedDemo) {
    try {
      const seeded = await seedDemoCompanies(ctx.db, opts.seedDir ?? SEED_DIR);
      if (seeded.length) app.log.info({ companies: seeded }, 'seeded the demo companies');
    } catch (err) {
      app.log.error({ err }, 'could not seed the demo companies');
    }
  }

  app.addHook('onSend', async (_req, reply, payload) => {
    // A route may tighten a header (an SVG logo gets a sandboxing CSP); never loosen one.
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) if (!reply.hasHeader(k)) reply.header(k, v);
    return payload;
  });

  app.setErrorHandler((err: FastifyError | HttpError, req, reply) => {
    if (err instanceof HttpError) {
      return reply.status(err.statusCode).send(errorBody(err.code, err.message, err.field));
    }
    const status = (err as FastifyError).statusCode;
    if (status && status >= 400 && status < 500) {
      const raw = (err as FastifyError).code;
      const code = (raw && CLIENT_ERROR_CODES[raw]) ?? (raw?.startsWith('FST_') ? 'BAD_REQUEST' : raw) ?? 'BAD_REQUEST';
      return reply.status(status).send(errorBody(code, err.message));
    }
    req.log.error({ err }, 'unhandled error');
    return reply.status(500).send(errorBody('INTERNAL', 'Something went wrong on our side.'));
  });

  app.get('/config/config.json', async (req) => {
    const proto = config.publicUrl ? new URL(config.publicUrl).protocol.replace(':', '') : req.protocol;
    const hostHeader = config.publicUrl ? new URL(config.publicUrl).host : req.host;
    const [host, port] = splitHost(hostHeader, proto);
    const origin = config.publicUrl ? new URL(config.publicUrl).origin : `${proto}://${hostHeader}`;
    return {
      api: { protocol: proto, host, port },
      version: ctx.version,
      idSettings: { authority: `${origin}/idp/realms/whistleblower`, realm: 'whistleblower', clientId: 'whistleblower-app' },
    };
  });

  app.get('/healthz', async () => ({ ok: true }));

  await app.register(fastifyMultipart, { throwFileSizeLimit: true });
  registerPublicRoutes(app, ctx);
  registerHandlerRoutes(app, ctx);
  registerAdminRoutes(app, ctx);
  registerPrivateRoutes(app, ctx, await registerIdentity(app, ctx, SECURITY_HEADERS));

  const hasDist = existsSync(path.join(config.distDir, 'index.html'));
  if (hasDist) {
    await app.register(fastifyStatic, { root: config.distDir, wildcard: false, index: false, cacheControl: false });
    app.addHook('onSend', async (req, reply, payload) => {
      if (req.url.startsWith('/assets/')) reply.header('cache-control', 'public, max-age=31536000, immutable');
      return payload;
    });
  }

  app.setNotFoundHandler(async (req, reply) => {
    const p = req.url.split('?')[0] ?? '/';
    // A missing build asset is a 404, never index.html: a browser would otherwise run
    // HTML as a script or style after a deploy, and caches would keep it for a year.
    const isApi = p.startsWith('/api/') || p.startsWith('/idp/') || p.startsWith('/config/') || p.startsWith('/assets/');
    if (!isApi && (req.method === 'GET' || req.method === 'HEAD') && hasDist) {
      // Client-side routes: the SPA decides what the path means, including not-found.
      reply.header('cache-control', 'no-cache');
      return reply.type('text/html; charset=utf-8').sendFile('index.html');
    }
    return reply.status(404).send(errorBody('NOT_FOUND', `No such resource: ${req.method} ${p}`));
  });

  return { app, ctx };
}

function splitHost(hostHeader: string, proto: string): [string, number] {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(hostHeader);
  const host = m?.[1] ?? 'localhost';
  const port = m?.[2] ? Number(m[2]) : proto === 'https' ? 443 : 80;
  return [host, port];
}
