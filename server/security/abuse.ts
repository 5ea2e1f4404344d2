/**
 * The guards in front of anonymous submission (docs/decisions/submission-abuse.md):
 *
 * - every state-changing call under /api/public/ (the three ways to create a case,
 *   the upload session, and any public call added later) is rate-limited per client
 *   and needs a solved proof-of-work challenge, except the tus calls that an upload
 *   session's secret authorises;
 * - handing out challenges has a budget of its own;
 * - a signed-in reporter's upload sessions (for a message's files) have a budget per
 *   case, counted after the bearer token named the case (`perCase`);
 * - so do a reporter's messages, comments, approvals and identity or password changes,
 *   which share one (`case-write`); every state-changing private call also counts
 *   against a budget per client, before the token is looked at, so a script cannot
 *   spread itself over many cases or try tokens for free;
 * - so do the handlers' enrolment-link endpoints (/api/handler/enrolment/…), which
 *   anyone who guesses at links could call;
 * - state-changing calls anywhere under /api/ refuse cross-site requests.
 *
 * Clients are told apart by a keyed hash of their address (HMAC with a key derived
 * from the master key), never the address itself; it is neither stored nor logged.
 * The counters live in the database, so the budgets hold across server processes.
 */
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fastifyRateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { ProofOfWork, POW_HEADER } from './pow.ts';
import { databaseRateLimitStore } from './rate-limit-store.ts';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export const CHALLENGE_PATH = '/api/public/pow/challenge';
export const ENROLMENT_PREFIX = '/api/handler/enrolment/';
export const PRIVATE_PREFIX = '/api/private/';

const methodsOf = (r: RouteOptions) => (Array.isArray(r.method) ? r.method : [r.method]).map((m) => m.toUpperCase());
/**
 * The tus calls (server/routes/uploads.ts, `config.tusUpload`) are not: they need the
 * secret of an upload session, and the session call that hands it out is guarded.
 */
const isGuardedSubmission = (r: RouteOptions) =>
  r.url.startsWith('/api/public/') && methodsOf(r).some((m) => STATE_CHANGING.has(m)) && !r.config?.tusUpload;

/** The three ways to create a case: a live case-number reservation in `X-Case-Reservation` already paid their budget and proof. */
const isCaseCreation = (r: RouteOptions) => r.url.startsWith('/api/public/case/new/');

export const RESERVATION_HEADER = 'x-case-reservation';

/**
 * Whether the request names a live case-number reservation in `X-Case-Reservation`
 * (issue 37): the reservation cost one unit of the submission budget and a proof, so
 * the case it is for costs neither again. The route must then create the case with
 * exactly that reservation (`reservationPaid`, server/routes/public.ts). One pass
 * per reservation (`passed`): a refused try reserves again, as it would have paid again.
 */
async function paidByReservation(ctx: AppContext, req: FastifyRequest): Promise<boolean> {
  const r = req as FastifyRequest & { reservationPaid?: string | null };
  if (r.reservationPaid !== undefined) return r.reservationPaid !== null;
  const token = req.headers[RESERVATION_HEADER];
  r.reservationPaid = null;
  if (typeof token !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(token)) return false;
  // One pass per reservation: a refused creation does not make it a free ticket for more.
  const row = await ctx.db
    .updateTable('case_reservation')
    .set({ passed: true })
    .where('token_hash', '=', createHash('sha256').update(token).digest('hex'))
    .where('expires_at', '>', new Date())
    .where('passed', '=', false)
    .returning('case_number')
    .executeTakeFirst();
  if (row) r.reservationPaid = token;
  return !!row;
}

function deriveKey(masterKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `wb:${purpose}`, 32));
}

/** The host names a same-origin request may come from: the request's own, and PUBLIC_URL's. */
function ownHosts(ctx: AppContext, req: FastifyRequest): Set<string> {
  const hosts = new Set<string>();
  if (req.headers.host) hosts.add(req.headers.host.toLowerCase());
  // With a trusted proxy, req.host is X-Forwarded-Host.
  if (req.host) hosts.add(req.host.toLowerCase());
  if (ctx.config.publicUrl) hosts.add(new URL(ctx.config.publicUrl).host.toLowerCase());
  return hosts;
}

/**
 * Refuses a state-changing request a browser sent from another site: `Sec-Fetch-Site`
 * other than same-origin or none, or an `Origin` whose host is not this one. Clients
 * that are not browsers (the CLIs, scripts) send neither header and pass.
 */
export function isCrossSite(ctx: AppContext, req: FastifyRequest): boolean {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin' && site !== 'none') return true;
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  let host: string;
  try {
    host = new URL(origin).host.toLowerCase();
  } catch {
    return true; // `null` (sandboxed frames, file:) and anything unreadable
  }
  return !host || !ownHosts(ctx, req).has(host);
}

export type CaseBucket = 'upload-session' | 'case-write';

