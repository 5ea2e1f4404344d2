/**
 * The portal's one process: SPA, runtime config, public and private API, handler
 * API and the embedded OpenID provider, on one origin (DESIGN.md §1).
 */
import { existsSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyError, type FastifyReply } from 'fastify';
import type { Writable } from 'node:stream';
import fastifyMultipart from '@fastify/multipart';
import pino from 'pino';
import type { ServerConfig } from './config.ts';
import { PROJECT_ROOT } from './paths.ts';
import { openDatabase } from './db/database.ts';
import type { AppContext } from './context.ts';
import { HttpError, errorBody } from './errors.ts';
import { loadSecret } from './crypto/secrets.ts';
import { keyFileInDataDir, loadMasterKey } from './crypto/master-key.ts';
import { CaseCrypto } from './crypto/case-crypto.ts';
import { CaseKeys, keysDirOf } from './crypto/case-keys.ts';
import { MailKeys } from './mail/mail-key.ts';
import { hasLegacyWraps, migrateCaseKeys } from './crypto/case-key-migration.ts';
import { Passwords } from './cases/passwords.ts';
import { filesLeftOnDisk, openFileStore } from './files/store.ts';
import { seedDemoCompanies } from './companies/service.ts';
import { registerPublicRoutes } from './routes/public.ts';
import { applyTusMethodOverride, registerUploadRoutes } from './routes/uploads.ts';
import { ResumableUploads, uploadSweepJob } from './uploads/resumable.ts';
import { registerHandlerRoutes } from './routes/handler.ts';
import { registerAdminRoutes } from './routes/admin.ts';
import { registerCompanyEditorRoutes } from './routes/company-editor.ts';
import { registerTemplateRoutes } from './routes/templates.ts';
import { registerLeaveRoutes } from './routes/leave.ts';
import { registerIdentity } from './idp/index.ts';
import { destroyAccountPayloads } from './idp/adapter.ts';
import { registerPrivateRoutes } from './routes/private.ts';
import { hkdfSync } from 'node:crypto';
import { systemClock, type Clock } from './clock.ts';
import { JobRunner } from './jobs/runner.ts';
import { wrapMigrationJob } from './keys/migrate-wraps.ts';
import { companiesWithoutAnchor } from './keys/key-log.ts';
import { createMailer } from './mail/transport.ts';
import { mailJob } from './mail/outbox.ts';
import { deadlineJob } from './mail/reminders.ts';
import { retentionJob } from './retention/purge.ts';
import { Lifecycle } from './lifecycle.ts';
import { Presence } from './presence.ts';
import { openApiDocument } from './openapi.ts';
import { registerAbuseGuards } from './security/abuse.ts';
import { tightenTree } from './security/private-files.ts';
import { scrubbingStream } from './security/log-scrub.ts';
import { registerCompression, registerSpa, runtimeConfig } from './spa.ts';
import { attachCompanyCache } from './companies/cache.ts';
import { attachCaseCache } from './cases/view-cache.ts';
import { drainEarlyAnswers } from './early-answer.ts';
import { configureMetadataCheck } from './files/metadata-check.ts';
import { registerMetrics, type MetricsListener } from './metrics.ts';

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

const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };

export const SECURITY_HEADERS: Record<string, string> = {
  // Inline *styles* are allowed because Radix and the company colours set style
  // attributes at run time; inline *script* never is, save the first paint's quick-exit
  // gate, which a page with a picture allows by its hash alone (server/spa.ts).
  'content-security-policy': [
    "default-src 'self'",
    // WebAssembly, and only that (no JavaScript eval): Argon2id derives the reporter's
    // keys in the page (hash-wasm; issue 37). Without it the derivation would fall back
    // to PBKDF2 everywhere, silently.
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self' 'unsafe-inline'",
    // No other origin, not even the SPA's config fallback (http://localhost:9000, spec
    // §7, §8): a page this server sends has its config inlined and same-origin, and in
    // a reporter's browser localhost is the reporter's own machine (issue 36, 6a).
    "img-src 'self' data: blob:",
    "font-src 'self'",
    // Voice messages (issue 40) are heard back from this page's memory (blob:) and,
    // in the handlers' workspace, from the download route ('self').
    "media-src 'self' blob:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    // Workers run only from our origin or from a blob: URL that src/integrity/worker.ts
    // made of bytes it checked against the page's digests; Trusted Types (below) let
    // only that module's policy name such a URL (docs/decisions/code-integrity.md).
    "worker-src 'self' blob:",
    // Every script URL and script text given to a DOM sink goes through a named policy:
    // the SPA's worker loader and the provider's sign-in page's (no default policy).
    "require-trusted-types-for 'script'",
    'trusted-types wb-worker wb-idp-worker',
  ].join('; '),
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), interest-cohort=()',
};

