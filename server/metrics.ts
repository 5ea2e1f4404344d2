/**
 * Numbers an operator can watch (issue 41 §5, docs/decisions/metrics.md): `GET /metrics`
 * in Prometheus' text format, on a port of its own (METRICS_PORT, off by default; on
 * 127.0.0.1 unless METRICS_HOST says otherwise), with its own bearer token
 * (METRICS_TOKEN, or DATA_DIR/metrics.token). Never on the portal's port, so no
 * reverse proxy in front of the portal can make it public by accident.
 *
 * One registry per app (never prom-client's global one): several servers in one
 * process (the tests) each count their own, and nothing here is a module singleton.
 *
 * Labels come only from fixed sets: route templates (Fastify's `routeOptions.url`,
 * never the URL a client sent, so no case number can appear), methods, status codes,
 * job names, upload kinds, company ids. Never an address, a user agent, a case number
 * or anything a reporter typed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AppContext } from './context.ts';
export type { MetricsSettings } from './config.ts';
import { HttpError, errorBody } from './errors.ts';
import { loadSecret } from './crypto/secrets.ts';

export type UploadKind = 'tus' | 'multipart';
export type SignInKind = 'reporter' | 'handler';
export type JobOutcome = 'ok' | 'failed' | 'skipped';
/** `retry`: tried again later; `given_up`: a permanent refusal or seven days; `unreadable`: the sealed mail did not open. */
export type MailFailure = 'retry' | 'given_up' | 'unreadable';

/** The methods a route label may carry; anything else is `OTHER`. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** The route label of a request no route matched (the SPA's pages, 404s, a URL the router refused). */
export const UNMATCHED_ROUTE = '(unmatched)';
const FORWARDED = ['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'forwarded', 'x-real-ip'];

/** What the rest of the server reports; `ctx.metrics` is undefined when metrics are off, so every call site is `ctx.metrics?.…`. */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly duration: Histogram<'method' | 'route' | 'status'>;
  private readonly byRequest = new Map<string, { count: Counter.Internal; time: Histogram.Internal<'method' | 'route' | 'status'> }>();
  private readonly inFlight: Gauge<'kind'>;
  private readonly bytes: Counter<'kind'>;
  private readonly jobRuns: Counter<'job' | 'outcome'>;
  private readonly jobDuration: Histogram<'job'>;
  private readonly mailSentTotal: Counter;
  private readonly mailFailures: Counter<'reason'>;
  private readonly signInFailures: Counter<'kind' | 'company'>;
  private readonly signInPow: Counter<'company'>;
  private readonly challenges: Counter;

  constructor(ctx: Pick<AppContext, 'db'>) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({ name: 'wb_http_requests_total', help: 'HTTP requests answered, by method, route template and status.', labelNames: ['method', 'route', 'status'], registers });
    this.duration = new Histogram({
      name: 'wb_http_request_duration_seconds',
      help: 'Time from a request to the end of its answer, by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.inFlight = new Gauge({ name: 'wb_uploads_in_flight', help: 'File bodies being received now: tus PATCH requests and multipart file parts.', labelNames: ['kind'], registers });
    this.bytes = new Counter({ name: 'wb_upload_bytes_received_total', help: 'File bytes received (before sealing), tus and multipart.', labelNames: ['kind'], registers });
    for (const kind of ['tus', 'multipart'] as const) {
      this.inFlight.labels(kind).set(0);
      this.bytes.labels(kind).inc(0);
    }
    this.jobRuns = new Counter({ name: 'wb_job_runs_total', help: 'Background job rounds by job and outcome (skipped: another process held the lock).', labelNames: ['job', 'outcome'], registers });
    this.jobDuration = new Histogram({
      name: 'wb_job_duration_seconds',
      help: 'Duration of the background job rounds this process ran (ok or failed).',
      labelNames: ['job'],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900],
      registers,
    });
    this.mailSentTotal = new Counter({ name: 'wb_mail_sent_total', help: 'Mails the SMTP server accepted.', registers });
    this.mailFailures = new Counter({ name: 'wb_mail_send_failures_total', help: 'Mails the SMTP server did not take, by what became of them.', labelNames: ['reason'], registers });
    for (const reason of ['retry', 'given_up', 'unreadable'] as const) this.mailFailures.labels(reason).inc(0);
    this.signInFailures = new Counter({ name: 'wb_signin_failures_total', help: 'Refused sign-ins (reporter or handler) by company id.', labelNames: ['kind', 'company'], registers });
    this.signInPow = new Counter({ name: 'wb_signin_pow_demands_total', help: 'Sign-in forms that asked for a proof-of-work (a burst of failures at the company), by company id.', labelNames: ['company'], registers });
    this.challenges = new Counter({ name: 'wb_submission_pow_challenges_total', help: 'Proof-of-work challenges handed out for anonymous submissions.', registers });
    // Read from the database at each scrape (the outbox is shared by every process on
    // it): one query for both gauges, which the registry collects in parallel.
    let reading: Promise<{ n: number; oldest: Date | null } | undefined> | undefined;
    const readOutbox = () =>
      (reading ??= ctx.db
        .selectFrom('mail_outbox')
        .select((eb) => [eb.fn.countAll().as('n'), eb.fn.min('created_at').as('oldest')])
        .executeTakeFirstOrThrow()
        .then(
          (row) => ({ n: Number(row.n), oldest: row.oldest ? new Date(row.oldest as Date | string) : null }),
          // The database is away (or closing): the scrape answers without these two, and an alert on absence sees it.
          () => undefined,
        )
        .finally(() => (reading = undefined)));
    new Gauge({
      name: 'wb_mail_outbox_depth',
      help: 'Mails waiting in the outbox (all processes on this database).',
      registers,
      async collect() {
        const o = await readOutbox();
        if (o) this.set(o.n);
        else this.reset();
      },
    });
    new Gauge({
      name: 'wb_mail_outbox_oldest_age_seconds',
      help: 'Age of the oldest mail waiting in the outbox; 0 when it is empty.',
      registers,
      async collect() {
        const o = await readOutbox();
        if (o) this.set(o.oldest ? Math.max(0, (Date.now() - o.oldest.getTime()) / 1000) : 0);
        else this.reset();
      },
    });
  }

  request(method: string, route: string | undefined, status: number, seconds: number): void {
    const m = METHODS.has(method) ? method : 'OTHER';
    const r = route ?? UNMATCHED_ROUTE;
    const s = Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : '0';
    const key = `${m} ${s} ${r}`;
    let child = this.byRequest.get(key);
    if (!child) {
      child = { count: this.requests.labels(m, r, s), time: this.duration.labels(m, r, s) };
      this.byRequest.set(key, child);
    }
    child.count.inc();
    child.time.observe(seconds);
  }

  /** A file body starts arriving; call the answer when it ended, however it ended. */
  uploadStarted(kind: UploadKind): () => void {
    const g = this.inFlight.labels(kind);
    g.inc();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      g.dec();
    };
  }

  uploadBytes(kind: UploadKind, n: number): void {
    if (n > 0) this.bytes.labels(kind).inc(n);
  }

  jobRun(job: string, outcome: JobOutcome, seconds: number): void {
    this.jobRuns.labels(job, outcome).inc();
    if (outcome !== 'skipped') this.jobDuration.labels(job).observe(seconds);
  }

  /** Every registered job shows up at 0 from the start, so a rate() has a series before its first round. */
  jobKnown(job: string): void {
    for (const outcome of ['ok', 'failed', 'skipped'] as const) this.jobRuns.labels(job, outcome).inc(0);
  }

  mailSent(n = 1): void {
    this.mailSentTotal.inc(n);
  }

  mailFailed(reason: MailFailure): void {
    this.mailFailures.labels(reason).inc();
  }

  signInFailed(kind: SignInKind, companyId: string): void {
    this.signInFailures.labels(kind, companyId).inc();
  }

  signInPowDemanded(companyId: string): void {
    this.signInPow.labels(companyId).inc();
  }

  submissionChallenge(): void {
    this.challenges.inc();
  }

  /** The exposition text (what GET /metrics answers). */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

