/**
 * npm run bench -- pow [CHALLENGES] [--difficulty=18] [--batch=4096[,…]] [--plain-jitless=2]
 *
 * The proof-of-work's solve time in Debian's Chromium with and without the JavaScript
 * JIT (`--js-flags=--jitless`, as Tor Browser's "Safer" level; WebAssembly is off
 * there too and the solver uses none), at the default work factor (18 bits, the
 * form's POW_DIFFICULTY and the burst sign-in's SIGNIN_POW_DIFFICULTY), in a
 * module Web Worker on a secure context (http://localhost), as the pages run it:
 *   native   core/pow.ts `solveNative` alone (WebCrypto SHA-256 in batches of --batch);
 *   SPA      core/pow.ts `solveProof`, what the SPA's worker runs: times both searches
 *            on the first nonces and goes on with the faster;
 *   sign-in  server/idp/assets/signin-pow.worker.js, the sign-in page's worker, as served
 *            (the same choice, written out in plain JavaScript);
 *   plain    core/pow.ts `solve` (@noble/hashes' plain-JavaScript SHA-256): the solver
 *            every page used before, and the only one without crypto.subtle.
 * All three search the same nonces in the same order and find the same nonce, so on
 * the same CHALLENGES (default 8, random) they do exactly the same number of hashes:
 * the times compare like for like. A solve's length is a matter of luck (the number of
 * hashes is geometric, mean 2^difficulty), so beside the median of the solves the
 * table gives the hash rate and the expected (mean) solve time 2^difficulty / rate.
 * Without the JIT the plain solver takes ≈ 30 s a solve, so it runs only the first
 * --plain-jitless challenges (default 2). Figures are printed, never asserted.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';
import { chromium, type Page } from 'playwright-core';
import { NATIVE_BATCH } from '../core/pow.ts';
import { CHROMIUM_ARGS, chromiumPath } from '../test/e2e/harness.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const opt = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const count = Number(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 8);
const difficulty = Number(opt('difficulty', '18'));
const batches = opt('batch', String(NATIVE_BATCH)).split(',').map(Number);
const plainJitless = Number(opt('plain-jitless', '2'));

/** Challenges shaped as the server's (`v1.<bits>.<expiry>.<id>.<mac>`); the solvers never look inside. */
const challenges = Array.from(
  { length: count },
  () => `v1.${difficulty}.${Math.floor(Date.now() / 1000) + 1800}.${randomBytes(16).toString('base64url')}.${randomBytes(16).toString('base64url')}`,
);

