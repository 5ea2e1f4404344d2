/**
 * npm run bench -- scale [companies] [cases] [seconds] [databases] [due]
 *   defaults: 1000 companies, 100000 cases, 10 s per load run, databases "pglite,postgres",
 *   10000 cases due for deletion
 *
 * Does a request's cost grow with the number of companies or cases (issue 41 §1)? Two
 * databases are generated per backend, each through the real write paths, and measured
 * with the compiled server as `npm start` runs it:
 * - small: the two demo companies and 100 cases (the baseline, same run);
 * - large: the demo companies, `companies` more with the demo company's settings
 *   (importCompany, as the admin API and the CLI import), and `cases` cases at the
 *   demo company spread over the past year, with messages, status changes and closures,
 *   and `due` more closed 39 months ago (past the default 36 months' retention), for the
 *   purge to delete.
 *
 * Generation runs the server in this process and sends every write through Fastify's
 * `inject` (routes, validation, sealing, the transaction; no socket), with the
 * proof-of-work off and the rate limits raised by their settings. Dates are spread over
 * the year by moving this process's clock (a Date that runs `offset` behind) while a
 * case is written, so created_at, status events and messages carry their past times.
 *
 * Printed beside the small baseline: my-case and company-info throughput and p99 at
 * 100 connections (autocannon); the handler inbox's first page and a search by eight
 * digits (median and p99 of 30 sequential calls over loopback: server time plus a
 * loopback round trip); start-up to /readyz and idle RSS; the retention purge of the
 * due cases (wall time, and the slowest of the my-case and inbox calls made meanwhile,
 * beside the same calls made for as long right after it, with nothing else running);
 * database and file-store bytes per case. PostgreSQL runs in a private cluster started
 * here (test/helpers/pg-cluster.ts), or in a fresh database on DATABASE_URL when set.
 * The handler inbox in Chromium too: an enrolled handler signed in, CPU throttled 4x,
 * navigation to the first inbox rows and a search to its row (inboxInChromium).
 */
import { mkdtempSync, readFileSync, rmSync, statSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import * as OTPAuth from 'otpauth';
import pg from 'pg';
import { chromium } from 'playwright-core';
import { buildApp } from '../server/app.ts';
import { configFromEnv, type ServerConfig } from '../server/config.ts';
import { companyByHost, importCompany, readCompanyBundle, seedFiles } from '../server/companies/service.ts';
import { createHandlerAccount } from '../server/handlers/accounts.ts';
import { createTestDatabase, type TestServer } from '../test/helpers/server.ts';
import { keyBundle, signInProof } from '../test/helpers/handler-keys.ts';
import { CHROMIUM_ARGS, chromiumPath } from '../test/e2e/harness.ts';
import { SEARCH_PAUSE_MS } from '../machines/handler/inbox.ts';
import { postgresBin, startPgCluster, type PgCluster } from '../test/helpers/pg-cluster.ts';
import { Browser, signIn } from '../test/server/identity-flow.ts';
import { fileFollowedCase, freePort, SEEDING_LIMITS, servedAsNpmStart, start } from './_servers.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const COMPANIES = Number(process.argv[2] ?? 1000);
const CASES = Number(process.argv[3] ?? 100_000);
const SECONDS = Number(process.argv[4] ?? 10);
const DATABASES = (process.argv[5] ?? 'pglite,postgres').split(',');
const DUE = Number(process.argv[6] ?? 10_000);
const DAY = 86_400_000;
const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n');

// ---- a clock that can run behind, for the year of history --------------------------
const RealDate = Date;
let offsetMs = 0;
class ShiftedDate extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(RealDate.now() - offsetMs);
    else super(...(args as [string]));
  }
  static override now() {
    return RealDate.now() - offsetMs;
  }
}
globalThis.Date = ShiftedDate as DateConstructor;

function bytesUnder(dir: string): number {
  let n = 0;
  try {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      n += e.isDirectory() ? bytesUnder(p) : statSync(p).size;
    }
  } catch {
    /* absent */
  }
  return n;
}