export interface MetricsListener {
  metrics: Metrics;
  /** The port it listens on once the app is ready (tests pass port 0). */
  port(): number | undefined;
}

/**
 * When METRICS_PORT is set: makes the app's registry, sets `ctx.metrics`, counts every
 * request by its route template, and serves GET /metrics on its own port from the
 * app's `ready` until its close. Undefined when metrics are off (no hook, no cost).
 * Call before any route is registered.
 */
export function registerMetrics(app: FastifyInstance, ctx: AppContext): MetricsListener | undefined {
  // Never on the portal's own port, whether metrics are on or not: a scraper pointed
  // there (or a proxy rule) gets the product's 404, not the SPA's page.
  app.get('/metrics', async (req) => {
    throw new HttpError(404, 'NOT_FOUND', `No such resource: ${req.method} /metrics`);
  });
  const settings = ctx.config.metrics;
  if (settings?.port === undefined) return undefined;
  const metrics = new Metrics(ctx);
  ctx.metrics = metrics;
  const token = loadSecret({ name: 'METRICS_TOKEN', fromEnv: settings.token, dataDir: ctx.config.dataDir, file: 'metrics.token', bytes: 32 }).toString('base64');

  // onResponse also runs for the identity provider's hijacked answers (Fastify listens
  // for the raw response's end); raw.statusCode is what went out in either case.
  app.addHook('onResponse', async (req, reply) => {
    metrics.request(req.method, req.routeOptions.url, reply.raw.statusCode, reply.elapsedTime / 1000);
  });

  const answer = (res: http.ServerResponse, status: number, body: string, type = 'application/json; charset=utf-8') => {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    res.end(body);
  };
  const refuse = (res: http.ServerResponse, status: number, code: string, message: string) => answer(res, status, JSON.stringify(errorBody(code, message)));
  const server = http.createServer((req, res) => {
    const p = (req.url ?? '/').split('?')[0];
    // A request a proxy forwarded is no scraper on the private network: as the admin API, nothing.
    if (FORWARDED.some((h) => req.headers[h] !== undefined) || p !== '/metrics') return refuse(res, 404, 'NOT_FOUND', 'No such resource.');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return refuse(res, 405, 'METHOD_NOT_ALLOWED', 'GET /metrics only.');
    }
    const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    if (!m || !sameSecret(m[1]!, token)) return refuse(res, 401, 'UNAUTHORIZED', 'The metrics token (METRICS_TOKEN or DATA_DIR/metrics.token) is needed.');
    metrics.text().then(
      (text) => answer(res, 200, req.method === 'HEAD' ? '' : text, metrics.contentType),
      () => refuse(res, 500, 'INTERNAL', 'Something went wrong on our side.'),
    );
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;

  app.addHook('onReady', async () => {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(settings.port, settings.host || '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  });
  app.addHook('onClose', async () => {
    if (!server.listening) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  });
  return { metrics, port: () => (server.listening ? (server.address() as AddressInfo).port : undefined) };
}
