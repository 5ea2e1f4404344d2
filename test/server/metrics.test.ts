/**
 * GET /metrics (issue 41 §5, docs/decisions/metrics.md): after a reporter's journey
 * (a report with a file sent as multipart and one sent over tus, a failed and a good
 * sign-in, a handler's message, the mail job against an SMTP server that is down),
 * the metrics port answers Prometheus' text format with the counters moved, and
 * nothing in it names a case, an address, a user agent or what the reporter typed.
 * Without the metrics token, from a forwarded request, or on the portal's own port:
 * the product's error body. Two servers in one process count apart.
 *
 * On the code before this file, every test here fails at once: there is no metrics
 * port (`server.metrics` is undefined) and the portal's `/metrics` is the SPA's page.
 */
import { readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register as globalRegistry } from 'prom-client';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { PDF, call, caseDto, expectError, form, solveChallenge } from './api.ts';
import { Browser, USER_AGENT, exchangeCode, followToApp, officerOf, openSignIn, withProof, type Tokens } from './identity-flow.ts';
import { companyByHost } from '../../server/companies/service.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { MAIL_JOB } from '../../server/mail/outbox.ts';
import { DEADLINE_JOB } from '../../server/mail/reminders.ts';
import { RETENTION_JOB } from '../../server/retention/purge.ts';
import { uploadSweepJob } from '../../server/uploads/resumable.ts';
import { WRAP_MIGRATION_JOB } from '../../server/keys/migrate-wraps.ts';
import { formatCaseNumber } from '../../machines/schema.ts';
import { UNMATCHED_ROUTE } from '../../server/metrics.ts';

const DESCRIPTION = 'The night-shift supervisor sells diesel from the depot tank.';
const REPORTER_NAME = 'Rosalind Reporter';
const REPORTER_EMAIL = 'rosalind.reporter@example.org';
const PERSON = 'Percival Suspect';
const MESSAGE = 'Could you send the delivery notes from March?';
const FILE_NAME = 'delivery-notes-march.pdf';
const TUS_FILE_NAME = 'depot-photo-log.pdf';
const CALL_AGENT = 'Metrics-Test-Agent/7.3';
const TUS = { 'tus-resumable': '1.0.0' };

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format 0.0.4, line by line: every line is a comment, a HELP/TYPE line or a sample. */
function parse(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*$/.test(line)) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*)\})? (-?(?:\d+(?:\.\d+)?(?:e[+-]?\d+)?|[Nn]a[Nn]|\+Inf|-Inf))(?: -?\d+)?$/.exec(line);
    expect(m, `not a Prometheus text line: ${line}`).not.toBeNull();
    const labels: Record<string, string> = {};
    for (const l of (m![2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_x, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: m![1]!, labels, value: /^nan$/i.test(m![3]!) ? NaN : Number(m![3]!.replace('+Inf', 'Infinity')) });
  }
  // (NaN may come as `Nan`: prom-client writes it so, and Go's ParseFloat, which Prometheus uses, takes any case.)
  // Every sample belongs to a family with a TYPE line (histograms: _bucket, _sum, _count).
  for (const s of samples) {
    const family = types.has(s.name) ? s.name : s.name.replace(/_(bucket|sum|count)$/, '');
    expect(types.has(family), `no TYPE for ${s.name}`).toBe(true);
  }
  return { samples, types };
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return found.length ? found.reduce((n, s) => n + s.value, 0) : undefined;
}

async function scrape(server: TestServer, headers: Record<string, string> = {}) {
  const res = await fetch(`http://127.0.0.1:${server.metrics!.port()}/metrics`, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, data: res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : undefined };
}

const tokenOf = (server: TestServer) => readFileSync(path.join(server.dataDir, 'metrics.token'), 'utf8').trim();
const authorised = (server: TestServer) => ({ authorization: `Bearer ${tokenOf(server)}` });

/** A port nothing listens on: the SMTP server that is down. */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** The sign-in form's action (the page may carry other forms, such as the quick exit's). */
function signInAction(html: string): string {
  const m = /<form[^>]* action="([^"]*\/interaction\/[^"]+)"/.exec(html);
  expect(m, html.slice(0, 500)).not.toBeNull();
  return m![1]!.replace(/&amp;/g, '&');
}

