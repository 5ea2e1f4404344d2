/**
 * npm run bench -- startup [RUNS]   (default 3)
 *
 * Time from spawning the server to its first `/readyz` answer of 200 (listening,
 * database migrated, keys loaded), on a data folder that already exists (a restart;
 * the first start's initdb is measured once, apart). Two ways side by side, the same
 * folder, alternating so a busy machine hurts both alike:
 * 1. the compiled server, as `npm run serve` starts it (its environment variables and
 *    node options read from package.json): `node … build/server/main.js`;
 * 2. the TypeScript sources through tsx, as `npm start` ran them before.
 *
 * Also the idle memory of each: RSS from /proc 3 s after /readyz, and the process's
 * own `process.memoryUsage()` (V8 heap, external and array buffers; the rest of RSS is
 * code, PGlite's WebAssembly memory and native allocations).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, servedAsNpmStart } from './_servers.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const runs = Number(process.argv[2] ?? 3);

interface Memory {
  rssMb: number;
  /** RSS 3 s after the first visitors' pages (/ and /online-form, each drawn by the first-paint bundle once). */
  afterPagesMb?: number;
  usage?: { rss: number; heapTotal: number; heapUsed: number; external: number; arrayBuffers: number };
}

/** Seconds until GET /readyz answers 200, and the idle memory 3 s later; the process is stopped afterwards. */
async function timeStart(args: string[], dataDir: string, extraEnv: Record<string, string> = {}): Promise<{ seconds: number; memory: Memory }> {
  const port = await freePort();
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, ['--import', path.join(ROOT, 'bench/_memprobe.mjs'), ...args], { cwd: ROOT, env: { ...process.env, ...extraEnv, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let exited = false;
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  child.once('exit', () => (exited = true));
  try {
    for (;;) {
      if (exited) throw new Error(`server exited: ${args.join(' ')}`);
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200, () => false);
      if (ok) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    await new Promise((r) => setTimeout(r, 3000));
    const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    const idle = rss();
    // The first visitor loads the first-paint bundle (server/spa.ts): idle memory after that too.
    for (const p of ['/', '/online-form']) await fetch(`http://localhost:${port}${p}`, { headers: { 'accept-language': 'en' } }).then((r) => r.text());
    await new Promise((r) => setTimeout(r, 3000));
    const afterPages = rss();
    child.kill('SIGUSR2');
    await new Promise((r) => setTimeout(r, 300));
    const line = /WB_MEMORY (.+)/.exec(err)?.[1];
    return { seconds, memory: { rssMb: idle, afterPagesMb: afterPages, usage: line ? JSON.parse(line) : undefined } };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (exited ? r(undefined) : child.once('exit', r)));
  }
}

const { script: serveScript, args: compiled, env: serveEnv } = servedAsNpmStart('startup');
const viaTsx = ['--import', 'tsx', 'server/main.ts'];
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'wb-bench-startup-'));
try {
  const firstStart = await timeStart(compiled, dataDir, serveEnv);
  const times: Record<'compiled' | 'tsx', number[]> = { compiled: [], tsx: [] };
  const memory: Record<'compiled' | 'tsx', Memory[]> = { compiled: [], tsx: [] };
  for (let i = 0; i < runs; i++) {
    const c = await timeStart(compiled, dataDir, serveEnv);
    times.compiled.push(c.seconds);
    memory.compiled.push(c.memory);
    const t = await timeStart(viaTsx, dataDir);
    times.tsx.push(t.seconds);
    memory.tsx.push(t.memory);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const mb = (n: number) => `${(n / 1048576).toFixed(0)} MB`;
  const mem = (ms: Memory[]) => {
    const last = ms.at(-1)!;
    const u = last.usage;
    const after = ms.map((x) => x.afterPagesMb ?? 0);
    return `RSS ${median(ms.map((x) => x.rssMb)).toFixed(0)} MB (median; runs ${ms.map((x) => x.rssMb.toFixed(0)).join(', ')}), after the first pages ${median(after).toFixed(0)} MB (${after.map((x) => x.toFixed(0)).join(', ')})` + (u ? `; last: V8 heap ${mb(u.heapTotal)} (used ${mb(u.heapUsed)}), external ${mb(u.external)}, array buffers ${mb(u.arrayBuffers)}` : '');
  };
  const rows: [string, string][] = [
    ['node', process.version],
    ['compiled, as', serveScript],
    ['first start (initdb)', `${firstStart.seconds.toFixed(2)} s, idle RSS ${firstStart.memory.rssMb.toFixed(0)} MB, after the first pages ${(firstStart.memory.afterPagesMb ?? 0).toFixed(0)} MB`],
    ['restart, compiled', `${median(times.compiled).toFixed(2)} s (median of ${runs}: ${times.compiled.map((t) => t.toFixed(2)).join(', ')})`],
    ['restart, tsx', `${median(times.tsx).toFixed(2)} s (median of ${runs}: ${times.tsx.map((t) => t.toFixed(2)).join(', ')})`],
    ['compiled / tsx', (median(times.compiled) / median(times.tsx)).toFixed(2)],
    ['idle, compiled', mem(memory.compiled)],
    ['idle, tsx', mem(memory.tsx)],
  ];
  process.stdout.write('\nstartup benchmark (spawn to /readyz 200)\n' + rows.map(([k, v]) => `  ${k.padEnd(22)} ${v}`).join('\n') + '\n');
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
