/**
 * npm run bench -- api [seconds]   (default 10 per run)
 *
 * Load on the API in one run, beside a baseline from the same run:
 * 1. the real server, compiled and started as `npm start` starts it (a child process;
 *    needs `npm run build`; PGlite in DATA_DIR; PostgreSQL too when DATABASE_URL is
 *    set, in a fresh database created and dropped here), with one filed case and a
 *    reporter signed in through the embedded provider;
 * 2. a bare Node HTTP server (also a child process) answering the same bytes.
 * autocannon drives `GET /api/private/case/my-case` (bearer token) and
 * `GET /api/public/site-look-and-feel/language/da` at 10, 100 and 200 connections
 * and prints requests/s, p50, p99, errors (non-2xx and timeouts) and the ratio to
 * the bare server. Also prints the server's idle RSS. Figures only; nothing is asserted.
 *
 * `GET /api/public/case/company-info` is driven the same way, and case creation
 * (`POST /api/public/case/new/by-form`, a follow account with a password, so one
 * Argon2id hash each) at 10 and 100 connections beside the Argon2id hashes per second
 * this machine manages in the same run (same parameters, 10 at a time) — the ceiling
 * for case creation. The server runs with the proof-of-work off and the submission
 * rate limit raised through their settings (POW_DIFFICULTY=0,
 * SUBMIT_RATE_LIMIT_MAX), as the issue asks; Argon2id is unchanged.
 *
 * npm run bench -- api [seconds] [calls]   calls: comma-separated my-case, look-and-feel, company-info, case-creation (default all)
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { createTestDatabase, type TestServer } from '../test/helpers/server.ts';
import { Browser, newCase, officerOf, signIn } from '../test/server/identity-flow.ts';
import { caseDto } from '../test/server/api.ts';
import { hashPassword } from '../server/cases/passwords.ts';
import { freePort, servedAsNpmStart, start } from './_servers.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const SECONDS = Number(process.argv[2] ?? 10);
const ONLY = process.argv[3];
const wanted = (what: string) => !ONLY || ONLY.split(',').includes(what);
const CONNECTIONS = [10, 100, 200];

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

const BARE_SERVER = `
const http = require('node:http');
const fs = require('node:fs');
const routes = JSON.parse(fs.readFileSync(process.env.BODIES, 'utf8'));
const bodies = Object.fromEntries(Object.entries(routes).map(([p, r]) => [p, { type: r.type, body: Buffer.from(r.body, 'base64') }]));
http.createServer((req, res) => {
  const r = bodies[req.url];
  if (!r) { res.writeHead(404); return res.end(); }
  res.writeHead(200, { 'content-type': r.type, 'content-length': r.body.length });
  res.end(r.body);
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('bare ready'));
`;

interface Row {
  target: string;
  what: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Server CPU (user + system) per answered request: unlike requests/s, hardly moved by other load on the machine. */
  cpuMs: number;
}