// The bench's worker: core/pow.ts bundled for the browser, as Vite bundles it into the SPA's worker.
const benchWorker = (
  await build({
    stdin: {
      contents: `import { solve, solveNative, solveProof } from './core/pow.ts';
        self.onmessage = async (e) => {
          const { solver, challenge, difficulty, batch } = e.data;
          const t0 = performance.now();
          let chose;
          const nonce =
            solver === 'plain'
              ? solve(challenge, difficulty)
              : solver === 'proof'
                ? await solveProof(challenge, difficulty, undefined, (c) => (chose = c))
                : await solveNative(challenge, difficulty, { batch });
          self.postMessage({ nonce, ms: performance.now() - t0, chose });
        };`,
      resolveDir: ROOT,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
  })
).outputFiles[0]!.text;
const NOBLE_DIR = path.dirname(createRequire(import.meta.url).resolve('@noble/hashes/sha2.js'));
const files: Record<string, string> = {
  '/': '<!doctype html><title>pow bench</title>',
  '/bench.worker.js': benchWorker,
  '/assets/signin-pow.worker.js': readFileSync(path.join(ROOT, 'server/idp/assets/signin-pow.worker.js'), 'utf8'),
};
for (const name of ['sha2.js', '_md.js', '_u64.js', 'utils.js']) files[`/assets/noble/${name}`] = readFileSync(path.join(NOBLE_DIR, name), 'utf8');

const server = http.createServer((req, res) => {
  const body = files[req.url ?? ''];
  if (body === undefined) return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': req.url === '/' ? 'text/html' : 'text/javascript' }).end(body);
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const origin = `http://localhost:${(server.address() as { port: number }).port}`;

interface Solved {
  nonce: string;
  ms: number;
  /** Which search `solveProof` went on with. */
  chose?: 'native' | 'plain';
}

/** One solve in a fresh module worker of the page (the sign-in worker is timed from the page: it reports no time). */
function solveIn(page: Page, worker: string, message: Record<string, unknown>): Promise<Solved> {
  return page.evaluate(
    ([url, msg]) =>
      new Promise<Solved>((resolve, reject) => {
        const w = new Worker(url, { type: 'module' });
        const t0 = performance.now();
        w.onmessage = (e: MessageEvent<{ nonce: string; ms?: number; chose?: 'native' | 'plain' }>) => {
          w.terminate();
          resolve({ nonce: e.data.nonce, ms: e.data.ms ?? performance.now() - t0, ...(e.data.chose ? { chose: e.data.chose } : {}) });
        };
        w.onerror = (e) => reject(new Error(e.message));
        w.postMessage(msg);
      }),
    [worker, message] as const,
  );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Row {
  label: string;
  solves: Solved[];
}

async function mode(jitless: boolean): Promise<Row[]> {
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: [...CHROMIUM_ARGS, ...(jitless ? ['--js-flags=--jitless'] : [])], headless: true });
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(origin);
    const info = await page.evaluate(() => ({ secure: isSecureContext, wasm: typeof WebAssembly !== 'undefined' }));
    if (!info.secure) throw new Error('the bench page is no secure context');
    process.stdout.write(`  (${jitless ? 'without' : 'with'} the JIT: WebAssembly ${info.wasm ? 'present' : 'absent'})\n`);
    // Warm-up: the first worker compiles the module.
    await solveIn(page, '/bench.worker.js', { solver: 'native', challenge: 'warm-up', difficulty: 8, batch: NATIVE_BATCH });
    // Challenge by challenge, every solver in turn, so a busy moment of the machine hurts all alike.
    const rows: Row[] = [
      ...batches.map((batch) => ({ label: `native, batch ${batch}`, solves: [] as Solved[] })),
      { label: 'SPA worker (solveProof)', solves: [] },
      { label: 'sign-in worker', solves: [] },
      { label: 'plain JS (old, baseline)', solves: [] },
    ];
    for (const [i, challenge] of challenges.entries()) {
      for (const [j, batch] of batches.entries()) rows[j]!.solves.push(await solveIn(page, '/bench.worker.js', { solver: 'native', challenge, difficulty, batch }));
      rows[batches.length]!.solves.push(await solveIn(page, '/bench.worker.js', { solver: 'proof', challenge, difficulty }));
      rows[batches.length + 1]!.solves.push(await solveIn(page, '/assets/signin-pow.worker.js', { challenge, difficulty }));
      if (!jitless || i < plainJitless) rows[batches.length + 2]!.solves.push(await solveIn(page, '/bench.worker.js', { solver: 'plain', challenge, difficulty }));
    }
    // Same search, same order: every solver must find the same nonce.
    for (const row of rows) {
      row.solves.forEach((s, i) => {
        if (s.nonce !== rows[0]!.solves[i]!.nonce) throw new Error(`${row.label} found ${s.nonce} for challenge ${i}, the native solver ${rows[0]!.solves[i]!.nonce}`);
      });
    }
    return rows;
  } finally {
    await browser.close();
  }
}

try {
  process.stdout.write(`proof-of-work, ${difficulty} bits, ${count} random challenges, in a module worker of Chromium at ${origin}\n`);
  const results: Array<[string, Row[]]> = [];
  for (const jitless of [false, true]) results.push([jitless ? 'without JIT' : 'with JIT', await mode(jitless)]);
  process.stdout.write(`\n${'browser'.padEnd(12)} ${'solver'.padEnd(26)} ${'solves'.padStart(6)} ${'median ms'.padStart(10)} ${'max ms'.padStart(8)} ${'hashes/s'.padStart(10)} ${`mean (2^${difficulty}/rate)`.padStart(18)}\n`);
  for (const [label, rows] of results) {
    for (const row of rows) {
      const hashes = row.solves.reduce((n, s) => n + parseInt(s.nonce, 36) + 1, 0);
      const ms = row.solves.reduce((n, s) => n + s.ms, 0);
      const rate = (hashes / ms) * 1000;
      process.stdout.write(
        `${label.padEnd(12)} ${row.label.padEnd(26)} ${String(row.solves.length).padStart(6)} ${median(row.solves.map((s) => s.ms)).toFixed(0).padStart(10)} ${Math.max(...row.solves.map((s) => s.ms)).toFixed(0).padStart(8)} ${rate.toFixed(0).padStart(10)} ${`${((2 ** difficulty / rate)).toFixed(2)} s`.padStart(18)}\n`,
      );
    }
  }
  for (const [label, rows] of results) {
    const chose = rows.find((r) => r.label.startsWith('SPA'))!.solves.map((s) => s.chose);
    process.stdout.write(`\nsolveProof ${label} went on with: native ${chose.filter((c) => c === 'native').length}, plain ${chose.filter((c) => c === 'plain').length} (of ${chose.length}; a solve found in the trial chose neither)`);
  }
  process.stdout.write(`\n\nnonces found: ${results[0]![1][0]!.solves.map((s) => s.nonce).join(' ')} (hashes done = nonce in base 36 + 1)\n`);
} finally {
  server.close();
}