export interface AbuseGuards {
  pow: ProofOfWork;
  /**
   * Counts one call against case `caseId`'s budget `bucket` (429 `RATE_LIMITED` with
   * Retry-After when spent). For calls a bearer token authorised: run after the check.
   */
  perCase(bucket: CaseBucket, caseId: string, req: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** The keyed hash of the request's address that tells clients apart (never the address): the upload quotas' client. */
  clientOf(req: FastifyRequest): string;
}

/** Must run before the routes are registered: it attaches the guards as routes appear. */
export async function registerAbuseGuards(app: FastifyInstance, ctx: AppContext, masterKey: Buffer): Promise<AbuseGuards> {
  const { config } = ctx;
  const pow = new ProofOfWork(deriveKey(masterKey, 'pow'), ctx.db, { difficulty: config.powDifficulty, ttlSeconds: config.powTtlSeconds });
  const addressKey = deriveKey(masterKey, 'rate-limit');
  const clientKey = (bucket: string) => (req: FastifyRequest) =>
    `${bucket}:${createHmac('sha256', addressKey).update(normalizeIP(req.ip)).digest('base64url')}`;

  app.addHook('onRequest', async (req) => {
    if (!STATE_CHANGING.has(req.method) || !req.url.startsWith('/api/')) return;
    if (isCrossSite(ctx, req)) throw new HttpError(403, 'CROSS_SITE_REQUEST', 'This call is refused from another site.');
  });

  // The budget is set on each guarded route before the rate-limit plug-in sees it.
  app.addHook('onRoute', (route) => {
    const budget = isGuardedSubmission(route)
      ? { bucket: 'submit', ...config.submitRateLimit, ...(isCaseCreation(route) ? { allowList: (req: FastifyRequest) => paidByReservation(ctx, req) } : {}) }
      : route.url === CHALLENGE_PATH
        ? { bucket: 'challenge', ...config.challengeRateLimit }
        : route.url.startsWith(ENROLMENT_PREFIX)
          ? { bucket: 'enrol', ...config.enrolRateLimit }
          : route.url.startsWith(PRIVATE_PREFIX) && methodsOf(route).some((m) => STATE_CHANGING.has(m))
            ? { bucket: 'reporter', ...config.reporterClientRateLimit }
            : null;
    if (!budget) return;
    route.config = {
      ...(route.config ?? {}),
      rateLimit: { max: budget.max, timeWindow: budget.windowSeconds * 1000, keyGenerator: clientKey(budget.bucket), ...('allowList' in budget ? { allowList: budget.allowList } : {}) },
    } as typeof route.config;
  });

  await app.register(fastifyRateLimit, {
    global: false,
    hook: 'onRequest',
    store: databaseRateLimitStore(ctx.db),
    // The counters must hold: a database fault answers 5xx rather than waving requests through.
    skipOnError: false,
    errorResponseBuilder: (_req, c) =>
      new HttpError(429, 'RATE_LIMITED', `Too many requests from this connection. Try again in ${c.after}.`),
  });

  // After the rate-limit plug-in's own onRoute hook, so the budget is counted first
  // and a script cannot make the server check proofs without paying the budget.
  app.addHook('onRoute', (route) => {
    if (!isGuardedSubmission(route)) return;
    const check = async (req: FastifyRequest) => {
      if (isCaseCreation(route) && (await paidByReservation(ctx, req))) return;
      return pow.spend(req.headers[POW_HEADER]);
    };
    const existing = route.onRequest;
    route.onRequest = [...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]), check] as RouteOptions['onRequest'];
  });

  app.get(CHALLENGE_PATH, async (_req, reply) => {
    ctx.metrics?.submissionChallenge();
    return reply.header('cache-control', 'no-store').send(pow.issue());
  });

  // Per case, not per address: the reporter is known, and may move between networks.
  // The key is a keyed hash of the case id, as addresses are for the other budgets.
  const caseKey = (bucket: string, caseId: string) => `${bucket}:${createHmac('sha256', addressKey).update(`case:${caseId}`).digest('base64url')}`;
  const caseLimiter = (prefix: string, budget: { max: number; windowSeconds: number }) =>
    app.createRateLimit({
      max: budget.max,
      timeWindow: budget.windowSeconds * 1000,
      keyGenerator: (req: FastifyRequest) => caseKey(prefix, (req as FastifyRequest & { rateCase?: string }).rateCase ?? ''),
    });
  const caseLimiters: Record<CaseBucket, { limit: ReturnType<typeof caseLimiter>; what: string }> = {
    'upload-session': { limit: caseLimiter('case-upload', config.caseUploadSessionRateLimit), what: 'upload sessions' },
    'case-write': { limit: caseLimiter('case-write', config.caseWriteRateLimit), what: 'messages and changes' },
  };
  const perCase: AbuseGuards['perCase'] = async (bucket, caseId, req, reply) => {
    (req as FastifyRequest & { rateCase?: string }).rateCase = caseId;
    const { limit, what } = caseLimiters[bucket];
    const r = await limit(req);
    if (!r.isAllowed && r.isExceeded) {
      const seconds = Math.max(1, Math.ceil(r.ttl / 1000));
      reply.header('retry-after', String(seconds));
      throw new HttpError(429, 'RATE_LIMITED', `Too many ${what} for this case. Try again in ${seconds} seconds.`);
    }
  };

  const clientOf = (req: FastifyRequest) => createHmac('sha256', addressKey).update(normalizeIP(req.ip)).digest('base64url');
  return { pow, perCase, clientOf };
}
