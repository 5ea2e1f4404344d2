/**
 * npm run bench -- startup [RUNS]   (default 3)
 *
 * Time from spawning the server to its first `/readyz` answer of 200 (listening,
 * database migrated, keys loaded), on a data folder that already exists (a restart;
 * the first start's initdb is measured once, apart). Two ways side by side, the same
 * folder, alternating so a busy machine hurts both alike:
 * 1. the compiled server, as `npm start` runs it: `node build/server/main.js`;
 * 2. the TypeScript sources through tsx, as `npm start` ran them before.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const runs = Number(process.argv[2] ?? 3);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Seconds until GET /readyz answers 200; the process is stopped afterwards. */
async function timeStart(args: string[], dataDir: string): Promise<number> {
  const port = await freePort();
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' }, stdio: 'ignore' });
  let exited = false;
  child.once('exit', () => (exited = true));
  try {
    for (;;) {
      if (exited) throw new Error(`server exited: ${args.join(' ')}`);
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200, () => false);
      if (ok) return Number(process.hrtime.bigint() - t0) / 1e9;
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (exited ? r(undefined) : child.once('exit', r)));
  }
}

if (!existsSync(path.join(ROOT, 'build/server/main.js'))) {
  process.stderr.write('startup: build/server/main.js is missing; run `npm run build` first\n');
  process.exit(2);
}
const compiled = ['build/server/main.js'];
const viaTsx = ['--import', 'tsx', 'server/main.ts'];
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'wb-bench-startup-'));
try {
  const first = await timeStart(compiled, dataDir);
  const times: Record<'compiled' | 'tsx', number[]> = { compiled: [], tsx: [] };
  for (let i = 0; i < runs; i++) {
    times.compiled.push(await timeStart(compiled, dataDir));
    times.tsx.push(await timeStart(viaTsx, dataDir));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const rows: [string, string][] = [
    ['node', process.version],
    ['first start (initdb)', `${first.toFixed(2)} s`],
    ['restart, compiled', `${median(times.compiled).toFixed(2)} s (median of ${runs}: ${times.compiled.map((t) => t.toFixed(2)).join(', ')})`],
    ['restart, tsx', `${median(times.tsx).toFixed(2)} s (median of ${runs}: ${times.tsx.map((t) => t.toFixed(2)).join(', ')})`],
    ['compiled / tsx', (median(times.compiled) / median(times.tsx)).toFixed(2)],
  ];
  process.stdout.write('\nstartup benchmark (spawn to /readyz 200)\n' + rows.map(([k, v]) => `  ${k.padEnd(22)} ${v}`).join('\n') + '\n');
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