function multipart(part: string, json: unknown, file?: Buffer): { payload: Buffer; type: string } {
  const b = `scale${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="${part}"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(json)}\r\n`)];
  if (file) chunks.push(Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="files"; filename="evidence.pdf"\r\nContent-Type: application/pdf\r\n\r\n`), file, Buffer.from('\r\n'));
  chunks.push(Buffer.from(`--${b}--\r\n`));
  return { payload: Buffer.concat(chunks), type: `multipart/form-data; boundary=${b}` };
}

interface Generated {
  cases: number;
  seconds: number;
}

/** Writes the companies and cases through the server in this process; returns when the app is closed again. */
async function generate(dataDir: string, databaseUrl: string | undefined, companies: number, cases: number, due: number, label: string): Promise<Generated> {
  const t0 = RealDate.now();
  const config: ServerConfig = {
    ...configFromEnv({}),
    port: 0,
    host: '127.0.0.1',
    dataDir,
    databaseUrl,
    // As the measured server picks it (the default when DATABASE_URL is set): files written on disk here would stop it at start.
    fileStore: databaseUrl ? 'postgres' : 'disk',
    logLevel: 'silent',
    jobs: false,
    seedDemo: true,
    ...SEEDING_LIMITS,
  };
  const built = await buildApp(config);
  await built.app.ready();
  try {
    const { db } = built.ctx;
    // Companies with the demo company's settings, each under its own id and host.
    const demoFile = seedFiles(path.join(ROOT, 'server/seed')).find((f) => f.endsWith('localhost.json'))!;
    for (let i = 0; i < companies; i++) {
      const bundle = readCompanyBundle(demoFile);
      bundle.company = { ...bundle.company, id: `scale-${i}`, name: `Scale company ${i}`, hosts: [`c${i}.scale.test`] };
      await importCompany(db, bundle);
      if ((i + 1) % 200 === 0) console.log(`  ${label}: ${i + 1} companies`);
    }
    const company = (await companyByHost(db, 'localhost'))!;
    const officer = company.settings.protectionOfficers[0]!.id;
    const handler = await createHandlerAccount(db, company.id, `Scale handler ${label}`);
    const inject = async (method: 'POST' | 'PUT', url: string, body: { payload: Buffer | string; type: string }, auth = true) => {
      const res = await built.app.inject({ method, url, payload: body.payload, headers: { 'content-type': body.type, 'x-company-host': 'localhost', ...(auth ? { authorization: `Bearer ${handler.token}` } : {}) } });
      if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      return res.json() as { caseDto?: { caseNumber: string } };
    };
    const json = (v: unknown) => ({ payload: JSON.stringify(v), type: 'application/json' });
    // One case's year: created `age` days ago, then what a handler did in the days after.
    const oneCase = async (k: number) => {
      const age = Math.floor(((cases - k) / cases) * 365);
      const at = (days: number) => (offsetMs = Math.max(0, age - days) * DAY + (k % 1000) * 1000);
      at(0);
      const online = k % 5 !== 0;
      const created = online
        ? await inject('POST', '/api/public/case/new/by-form', multipart('caseDto', { whistleblowerRelation: 'Employee', protectionOfficer: { id: officer }, description: `Scale case ${k}: stock missing from the depot.`, violation: 'THEFT', repeatedViolations: false, reportedPersons: [], reportedUnit: 'Depot', caseAccount: { follow: false } }, k % 20 === 1 ? PDF : undefined), false)
        : await inject('POST', '/api/public/case/new/by-phone', json({ whistleblowerRelation: 'Employee', protectionOfficer: { id: officer }, caseAccount: { follow: true, password: 'pass1234' } }), false);
      const n = created.caseDto!.caseNumber;
      // Phone cases: two in three get their call (RECEIVED); the rest stay unconfirmed and fall due after 90 days.
      if (!online && k % 3 === 0) return;
      if (!online) {
        at(2);
        await inject('PUT', `/api/handler/cases/${n}/status`, json({ status: 'RECEIVED' }));
      }
      at(3);
      await inject('POST', `/api/handler/cases/${n}/messages`, multipart('messageDto', { message: 'Thank you, we have received your report.', type: 'CONFIRMATION' }));
      if (age < 7) return;
      at(7);
      await inject('PUT', `/api/handler/cases/${n}/status`, json({ status: 'BEING_INVESTIGATED' }));
      if (age < 60) return;
      at(60);
      await inject('POST', `/api/handler/cases/${n}/messages`, multipart('messageDto', { message: 'We looked into it and took measures.', type: 'FEEDBACK' }));
      if (k % 2 === 0) {
        at(61);
        await inject('PUT', `/api/handler/cases/${n}/status`, json({ status: 'CLOSED' }));
      }
    };
    const WORKERS = 8;
    let next = 0;
    await Promise.all(
      Array.from({ length: WORKERS }, async () => {
        for (;;) {
          const k = next++;
          if (k >= cases) return;
          await oneCase(k);
          if ((k + 1) % 5000 === 0) console.log(`  ${label}: ${k + 1} cases (${((RealDate.now() - t0) / 1000).toFixed(0)} s)`);
        }
      }),
    );
    // The cases the purge is to delete: filed and closed 39 months ago, without a follow
    // account (no Argon2id each, so thousands are written in minutes).
    offsetMs = 39 * 30 * DAY;
    let nextDue = 0;
    await Promise.all(
      Array.from({ length: WORKERS }, async () => {
        for (;;) {
          const k = nextDue++;
          if (k >= due) return;
          const created = await inject('POST', '/api/public/case/new/by-form', multipart('caseDto', { whistleblowerRelation: 'Employee', protectionOfficer: { id: officer }, description: `Old case ${k}: stock missing from the depot.`, violation: 'THEFT', repeatedViolations: false, reportedPersons: [], reportedUnit: 'Depot', caseAccount: { follow: false } }), false);
          await inject('PUT', `/api/handler/cases/${created.caseDto!.caseNumber}/status`, json({ status: 'CLOSED' }));
          if ((k + 1) % 1000 === 0) console.log(`  ${label}: ${k + 1} due cases (${((RealDate.now() - t0) / 1000).toFixed(0)} s)`);
        }
      }),
    );
    offsetMs = 0;
  } finally {
    offsetMs = 0;
    await built.app.close();
  }
  return { cases: cases + due, seconds: (RealDate.now() - t0) / 1000 };
}

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

async function timed(n: number, f: () => Promise<void>): Promise<{ median: number; p99: number }> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)]!, p99: ms[Math.min(ms.length - 1, Math.ceil(ms.length * 0.99) - 1)]! };
}

type Figures = Record<string, string | number>;

async function measure(dataDir: string, databaseUrl: string, dbBytes: () => Promise<number>): Promise<Figures> {
  const f: Figures = {};
  const port = await freePort();
  const served = servedAsNpmStart('scale');
  const origin = `http://127.0.0.1:${port}`;
  const t0 = RealDate.now();
  const server = await start(served.args, { ...served.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', BACKGROUND_JOBS: 'false', POW_DIFFICULTY: '0', SUBMIT_RATE_LIMIT_MAX: '1000000000', CHALLENGE_RATE_LIMIT_MAX: '1000000000', REPORTER_RATE_LIMIT_MAX: '1000000000', CASE_WRITE_RATE_LIMIT_MAX: '1000000000' }, /running on/);
  try {
    for (;;) {
      if ((await fetch(`${origin}/readyz`).then((r) => r.status, () => 0)) === 200) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    f['start-up to /readyz, s'] = ((RealDate.now() - t0) / 1000).toFixed(2);
    await new Promise((r) => setTimeout(r, 3000));
    f['idle RSS, MB'] = rssMb(server.pid!).toFixed(0);
    const fake = { url: origin, port } as TestServer;
    const caseNumber = await fileFollowedCase(origin, 'pass1234');
    const tokens = await signIn(new Browser(fake, 'localhost'), caseNumber, 'pass1234');
    const admin = readFileSync(path.join(dataDir, 'admin.token'), 'utf8').trim();
    const h = await fetch(`${origin}/api/admin/handlers`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify({ company: 'localhost', name: 'Measuring handler' }) });
    const handlerToken = ((await h.json()) as { token: string }).token;
    const load = async (p: string, headers: Record<string, string>) => {
      const r = await autocannon({ url: `${origin}${p}`, headers, connections: 100, duration: SECONDS, timeout: 10 });
      return `${r.requests.average.toFixed(0)}/s, p99 ${r.latency.p99} ms${r.non2xx + r.errors + r.timeouts ? `, ${r.non2xx + r.errors + r.timeouts} errors` : ''}`;
    };
    f['my-case @100'] = await load('/api/private/case/my-case', { authorization: `Bearer ${tokens.access_token}`, 'x-company-host': 'localhost' });
    f['company-info @100'] = await load('/api/public/case/company-info', { 'x-company-host': 'localhost' });
    const hAuth = { authorization: `Bearer ${handlerToken}` };
    // Open cases only, as the workspace's inbox shows them by default: the case searched for in Chromium must be one the page lists.
    const first = (await (await fetch(`${origin}/api/handler/cases?open=true`, { headers: hAuth })).json()) as { cases: { caseNumber: string }[] };
    const some = first.cases.at(-1)?.caseNumber ?? caseNumber;
    const inbox = await timed(30, async () => void (await (await fetch(`${origin}/api/handler/cases`, { headers: hAuth })).arrayBuffer()));
    f['inbox first page (50), ms median / p99'] = `${inbox.median.toFixed(1)} / ${inbox.p99.toFixed(1)}`;
    const search = await timed(30, async () => void (await (await fetch(`${origin}/api/handler/cases?search=${some.slice(4, 12)}`, { headers: hAuth })).arrayBuffer()));
    f['inbox search (8 digits), ms median / p99'] = `${search.median.toFixed(1)} / ${search.p99.toFixed(1)}`;
    Object.assign(f, await inboxInChromium(origin, port, admin, some));
    const bytes = await dbBytes();
    const total = await countCases(origin, hAuth);
    f['cases'] = total;
    f['database bytes per case'] = Math.round(bytes / Math.max(1, total));
    f['file-store bytes per case'] = Math.round(bytesUnder(path.join(dataDir, 'files')) / Math.max(1, total));
    // The purge, with a reporter and a handler calling meanwhile; the same calls for as
    // long right after it, with nothing else running, are what they are compared with.
    // A fresh sign-in: the one above may have outlived its access token by now.
    const fresh = await signIn(new Browser(fake, 'localhost'), caseNumber, 'pass1234');
    const calls = [
      ['/api/private/case/my-case', { authorization: `Bearer ${fresh.access_token}`, 'x-company-host': 'localhost' }],
      ['/api/handler/cases', hAuth],
    ] as const;
    const probe = async (going: () => boolean) => {
      const ms: number[] = [];
      let failed = 0;
      while (going()) {
        for (const [p, headers] of calls) {
          const t = performance.now();
          const r = await fetch(`${origin}${p}`, { headers });
          await r.arrayBuffer();
          if (r.status !== 200) failed++;
          ms.push(performance.now() - t);
        }
      }
      return Object.assign(ms.sort((a, b) => a - b), { failed });
    };
    const summary = (ms: number[] & { failed: number }) => `${ms.length}, ${(ms.at(-1) ?? 0).toFixed(0)}, ${ms.filter((x) => x > 200).length}${ms.failed ? `, ${ms.failed} not 200` : ''}`;
    let purging = true;
    const during = probe(() => purging);
    const tp = performance.now();
    const purged = await fetch(`${origin}/api/admin/cases/purge`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: '{}' });
    const result = (await purged.json()) as { cases: unknown[] };
    const wall = (performance.now() - tp) / 1000;
    purging = false;
    const duringMs = await during;
    const quietUntil = performance.now() + wall * 1000;
    const after = await probe(() => performance.now() < quietUntil);
    f['retention purge: cases, wall s'] = `${result.cases?.length ?? `HTTP ${purged.status}`}, ${wall.toFixed(1)} s`;
    f['calls during the purge: n, slowest ms, over 200 ms'] = summary(duringMs);
    f['the same calls as long after it: n, slowest ms, over 200 ms'] = summary(after);
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
  return f;
}

/**
 * The inbox as a handler sees it: an enrolled handler (key bundle, TOTP) signed in with
 * a verifier through the API, its session cookie set in a fresh Chromium context with the
 * CPU throttled 4x (CDP), then `/handler/cases` opened: navigation start to the first
 * inbox row visible (one warm-up, median of five, the SPA's files from the HTTP cache as
 * on a handler's second visit), and on that page eight digits typed into the search to
 * the searched case's row visible after the server's answer (the SPA waits
 * SEARCH_PAUSE_MS after the last key before it asks; the figure includes that pause).
 */
async function inboxInChromium(origin: string, port: number, admin: string, some: string): Promise<Figures> {
  const password = 'scale bench handler password';
  const email = `scale-${RealDate.now()}@bench.test`;
  const api = async (p: string, json: unknown, headers: Record<string, string> = {}) => {
    const r = await fetch(`${origin}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-company-host': 'localhost', ...headers }, body: JSON.stringify(json) });
    const text = await r.text();
    return { status: r.status, data: text ? JSON.parse(text) : null, cookies: r.headers.getSetCookie() };
  };
  const created = await api('/api/admin/handlers', { company: 'localhost', name: 'Chromium handler', email }, { authorization: `Bearer ${admin}` });
  if (created.status !== 201) throw new Error(`admin/handlers: ${created.status} ${JSON.stringify(created.data)}`);
  const code = created.data.enrolmentCode as string;
  const start = await api('/api/handler/enrolment/start', { code });
  if (start.status !== 200) throw new Error(`enrolment/start: ${start.status} ${JSON.stringify(start.data)}`);
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(start.data.secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
  const fin = await api('/api/handler/enrolment/finish', { code, keys: await keyBundle(password), totpCode: totp });
  if (fin.status !== 200) throw new Error(`enrolment/finish: ${fin.status} ${JSON.stringify(fin.data)}`);
  // A recovery code as the second factor: the TOTP step just spent at enrolment would count as a replay.
  const proof = await signInProof((p, json) => api(p, json), email, password);
  const session = await api('/api/handler/session', { ...proof, code: fin.data.recoveryCodes[0] });
  if (session.status !== 200) throw new Error(`handler session: ${session.status} ${JSON.stringify(session.data)}`);
  const set = session.cookies.find((c) => !/=;|max-age=0/i.test(c));
  if (!set) throw new Error('handler session: no cookie');
  const [pair, ...attrs] = set.split(';').map((x) => x.trim());
  const at = pair!.indexOf('=');
  const attr = (k: string) => attrs.find((a) => a.toLowerCase().startsWith(`${k}=`))?.slice(k.length + 1);

  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS, headless: true });
  try {
    const context = await browser.newContext();
    await context.addCookies([{ name: pair!.slice(0, at), value: pair!.slice(at + 1), domain: 'localhost', path: attr('path') ?? '/', httpOnly: true, secure: attrs.some((a) => a.toLowerCase() === 'secure'), sameSite: 'Strict' }]);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    const url = `http://localhost:${port}/handler/cases`;
    const firstRows: number[] = [];
    for (let i = 0; i < 6; i++) {
      await page.goto('about:blank');
      const t = performance.now();
      await page.goto(url);
      await page.locator('tr[data-case]').first().waitFor({ state: 'visible', timeout: 60_000 });
      if (i > 0) firstRows.push(performance.now() - t);
    }
    const searches: number[] = [];
    const digits = some.slice(4, 12);
    const box = page.locator('input[type="search"]');
    for (let i = 0; i < 5; i++) {
      await box.fill('');
      await page.locator('tr[data-case]').nth(1).waitFor({ state: 'visible', timeout: 60_000 });
      const answered = page.waitForResponse((r) => r.url().includes('/api/handler/cases') && r.url().includes(`search=${digits}`), { timeout: 60_000 });
      const t = performance.now();
      await box.fill(digits);
      await answered;
      await page.locator(`tr[data-case="${some}"]`).waitFor({ state: 'visible', timeout: 60_000 });
      searches.push(performance.now() - t);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    return {
      'Chromium 4x CPU: navigation to first inbox rows, ms median of 5': median(firstRows).toFixed(0),
      [`Chromium 4x CPU: search typed to its row shown (incl. ${SEARCH_PAUSE_MS} ms pause), ms median of 5`]: median(searches).toFixed(0),
    };
  } finally {
    await browser.close();
  }
}

async function countCases(origin: string, auth: Record<string, string>): Promise<number> {
  let n = 0;
  let cursor: string | null = null;
  do {
    const page = (await (await fetch(`${origin}/api/handler/cases?limit=200${cursor ? `&cursor=${cursor}` : ''}`, { headers: auth })).json()) as { cases: unknown[]; nextCursor: string | null };
    n += page.cases.length;
    cursor = page.nextCursor;
  } while (cursor);
  return n;
}

async function pgSize(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return Number((await c.query('select pg_database_size(current_database()) as n')).rows[0].n);
  } finally {
    await c.end();
  }
}

const results: { backend: string; size: string; gen: Generated; figures: Figures }[] = [];
let cluster: PgCluster | undefined;
try {
  for (const backend of DATABASES) {
    if (backend === 'postgres' && !process.env.DATABASE_URL && !postgresBin()) {
      console.log('postgres: no DATABASE_URL and no PostgreSQL under /usr/lib/postgresql; skipped');
      continue;
    }
    if (backend === 'postgres' && !process.env.DATABASE_URL) cluster ??= await startPgCluster();
    for (const [size, companies, cases, due] of [
      ['small (2 companies, 100 cases)', 0, 100, 0],
      [`large (${COMPANIES + 2} companies, ${CASES + DUE} cases, ${DUE} due)`, COMPANIES, CASES, DUE],
    ] as const) {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'wb-bench-scale-'));
      const db = backend === 'postgres' ? await createTestDatabase(process.env.DATABASE_URL ?? cluster!.url) : undefined;
      try {
        console.log(`${backend}, ${size}: generating`);
        const gen = await generate(dataDir, db?.url, companies, cases, due, `${backend} ${size.split(' ')[0]}`);
        console.log(`${backend}, ${size}: generated in ${gen.seconds.toFixed(0)} s; measuring`);
        const figures = await measure(dataDir, db?.url ?? '', async () => (db ? pgSize(db.url) : bytesUnder(path.join(dataDir, 'db'))));
        results.push({ backend, size, gen, figures });
        console.log(figures);
      } finally {
        await db?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  }
} finally {
  await cluster?.destroy();
}

console.log(`\nscale bench: ${COMPANIES} companies, ${CASES} cases and ${DUE} due for deletion, ${SECONDS} s per load, ${os.cpus().length} CPUs (shared)`);
for (const backend of new Set(results.map((r) => r.backend))) {
  const [small, large] = results.filter((r) => r.backend === backend);
  if (!small || !large) continue;
  console.log(`\n${backend}: generation ${small.gen.seconds.toFixed(0)} s (small), ${large.gen.seconds.toFixed(0)} s (large, ${(large.gen.cases / large.gen.seconds).toFixed(0)} cases/s)`);
  console.log(`| figure | ${small.size} | ${large.size} |\n|---|---|---|`);
  for (const k of Object.keys(large.figures)) console.log(`| ${k} | ${small.figures[k] ?? ''} | ${large.figures[k]} |`);
}