/** Answers that are never cached (issue 11, finding 11); /idp sets its own. */
const NO_STORE_PREFIXES = ['/api/private/', '/api/handler/', '/api/admin/'];

export interface BuiltApp {
  app: FastifyInstance;
  ctx: AppContext;
  /** Readiness and graceful shutdown (server/lifecycle.ts). */
  lifecycle: Lifecycle;
  /** Every route as registered (method, url): for the API description's test and the fuzz test. */
  routes: { method: string; url: string }[];
  /** GET /metrics on its own port (server/metrics.ts); undefined unless METRICS_PORT is set. */
  metrics?: MetricsListener;
}

export interface BuildOptions {
  /** A PGlite dump to start from (tests). */
  loadDataDir?: Blob;
  /** Where log lines go (tests read them); standard output by default. */
  logStream?: Writable;
  /** Folder of demo company files; server/seed by default. */
  seedDir?: string;
  /** "Now" for scheduled work; tests pass a TestClock. */
  clock?: Clock;
}

export async function buildApp(given: ServerConfig, opts: BuildOptions = {}): Promise<BuiltApp> {
  const config: ServerConfig = { ...given, filesDir: given.filesDir ?? path.join(given.dataDir, 'files') };
  configureMetadataCheck(config.metadataCheck);
  // Log lines are written asynchronously (buffered, flushed on close), so a request
  // never waits for the terminal or the log collector.
  const logDestination = opts.logStream ? undefined : pino.destination({ dest: 1, sync: false });
  const app = Fastify({
    // Reporters' IP addresses, user agents and referrers are never logged: the
    // request serializer keeps only the method and the path without its query.
    logger: {
      level: config.logLevel,
      // Every line passes the scrubber: no case number in any spelling and no token.
      // Written asynchronously to stdout (flushed on close), so logging never blocks a request.
      stream: scrubbingStream(opts.logStream ?? logDestination!),
      // Plug-ins log request headers at debug/trace level (@fastify/multipart logs
      // busboy's options with every header); drop them wherever they appear.
      redact: { paths: ['headers', '*.headers', '*.*.headers', 'busboyOptions', 'remoteAddress', '*.remoteAddress'], remove: true },
      serializers: {
        // Case numbers (the reporter's sign-in name) are masked in logged paths too.
        req: (req) => ({ method: req.method, url: (req.url.split('?')[0] ?? '').replace(/\d{16}/g, '<case>') }),
        res: (res) => ({ statusCode: res.statusCode }),
      },
    },
    // Forwarded-for headers are believed only from the proxies the operator names
    // (TRUST_PROXY); otherwise the socket's address is the client.
    trustProxy: config.trustProxy.length ? config.trustProxy : false,
    // A random id per request, on every line it logs and in its answer (x-request-id),
    // so an operator can find one request's lines; never derived from the client.
    genReqId: () => randomUUID(),
    bodyLimit: 1024 * 1024,
    // One spelling of every path before routing: `/%61pi` is `/api` for the router,
    // every hook and the SPA fallback alike (normalizePath).
    // The tus method override is applied here too: this is the one hook before routing.
    rewriteUrl: (req) => {
      const url = normalizePath(req.url ?? '/');
      applyTusMethodOverride(req, url);
      return url;
    },
    // Requests during a stop get the product's answer (Lifecycle.refuseWhileDraining), not Fastify's bare 503.
    return503OnClosing: false,
    // A URL the router cannot decode (`/api/%zz`): the product's error body, not Fastify's.
    frameworkErrors: (_err, _req, reply) => {
      void (reply as unknown as FastifyReply).status(400).send(errorBody('BAD_URL', 'The address is not valid.'));
    },
    // A request Node cannot even parse (bad header bytes, an oversized header): a JSON 400 on the socket.
    clientErrorHandler: (err, socket) => {
      if (!socket.writable) return socket.destroy();
      const large = (err as NodeJS.ErrnoException).code === 'HPE_HEADER_OVERFLOW';
      const body = JSON.stringify(errorBody(large ? 'HEADERS_TOO_LARGE' : 'BAD_REQUEST', large ? 'The request headers are too large.' : 'The request could not be parsed.'));
      socket.end(`HTTP/1.1 ${large ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    },
  });

  // First, so every route registered below is tracked for a graceful shutdown.
  const lifecycle = new Lifecycle();
  lifecycle.trackHandlers(app);
  lifecycle.refuseWhileDraining(app);
  lifecycle.endQuietConnectionsOnClose(app);
  const routes: BuiltApp['routes'] = [];
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) routes.push({ method, url: r.url ?? r.path });
  });

  const opened = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, loadDataDir: opts.loadDataDir, onPoolError: (err) => app.log.warn({ err: { message: err.message } }, 'database connection lost') });
  const presence = new Presence(opened.db, (err) => app.log.warn({ err: { message: (err as Error).message } }, 'could not refresh this process in server_process'));
  // Background jobs stop (and finish their round) before the database closes.
  const beforeDatabaseCloses: (() => Promise<void> | void)[] = [];
  app.addHook('onClose', async () => {
    // Handlers still finishing (an upload cleaning up after its connection was cut) need the database.
    await lifecycle.settled();
    for (const close of beforeDatabaseCloses) await close();
    await presence.stop();
    await opened.close();
    if (logDestination) {
      try {
        logDestination.flushSync();
      } catch {
        // not open yet, or the terminal is gone: nothing left to save
      }
    }
  });
  let masterKey: Buffer;
  try {
    masterKey = await loadMasterKey({ fromEnv: config.masterKey, dataDir: config.dataDir, keyFile: config.masterKeyFile, db: opened.db });
  } catch (err) {
    await opened.close();
    throw err;
  }
  await presence.start();
  // Companies are read once per process and dropped when any process changes one.
  const stopCompanyCache = await attachCompanyCache(opened);
  beforeDatabaseCloses.push(() => stopCompanyCache());
  // Recently read cases (token check, private view), dropped on any write to them.
  const stopCaseCache = await attachCaseCache(opened);
  beforeDatabaseCloses.push(() => stopCaseCache());
  const pepper = loadSecret({ name: 'PASSWORD_PEPPER', fromEnv: config.passwordPepper, dataDir: config.dataDir, file: 'pepper', bytes: 32 });
  const adminToken = loadSecret({ name: 'admin token', dataDir: config.dataDir, file: 'admin.token', bytes: 32 }).toString('base64');
  const files = await openFileStore(config, opened.db);
  const leftOnDisk = files.kind === 'postgres' ? await filesLeftOnDisk(opened.db, config.filesDir!) : null;
  if (leftOnDisk) {
    await app.close();
    throw new Error(leftOnDisk);
  }
  const mailer = createMailer(config);
  beforeDatabaseCloses.push(() => mailer.close());
  // What an earlier version or another tool left readable to others is narrowed, once.
  for (const root of new Set([config.dataDir, config.filesDir!, keysDirOf(config)])) {
    const tightened = tightenTree(root);
    if (tightened.files || tightened.folders) app.log.warn({ ...tightened, dir: path.basename(root) }, 'data folder: narrowed modes to 0600 files / 0700 folders');
  }
  if (!config.masterKey && keyFileInDataDir({ dataDir: config.dataDir, keyFile: config.masterKeyFile })) {
    app.log.warn('master key: it is in the data folder, so a copy of the folder (a backup, a stolen disk) opens every case; set MASTER_KEY or MASTER_KEY_FILE to keep it elsewhere (docs/operations.md, "The master key")');
  }
  const crypto = new CaseCrypto(masterKey);
  const caseKeys = new CaseKeys(crypto, keysDirOf(config));
  await caseKeys.init();
  const migrated = await migrateCaseKeys(opened.db, crypto, caseKeys);
  if (migrated) app.log.info({ keys: migrated }, 'case keys: re-wrapped so that deleting a case destroys its key');
  if (await hasLegacyWraps(opened.db)) {
    app.log.warn('case keys: older wrappings under this master key may survive in the database files; run `npm run keys -- rotate-master` so that deleted cases stay deleted (docs/operations.md)');
  }
  const ctx = {
    config,
    db: opened.db,
    dbKind: opened.kind,
    pgliteDir: opened.pgliteDir,
    version: pkg.version,
    log: app.log,
    crypto,
    caseKeys,
    passwords: new Passwords(pepper),
    files,
    adminToken,
    clock: opts.clock ?? systemClock,
    mailer,
    mailKeys: MailKeys.inKeysDir(keysDirOf(config)),
    recordKey: Buffer.from(hkdfSync('sha256', pepper, Buffer.alloc(0), 'wb:deletion-record', 32)),
    requestsInFlight: () => lifecycle.inFlight(),
  } as Omit<AppContext, 'jobs'> as AppContext;
  // Before the jobs and every route: each is counted from the start (docs/decisions/metrics.md).
  const metrics = registerMetrics(app, ctx);
  ctx.jobs = new JobRunner(ctx);
  ctx.jobs.add(mailJob);
  ctx.jobs.add(deadlineJob);
  ctx.jobs.add(retentionJob);
  ctx.jobs.add(uploadSweepJob);
  // Only where cases are sealed: off, the job would never do anything, and nothing of it shows (not even in /metrics).
  if (ctx.config.sealedCases === 'browser') ctx.jobs.add(wrapMigrationJob);
  beforeDatabaseCloses.unshift(() => ctx.jobs.stop());
  if (!mailer.enabled) app.log.info('mail: SMTP_URL is not set; no mail will be sent');

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
  // Sealing is on, but a company without a recovery key still takes server-keyed cases: the operator is told which.
  if (config.sealedCases === 'browser') {
    const unsealed = await companiesWithoutAnchor(ctx);
    if (unsealed.count) {
      app.log.warn(
        { companies: unsealed.ids, count: unsealed.count },
        'sealed cases: these companies have no recovery key yet, so their new cases are server-keyed (the master key opens them) until a handler of each makes it on /handler/keys (docs/operations.md "First run")',
      );
    }
  }

  // An answer before the body was read waits for the rest of it (up to a bound), so the client reads the answer.
  drainEarlyAnswers(app);
  app.addHook('onSend', async (req, reply, payload) => {
    reply.header('x-request-id', req.id);
    // A route may tighten a header (an SVG logo gets a sandboxing CSP); never loosen one.
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) if (!reply.hasHeader(k)) reply.header(k, v);
    // Over HTTPS (directly, or from a proxy named in TRUST_PROXY): browsers keep to HTTPS.
    if (req.protocol === 'https') reply.header('strict-transport-security', 'max-age=31536000');
    // Case data, tokens and handler answers are never kept by a browser or a proxy cache, errors included.
    if (NO_STORE_PREFIXES.some((p) => req.url.startsWith(p))) reply.header('cache-control', 'no-store');
    return payload;
  });

  app.setErrorHandler((err: FastifyError | HttpError, req, reply) => {
    if (err instanceof HttpError) {
      return reply.status(err.statusCode).send(errorBody(err.code, err.message, err.field, err.fields, err.extra));
    }
    const status = (err as FastifyError).statusCode;
    // PostgreSQL's data exceptions (class 22: a malformed uuid, a NUL byte, a number out
    // of range) can only come from input that slipped past a check: the client's 400.
    const sqlState = (err as { code?: unknown }).code;
    if (typeof sqlState === 'string' && /^22[0-9A-Z]{3}$/.test(sqlState)) {
      req.log.warn({ sqlState }, 'input reached the database unchecked');
      return reply.status(400).send(errorBody('BAD_REQUEST', 'A value in the request is not valid.'));
    }
    if (status && status >= 400 && status < 500) {
      const raw = (err as FastifyError).code;
      const code = (raw && CLIENT_ERROR_CODES[raw]) ?? (raw?.startsWith('FST_') ? 'BAD_REQUEST' : raw) ?? 'BAD_REQUEST';
      return reply.status(status).send(errorBody(code, err.message));
    }
    req.log.error({ err }, 'unhandled error');
    return reply.status(500).send(errorBody('INTERNAL', 'Something went wrong on our side.'));
  });

  // Before any route, so every text answer over 1 kB can be compressed.
  await registerCompression(app);

  app.get('/config/config.json', async (req) => runtimeConfig(ctx, req));

  // Probes are polled every few seconds: their answers are not worth a log line each.
  let openApi: Record<string, unknown> | undefined;
  app.get('/api/openapi.json', async () => (openApi ??= openApiDocument(ctx.version)));

  app.get('/healthz', { logLevel: 'warn' }, async (_req, reply) => {
    reply.header('cache-control', 'no-store');
    return { ok: true };
  });

  await app.register(fastifyMultipart, { throwFileSizeLimit: true });
  // Before the routes: the guards attach themselves to the routes as they appear.
  const guards = await registerAbuseGuards(app, ctx, masterKey);
  const uploads = new ResumableUploads(ctx, guards.clientOf);
  registerPublicRoutes(app, ctx, uploads);
  await registerUploadRoutes(app, ctx, uploads);
  registerHandlerRoutes(app, ctx, uploads);
  registerAdminRoutes(app, ctx);
  registerLeaveRoutes(app, ctx);
  const identity = await registerIdentity(app, ctx, SECURITY_HEADERS);
  ctx.endSignIns = (db, caseId) => destroyAccountPayloads(db, identity.payloadCrypto, caseId);
  registerPrivateRoutes(app, ctx, identity, uploads, guards);

  // For a load balancer: 200 only while this process can serve (docs/operations.md).
  app.get('/readyz', { logLevel: 'warn', config: { servesWhileDraining: true } }, async (_req, reply) => {
    const checks = await lifecycle.readiness(ctx, () => identity.currentKeys.signing.length > 0 && identity.currentKeys.cookies.length > 0);
    const ready = Object.values(checks).every((c) => c === 'ok');
    reply.header('cache-control', 'no-store').status(ready ? 200 : 503);
    return ready ? { ok: true, checks } : { ...errorBody('NOT_READY', 'This server cannot take requests now.'), checks };
  });

  const spa = await registerSpa(app, ctx, SECURITY_HEADERS['content-security-policy']);
  registerCompanyEditorRoutes(app, ctx, spa);
  registerTemplateRoutes(app, ctx);

  app.setNotFoundHandler(async (req, reply) => {
    const p = req.url.split('?')[0] ?? '/';
    // A missing build asset is a 404, never index.html: a browser would otherwise run
    // HTML as a script or style after a deploy, and caches would keep it for a year.
    const isApi = p.startsWith('/api/') || p.startsWith('/idp/') || p.startsWith('/config/') || p.startsWith('/assets/') || p.startsWith('/handler/assets/');
    // The handlers' workspace is a build of its own (vite.handler.config.ts).
    if (!isApi && (req.method === 'GET' || req.method === 'HEAD') && (p === '/handler' || p.startsWith('/handler/')) && spa.hasHandlerDist) {
      return spa.sendHandler(req, reply);
    }
    if (!isApi && (req.method === 'GET' || req.method === 'HEAD') && spa.hasDist) return spa.sendIndex(req, reply);
    return reply.status(404).send(errorBody('NOT_FOUND', `No such resource: ${req.method} ${p}`));
  });

  if (config.jobs) ctx.jobs.start();
  return { app, ctx, lifecycle, routes, metrics };
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * Decodes percent-encoded unreserved characters (RFC 3986 §6.2.2.2) in the path, once,
 * and upper-cases the hex of the rest: `/%61pi/x` → `/api/x`, `/%2561pi` stays as it is
 * (that is `%61pi`, a path of its own). The query string is left alone.
 */
export function normalizePath(url: string): string {
  const q = url.indexOf('?');
  const pathPart = q < 0 ? url : url.slice(0, q);
  const normalized = pathPart.replace(/%([0-9A-Fa-f]{2})/g, (m, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : m.toUpperCase();
  });
  return q < 0 ? normalized : normalized + url.slice(q);
}