/** Signs in on the page the refusal answered with: the form, the code, the tokens. */
async function signInOnPage(browser: Browser, html: string): Promise<Tokens> {
  const res = await browser.postForm(signInAction(html), withProof(html, { caseNumber, password: 'pass1234' }));
  const back = await followToApp(browser, res);
  const tok = await exchangeCode(browser, back.searchParams.get('code')!, verifier, back.origin + back.pathname);
  expect(tok.status, tok.text).toBe(200);
  return JSON.parse(tok.text) as Tokens;
}

let verifier: string;
let a: TestServer;
let b: TestServer;
let caseNumber: string;
let companyId: string;
let journeyText: string;

beforeAll(async () => {
  const metrics = { port: 0, host: '127.0.0.1' };
  a = await startTestServer({ metrics, jobs: false, smtpUrl: `smtp://127.0.0.1:${await closedPort()}` });
  b = await startTestServer({ metrics });
  companyId = (await companyByHost(a.ctx.db, 'localhost'))!.id;
  // A handler with an e-mail: a new case queues a mail to them, due at once.
  const handler = await createHandlerAccount(a.ctx.db, companyId, 'Hanne', { email: 'hanne.handler@example.com' });

  // A report with two files: one in the multipart body, one sent over tus first.
  const officer = await officerOf(a, 'localhost');
  const session = await fetch(`${a.url}/api/public/upload-sessions`, { method: 'POST', headers: { 'x-company-host': 'localhost', 'user-agent': CALL_AGENT, ...(await solveChallenge(a)) } });
  expect(session.status).toBe(201);
  const uploadSession = ((await session.json()) as { uploadSession: string }).uploadSession;
  const created = await fetch(`${a.url}/api/public/uploads`, {
    method: 'POST',
    headers: { ...TUS, 'x-upload-session': uploadSession, 'upload-length': String(PDF.length), 'upload-metadata': `filename ${Buffer.from(TUS_FILE_NAME).toString('base64')}` },
  });
  expect(created.status, await created.text()).toBe(201);
  const uploadId = created.headers.get('location')!.split('/').pop()!;
  const patched = await fetch(`${a.url}/api/public/uploads/${uploadId}`, {
    method: 'PATCH',
    headers: { ...TUS, 'x-upload-session': uploadSession, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
    body: new Uint8Array(PDF),
  });
  expect(patched.status, await patched.text()).toBe(204);
  const report = await call(a, 'POST', '/api/public/case/new/by-form', {
    host: 'localhost',
    headers: { 'user-agent': CALL_AGENT, 'x-upload-session': uploadSession },
    body: form(
      'caseDto',
      caseDto(officer, {
        description: DESCRIPTION,
        reportedPersons: [{ name: PERSON, jobTitle: 'Supervisor', phoneOrEmail: 'percival@example.com' }],
        whistleblower: { name: REPORTER_NAME, email: REPORTER_EMAIL, notification: true },
        uploads: [uploadId],
      }),
      [{ name: FILE_NAME, bytes: PDF, type: 'application/pdf' }],
    ),
  });
  expect(report.status, JSON.stringify(report.data)).toBe(201);
  caseNumber = report.data.caseDto.caseNumber;

  // The reporter mistypes the password once, then signs in.
  const browser = new Browser(a);
  const opened = await openSignIn(browser);
  const page = opened.page;
  verifier = opened.verifier;
  expect(page.status, page.text.slice(0, 300)).toBe(200);
  const refused = await browser.postForm(signInAction(page.text), withProof(page.text, { caseNumber, password: 'not-the-password' }));
  expect(refused.status, refused.text.slice(0, 500)).toBe(400);
  expect(refused.text).toContain('role="alert"');
  const tokens = await signInOnPage(browser, refused.text);
  const mine = await call(a, 'GET', '/api/private/case/my-case', { token: tokens.access_token, headers: { 'user-agent': CALL_AGENT } });
  expect(mine.status).toBe(200);

  // The handler answers; then the mail job meets the SMTP server that is down.
  const msg = await call(a, 'POST', `/api/handler/cases/${caseNumber}/messages`, { token: handler.token, body: form('messageDto', { message: MESSAGE }) });
  expect(msg.status, JSON.stringify(msg.data)).toBe(201);
  await a.ctx.jobs.runNow(MAIL_JOB);
  await a.ctx.jobs.runNow(uploadSweepJob.name);

  const res = await scrape(a, authorised(a));
  expect(res.status).toBe(200);
  journeyText = res.text;
});

afterAll(async () => {
  await a?.cleanup();
  await b?.cleanup();
});

describe('GET /metrics after a journey', () => {
  it('answers in Prometheus text format, from the metrics port, with its token', async () => {
    expect(journeyText.length).toBeGreaterThan(1000);
    const { types } = parse(journeyText);
    expect(types.get('wb_http_requests_total')).toBe('counter');
    expect(types.get('wb_http_request_duration_seconds')).toBe('histogram');
    expect(types.get('wb_uploads_in_flight')).toBe('gauge');
    // Default process metrics: memory and event-loop lag.
    expect(types.get('process_resident_memory_bytes')).toBe('gauge');
    expect(types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
    const res = await scrape(a, authorised(a));
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    // The token file is the server's own, like admin.token.
    expect(statSync(path.join(a.dataDir, 'metrics.token')).mode & 0o777).toBe(0o600);
  });

  it('counts requests by route template and status: the case creation moved, with its latency', () => {
    const { samples } = parse(journeyText);
    const creation = { method: 'POST', route: '/api/public/case/new/by-form', status: '201' };
    expect(value(samples, 'wb_http_requests_total', creation)).toBe(1);
    expect(value(samples, 'wb_http_request_duration_seconds_count', creation)).toBe(1);
    expect(value(samples, 'wb_http_request_duration_seconds_bucket', { ...creation, le: '+Inf' })).toBe(1);
    expect(value(samples, 'wb_http_requests_total', { method: 'PATCH', route: '/api/public/uploads/:id', status: '204' })).toBe(1);
    expect(value(samples, 'wb_http_requests_total', { method: 'POST', route: '/api/handler/cases/:caseNumber/messages', status: '201' })).toBe(1);
    // The provider's hijacked answers are counted too, under their route template.
    expect(value(samples, 'wb_http_requests_total', { route: '/idp/realms/whistleblower/*' })).toBeGreaterThanOrEqual(3);
    // Every route label is a registered template or the one for requests no route matched.
    const templates = new Set([...a.routes.map((r) => r.url), UNMATCHED_ROUTE]);
    const routes = new Set(samples.filter((s) => s.name.startsWith('wb_http_')).map((s) => s.labels.route!));
    for (const r of routes) expect(templates, r).toContain(r);
    for (const s of samples.filter((x) => x.name === 'wb_http_requests_total')) expect(s.labels.status).toMatch(/^[1-5]\d\d$/);
  });

  it('counts upload bytes, multipart and tus, with none in flight afterwards', () => {
    const { samples } = parse(journeyText);
    expect(value(samples, 'wb_upload_bytes_received_total', { kind: 'multipart' })).toBe(PDF.length);
    expect(value(samples, 'wb_upload_bytes_received_total', { kind: 'tus' })).toBe(PDF.length);
    expect(value(samples, 'wb_uploads_in_flight', { kind: 'multipart' })).toBe(0);
    expect(value(samples, 'wb_uploads_in_flight', { kind: 'tus' })).toBe(0);
  });

  it('has the job metrics by job name, the outbox depth and its send failures', () => {
    const { samples } = parse(journeyText);
    expect(value(samples, 'wb_job_runs_total', { job: MAIL_JOB, outcome: 'ok' })).toBe(1);
    expect(value(samples, 'wb_job_duration_seconds_count', { job: MAIL_JOB })).toBe(1);
    expect(value(samples, 'wb_job_runs_total', { job: uploadSweepJob.name, outcome: 'ok' })).toBe(1);
    // Every registered job is there from the start, at 0 until its first round (the key-wraps job: sealing is on by default).
    const jobs = new Set(samples.filter((s) => s.name === 'wb_job_runs_total').map((s) => s.labels.job));
    expect([...jobs].sort()).toEqual([DEADLINE_JOB, MAIL_JOB, RETENTION_JOB, uploadSweepJob.name, WRAP_MIGRATION_JOB].sort());
    // The SMTP server is down: the handler's new-case mail waits, and the failure is counted.
    expect(value(samples, 'wb_mail_send_failures_total', { reason: 'retry' })).toBeGreaterThanOrEqual(1);
    expect(value(samples, 'wb_mail_sent_total')).toBe(0);
    expect(value(samples, 'wb_mail_outbox_depth')).toBeGreaterThanOrEqual(1);
    expect(value(samples, 'wb_mail_outbox_oldest_age_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('counts sign-in failures by company id', () => {
    const { samples } = parse(journeyText);
    expect(value(samples, 'wb_signin_failures_total', { kind: 'reporter', company: companyId })).toBe(1);
    expect(value(samples, 'wb_submission_pow_challenges_total')).toBeGreaterThanOrEqual(2);
    // Company labels are company ids, nothing else.
    const companies = new Set(samples.filter((s) => s.labels.company !== undefined).map((s) => s.labels.company));
    expect([...companies]).toEqual([companyId]);
  });

  it('holds no case number in any spelling, no address, no user agent and nothing the reporter or handler typed', async () => {
    const text = journeyText;
    expect(text).not.toContain(caseNumber);
    expect(text).not.toContain(formatCaseNumber(caseNumber));
    // Any separators between the digits, or none at all, anywhere in the text.
    expect(text).not.toMatch(new RegExp(caseNumber.split('').join('\\D{0,3}')));
    expect(text.replace(/\D/g, '')).not.toContain(caseNumber);
    for (const s of ['127.0.0.1', '::1', '::ffff:', 'localhost']) expect(text).not.toContain(s);
    for (const s of [USER_AGENT, CALL_AGENT, 'WB-Identity-Test-Agent', 'Metrics-Test-Agent', 'undici', 'node-fetch']) expect(text).not.toContain(s);
    for (const s of [DESCRIPTION, 'diesel', REPORTER_NAME, REPORTER_EMAIL, 'rosalind', PERSON, 'Percival', MESSAGE, 'delivery notes', FILE_NAME, TUS_FILE_NAME, 'pass1234', 'not-the-password', 'hanne']) {
      expect(text.toLowerCase()).not.toContain(s.toLowerCase());
    }
    // No id of a case, upload or session either (UUIDs), no token.
    expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i);
    expect(text).not.toContain(tokenOf(a));
    // And a request that put a case number in its URL is counted under its template.
    const before = parse((await scrape(a, authorised(a))).text).samples;
    const probe = await call(a, 'GET', `/api/handler/cases/${formatCaseNumber(caseNumber).replace(/ /g, '-')}`, { headers: { 'user-agent': CALL_AGENT } });
    expect(probe.status).toBe(401);
    const after = await scrape(a, authorised(a));
    expect(after.text.replace(/\D/g, '')).not.toContain(caseNumber);
    const key = { method: 'GET', route: '/api/handler/cases/:caseNumber', status: '401' };
    expect(value(parse(after.text).samples, 'wb_http_requests_total', key)).toBe((value(before, 'wb_http_requests_total', key) ?? 0) + 1);
  });
});

describe('proof-of-work demands', () => {
  it('a burst of failed sign-ins: the pages that ask for a proof are counted by company id, the failures too', async () => {
    const c = await startTestServer({ metrics: { port: 0, host: '127.0.0.1' }, identity: { throttle: { burstThreshold: 2, powDifficulty: 4 } } });
    try {
      const group = (await companyByHost(c.ctx.db, 'group.localhost'))!.id;
      for (let i = 0; i < 2; i++) {
        const br = new Browser(c, 'group.localhost');
        const { page } = await openSignIn(br);
        expect(page.text).not.toContain('data-pow-challenge');
        const res = await br.postForm(signInAction(page.text), { caseNumber: '0000000000000001', password: 'wrong' });
        expect(res.status).toBe(400);
      }
      const { page } = await openSignIn(new Browser(c, 'group.localhost'));
      expect(page.text).toContain('data-pow-challenge');
      const { samples } = parse((await scrape(c, authorised(c))).text);
      // The second refusal's page (the burst reached) and the fresh page each asked for one.
      expect(value(samples, 'wb_signin_pow_demands_total', { company: group })).toBe(2);
      expect(value(samples, 'wb_signin_failures_total', { kind: 'reporter', company: group })).toBe(2);
      expect(value(samples, 'wb_signin_pow_demands_total', { company: companyId })).toBeUndefined();
    } finally {
      await c.cleanup();
    }
  });
});

describe('refusals', () => {
  it('without the token, or with a wrong one: 401 UNAUTHORIZED, nothing of the metrics', async () => {
    for (const headers of <Record<string, string>[]>[{}, { authorization: 'Bearer nope' }, { authorization: `Bearer ${a.ctx.adminToken}` }, { authorization: `Basic ${tokenOf(a)}` }]) {
      const res = await scrape(a, headers);
      expectError(res, 401, 'UNAUTHORIZED');
      expect(res.text).not.toContain('wb_http_requests_total');
    }
  });

  it('a forwarded request, token or not: 404 NOT_FOUND, as the admin API', async () => {
    for (const h of <Record<string, string>[]>[{ 'x-forwarded-for': '203.0.113.7' }, { forwarded: 'for=203.0.113.7' }, { 'x-real-ip': '203.0.113.7' }, { 'x-forwarded-host': 'metrics.example.com' }]) {
      const res = await scrape(a, { ...authorised(a), ...h });
      expectError(res, 404, 'NOT_FOUND');
    }
  });

  it('another path or method on the metrics port is refused; the portal port has no /metrics', async () => {
    const other = await fetch(`http://127.0.0.1:${a.metrics!.port()}/api/admin/handlers`, { headers: authorised(a) });
    expect(other.status).toBe(404);
    const post = await fetch(`http://127.0.0.1:${a.metrics!.port()}/metrics`, { method: 'POST', headers: authorised(a) });
    expectError({ status: post.status, data: await post.json() }, 405, 'METHOD_NOT_ALLOWED');
    const main = await call(a, 'GET', '/metrics', { headers: authorised(a) });
    expectError(main, 404, 'NOT_FOUND');
    expect(JSON.stringify(main.data)).not.toContain('wb_');
  });
});

describe('two servers in one process', () => {
  it('count apart: the other server saw none of the journey, each has its own token, the global registry stays empty', async () => {
    const res = await scrape(b, authorised(b));
    expect(res.status).toBe(200);
    const { samples } = parse(res.text);
    expect(value(samples, 'wb_http_requests_total', { route: '/api/public/case/new/by-form' })).toBeUndefined();
    expect(value(samples, 'wb_upload_bytes_received_total', { kind: 'multipart' })).toBe(0);
    expect(value(samples, 'wb_signin_failures_total')).toBeUndefined();
    expect(b.metrics!.port()).not.toBe(a.metrics!.port());
    expect(tokenOf(b)).not.toBe(tokenOf(a));
    expectError(await scrape(b, authorised(a)), 401, 'UNAUTHORIZED');
    // A request to b moves b's counter only.
    const healthA = value(parse((await scrape(a, authorised(a))).text).samples, 'wb_http_requests_total', { route: '/healthz' }) ?? 0;
    expect((await fetch(`${b.url}/healthz`)).status).toBe(200);
    expect(value(parse((await scrape(b, authorised(b))).text).samples, 'wb_http_requests_total', { route: '/healthz' })).toBe(1);
    expect(value(parse((await scrape(a, authorised(a))).text).samples, 'wb_http_requests_total', { route: '/healthz' }) ?? 0).toBe(healthA);
    // prom-client's module-level default registry is never used.
    expect(await globalRegistry.getMetricsAsJSON()).toEqual([]);
  });

  it('a server without METRICS_PORT has no metrics listener and no registry', async () => {
    const c = await startTestServer();
    try {
      expect(c.metrics).toBeUndefined();
      expect(c.ctx.metrics).toBeUndefined();
      expectError(await call(c, 'GET', '/metrics'), 404, 'NOT_FOUND');
    } finally {
      await c.cleanup();
    }
  });
});