/** User and system CPU seconds the process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks (100 Hz)
}

async function load(url: string, headers: Record<string, string>, connections: number, pid: number, request: { method?: 'POST'; body?: Buffer } = {}): Promise<Omit<Row, 'target' | 'what'>> {
  const cpu0 = cpuSeconds(pid);
  const r = await autocannon({ url, headers, connections, duration: SECONDS, timeout: 10, ...request });
  const cpu = cpuSeconds(pid) - cpu0;
  return { connections, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.non2xx + r.errors + r.timeouts, cpuMs: (cpu * 1000) / Math.max(1, r.requests.total) };
}

async function benchDatabase(label: string, databaseUrl: string, rows: Row[]) {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'wb-bench-api-'));
  const children: ChildProcess[] = [];
  try {
    const served = servedAsNpmStart('api');
    const server = await start(served.args, { ...served.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', SEED_DEMO: 'true', DATABASE_URL: databaseUrl, POW_DIFFICULTY: '0', SUBMIT_RATE_LIMIT_MAX: '1000000000', CHALLENGE_RATE_LIMIT_MAX: '1000000000' }, /running on/);
    children.push(server);
    await new Promise((r) => setTimeout(r, 3000));
    console.log(`${label}: server idle RSS ${rssMb(server.pid!).toFixed(0)} MB (3 s after its first start)`);
    const fake = { url: `http://127.0.0.1:${port}`, port } as TestServer;
    const caseNumber = await newCase(fake, { files: [{ name: 'notes.txt', bytes: 'what I saw\n' }] });
    const tokens = await signIn(new Browser(fake, 'localhost'), caseNumber, 'pass1234');

    const targets: { what: string; path: string; headers: Record<string, string> }[] = [
      { what: 'my-case', path: '/api/private/case/my-case', headers: { authorization: `Bearer ${tokens.access_token}`, 'x-company-host': 'localhost' } },
      { what: 'look-and-feel', path: '/api/public/site-look-and-feel/language/da', headers: { 'x-company-host': 'localhost' } },
      { what: 'company-info', path: '/api/public/case/company-info', headers: { 'x-company-host': 'localhost' } },
    ];
    targets.splice(0, targets.length, ...targets.filter((t) => wanted(t.what)));
    // The bare server answers the very bytes the portal answered.
    const bodies: Record<string, { type: string; body: string }> = {};
    for (const t of targets) {
      const res = await fetch(`${fake.url}${t.path}`, { headers: t.headers });
      if (!res.ok) throw new Error(`${t.path}: ${res.status}`);
      bodies[t.path] = { type: res.headers.get('content-type') ?? 'application/json', body: Buffer.from(await res.arrayBuffer()).toString('base64') };
    }
    const bodiesFile = path.join(dataDir, 'bodies.json');
    writeFileSync(bodiesFile, JSON.stringify(bodies));
    const barePort = await freePort();
    const bareServer = await start(['-e', BARE_SERVER], { PORT: String(barePort), BODIES: bodiesFile }, /bare ready/);
    children.push(bareServer);

    for (const t of targets) {
      for (const c of CONNECTIONS) {
        const portal = await load(`${fake.url}${t.path}`, t.headers, c, server.pid!);
        rows.push({ target: `${label} portal`, what: t.what, ...portal });
        const bare = await load(`http://127.0.0.1:${barePort}${t.path}`, t.headers, c, bareServer.pid!);
        rows.push({ target: 'bare Node', what: t.what, ...bare });
        console.log(`  ${t.what} @${c}: portal ${portal.rps.toFixed(0)}/s p99 ${portal.p99} ms, bare ${bare.rps.toFixed(0)}/s`);
      }
    }
    if (wanted('case-creation')) await benchCaseCreation(fake, server.pid!, label, rows);
    const etag = wanted('my-case') ? (await fetch(`${fake.url}${targets[0]!.path}`, { headers: targets[0]!.headers })).headers.get('etag') : null;
    if (etag) {
      const portal = await load(`${fake.url}${targets[0]!.path}`, { ...targets[0]!.headers, 'if-none-match': etag }, 100, server.pid!);
      // 304s count as non-2xx in autocannon: report them as answered, not as errors.
      rows.push({ target: `${label} portal`, what: 'my-case 304 (If-None-Match)', ...portal, errors: 0 });
    }
    console.log(`${label}: server RSS after the load ${rssMb(server.pid!).toFixed(0)} MB`);
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Argon2id hashes per second with the server's parameters, `concurrency` at a time, for SECONDS. */
async function argon2Rate(concurrency: number): Promise<number> {
  const pepper = new Uint8Array(32);
  const end = Date.now() + SECONDS * 1000;
  let done = 0;
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        await hashPassword('pass1234', pepper);
        done++;
      }
    }),
  );
  return done / ((Date.now() - t0) / 1000);
}

async function benchCaseCreation(server: TestServer, pid: number, label: string, rows: Row[]) {
  const officer = await officerOf(server, 'localhost');
  const fd = new FormData();
  fd.append('caseDto', new Blob([JSON.stringify(caseDto(officer))], { type: 'application/json' }));
  const req = new Request('http://x/', { method: 'POST', body: fd });
  const body = Buffer.from(await req.arrayBuffer());
  const headers = { 'content-type': req.headers.get('content-type')!, 'x-company-host': 'localhost' };
  const check = await fetch(`${server.url}/api/public/case/new/by-form`, { method: 'POST', headers, body });
  if (check.status !== 201) throw new Error(`case creation: ${check.status} ${await check.text()}`);
  for (const c of [10, 100]) {
    const portal = await load(`${server.url}/api/public/case/new/by-form`, headers, c, pid, { method: 'POST', body });
    // autocannon counts only 2xx as answered; a 201 is 2xx.
    rows.push({ target: `${label} portal`, what: 'case creation', ...portal });
    const rate = await argon2Rate(10);
    rows.push({ target: 'Argon2id alone (bench process)', what: 'case creation', connections: 10, rps: rate, p50: 0, p99: 0, errors: 0, cpuMs: 0 });
    console.log(`  case creation @${c}: portal ${portal.rps.toFixed(1)}/s p99 ${portal.p99} ms, errors ${portal.errors}; Argon2id alone ${rate.toFixed(1)}/s`);
  }
}

const rows: Row[] = [];
console.log(`autocannon, ${SECONDS} s per run, ${os.cpus().length} CPUs (shared with whatever else runs)`);
await benchDatabase('PGlite', '', rows);
if (process.env.DATABASE_URL) {
  const db = await createTestDatabase(process.env.DATABASE_URL);
  try {
    await benchDatabase('PostgreSQL', db.url, rows);
  } finally {
    await db.drop();
  }
}

console.log('\n| server | call | connections | requests/s | p50 ms | p99 ms | errors | ratio to bare | server CPU ms/request |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  const bare = rows.find((b) => (b.target === 'bare Node' || b.target.startsWith('Argon2id')) && b.what === r.what && r.target !== b.target && !r.target.startsWith('Argon2id') && r.target !== 'bare Node' && rows.indexOf(b) === rows.indexOf(r) + 1);
  const ratio = bare ? `${((r.rps / bare.rps) * 100).toFixed(1)} %` : '';
  console.log(`| ${r.target} | ${r.what} | ${r.connections} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} | ${ratio} | ${r.cpuMs.toFixed(2)} |`);
}
