/**
 * npm run bench -- crypto [MiB] [RUNS] [--browser]   (default 256 MiB, 3 runs; with --browser 1024 MiB)
 *
 * The envelope module's costs (core/crypto, issue 37 §8), in Node's WebCrypto and
 * hash-wasm, each beside a same-run baseline:
 * 1. the reporter's key derivation with the real parameters: argon2id-v1 (64 MiB,
 *    t = 3, p = 1) and pbkdf2-v1 (600,000 iterations), median of RUNS;
 * 2. MiB of plaintext sealed through the file stream (encryptFileStream), and opened
 *    (decryptFileStream), against a plain copy through an identity TransformStream and
 *    against the server's node:crypto FileEncryptor on the same bytes.
 * With --browser, also in Debian's Chromium (4x CPU throttle, as a slow phone) with
 * and without --js-flags=--jitless (Tor Browser "Safer" turns the JIT and WebAssembly
 * off): which derivation chooseKdf picks, each derivation's time, and sealing 64 MiB
 * in the page. The aim: derivation ≤ 2 s in both. Then, against a real portal
 * (in this process: SEALED_CASES=browser, the built SPA from dist/, POW_DIFFICULTY=0) in
 * Chromium without throttle (test/helpers/crypto-bench.ts): a file of MiB (default
 * 1 GiB with --browser) uploaded by the SPA's plain tus path and by its sealed one
 * (aim: sealed ≥ 0.7× the plain speed), and the sealed file downloaded by a handler's
 * page, opened and saved into the origin private file system beside the same download
 * saved unopened, with the page's heap and renderer RSS above idle (budget 100 MB).
 * `npm run bench -- crypto 64 --browser` tries it quickly. Figures are printed, never
 * asserted.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ARGON2ID_DEFAULT, PBKDF2_DEFAULT, decryptFileStream, deriveReporterKeys, encryptFileStream, makeDataKey, type Kdf } from '../core/crypto/index.ts';
import { FileEncryptor } from '../server/crypto/case-crypto.ts';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const browser = process.argv.includes('--browser');
const MiB = 1024 * 1024;
const sizeMb = Number(args[0] ?? 256);
const browserMb = Number(args[0] ?? 1024);
const runs = Number(args[1] ?? 3);
const block = new Uint8Array(randomBytes(MiB));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number) => `${ms.toFixed(0).padStart(6)} ms`;

async function time(f: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

function source(mb: number): ReadableStream<Uint8Array> {
  let left = mb;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      // A fresh copy each time, as a file read gives: the copy baseline pays it too.
      if (left-- > 0) c.enqueue(block.slice());
      else c.close();
    },
  });
}

async function drain(stream: ReadableStream<Uint8Array>): Promise<number> {
  let n = 0;
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) n += r.value.length;
  return n;
}

const copy = () => new TransformStream<Uint8Array, Uint8Array>({ transform: (chunk, c) => c.enqueue(chunk.slice()) });

async function derivations(): Promise<void> {
  process.stdout.write(`\nKey derivation in Node ${process.version} (median of ${runs})\n`);
  const input = { caseNumber: '1234567890123456', password: 'a fairly long passphrase', salt: new Uint8Array(randomBytes(16)) };
  for (const kdf of [ARGON2ID_DEFAULT, PBKDF2_DEFAULT] as Kdf[]) {
    const times: number[] = [];
    for (let i = 0; i < runs; i++) times.push(await time(() => deriveReporterKeys({ ...input, kdf })));
    process.stdout.write(`  ${kdf.name.padEnd(12)} ${fmt(median(times))}   (${JSON.stringify(kdf)})\n`);
  }
}

async function streams(): Promise<void> {
  process.stdout.write(`\nFile stream, ${sizeMb} MiB in 1 MiB pieces (median of ${runs})\n`);
  const key = makeDataKey();
  // The sealed bytes for the decryption run, made once (sizeMb + a little in memory).
  const sealedParts: Uint8Array[] = [];
  await source(sizeMb).pipeThrough(encryptFileStream(key, 'bench')).pipeTo(new WritableStream({ write: (c) => void sealedParts.push(c) }));
  const rows: Array<[string, () => Promise<unknown>]> = [
    ['plain copy (identity TransformStream)', () => drain(source(sizeMb).pipeThrough(copy()))],
    ['core encryptFileStream (WebCrypto)', () => drain(source(sizeMb).pipeThrough(encryptFileStream(key, 'bench')))],
    [
      'core decryptFileStream (WebCrypto)',
      () => {
        let i = 0;
        return drain(new ReadableStream<Uint8Array>({ pull: (c) => (i < sealedParts.length ? c.enqueue(sealedParts[i++]!) : c.close()) }).pipeThrough(decryptFileStream(key, 'bench')));
      },
    ],
    [
      'server FileEncryptor (node:crypto)',
      () => {
        let left = sizeMb;
        return pipeline(
          Readable.from((function* () { while (left-- > 0) yield Buffer.from(block); })()),
          new FileEncryptor(key, 'bench'),
          new Writable({ write: (_c, _e, cb) => cb() }),
        );
      },
    ],
  ];
  let baseline = 0;
  for (const [label, run] of rows) {
    const times: number[] = [];
    for (let i = 0; i < runs; i++) times.push(await time(run));
    const ms = median(times);
    baseline ||= ms;
    const rate = sizeMb / (ms / 1000);
    process.stdout.write(`  ${label.padEnd(40)} ${fmt(ms)}  ${rate.toFixed(0).padStart(5)} MiB/s  ${(baseline / ms).toFixed(2)}× the copy's speed\n`);
  }
  sealedParts.length = 0;
}

/** In Chromium, 4x throttled, with and without the JIT: derivation and 64 MiB sealed in the page. */
async function inBrowser(): Promise<void> {
  const { build } = await import('esbuild');
  const { chromium } = await import('playwright-core');
  const { CHROMIUM_ARGS, chromiumPath } = await import('../test/e2e/harness.ts');
  const bundle = (await build({ entryPoints: [new URL('../core/crypto/index.ts', import.meta.url).pathname], bundle: true, format: 'esm', platform: 'browser', write: false, target: 'es2022' })).outputFiles[0]!.text;
  // localhost: a secure context, which WebCrypto needs.
  const server = http.createServer((req, res) => {
    // (__name: tsx names the functions page.evaluate sends; the page needs the helper.)
    if (req.url === '/core.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><script>window.__name = (f) => f;</script><script type="module">import * as c from "/core.js"; window.core = c; window.ready = true;</script>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  try {
    for (const jitless of [false, true]) {
      const b = await chromium.launch({ executablePath: chromiumPath(), args: [...CHROMIUM_ARGS, ...(jitless ? ['--js-flags=--jitless'] : [])], headless: true });
      try {
        const page = await b.newPage();
        const cdp = await page.context().newCDPSession(page);
        await page.goto(`http://localhost:${port}/`);
        await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
        await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
        const figures = await page.evaluate(
          async ({ runs, argon, pbkdf2 }) => {
            const c = (window as unknown as { core: typeof import('../core/crypto/index.ts') }).core;
            const chosen = (await c.chooseKdf()).name;
            const input = { caseNumber: '1234567890123456', password: 'a fairly long passphrase', salt: crypto.getRandomValues(new Uint8Array(16)) };
            const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
            const out: Record<string, string> = { chosen };
            for (const kdf of [argon, pbkdf2]) {
              const times: number[] = [];
              try {
                for (let i = 0; i < runs; i++) {
                  const t0 = performance.now();
                  await c.deriveReporterKeys({ ...input, kdf });
                  times.push(performance.now() - t0);
                }
                out[kdf.name] = `${med(times).toFixed(0)} ms`;
              } catch (e) {
                out[kdf.name] = `fails (${(e as Error).message.slice(0, 60)})`;
              }
            }
            const piece = crypto.getRandomValues(new Uint8Array(65536)).slice();
            const big = new Uint8Array(1 << 20);
            for (let i = 0; i < 16; i++) big.set(piece, i * 65536);
            const mb = 64;
            const stream = (s: TransformStream<Uint8Array, Uint8Array> | null) => {
              let left = mb;
              const src = new ReadableStream<Uint8Array>({ pull: (ctl) => (left-- > 0 ? ctl.enqueue(big.slice()) : ctl.close()) });
              return (s ? src.pipeThrough(s) : src).pipeTo(new WritableStream());
            };
            let t0 = performance.now();
            await stream(new TransformStream({ transform: (ch, ctl) => ctl.enqueue(ch.slice()) }));
            const copyMs = performance.now() - t0;
            t0 = performance.now();
            await stream(c.encryptFileStream(c.makeDataKey(), 'bench'));
            const sealMs = performance.now() - t0;
            out[`seal ${mb} MiB`] = `${sealMs.toFixed(0)} ms (copy ${copyMs.toFixed(0)} ms, ${(copyMs / sealMs).toFixed(2)}×)`;
            return out;
          },
          { runs: Math.min(runs, 3), argon: ARGON2ID_DEFAULT as Kdf, pbkdf2: PBKDF2_DEFAULT as Kdf },
        );
        process.stdout.write(`\nChromium ${b.version()}, 4x CPU throttle${jitless ? ', --js-flags=--jitless' : ''}\n`);
        for (const [k, v] of Object.entries(figures)) process.stdout.write(`  ${k.padEnd(16)} ${v}\n`);
      } finally {
        await b.close();
      }
    }
  } finally {
    server.close();
  }
}

/** The sealed upload and the open-and-save of `browserMb` MiB on a real portal, in this process. */
async function onPortal(): Promise<void> {
  const { existsSync, mkdtempSync, rmSync } = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const { buildApp } = await import('../server/app.ts');
  const { configFromEnv } = await import('../server/config.ts');
  const { formatSealedFileFigures, sealedFileFigures } = await import('../test/helpers/crypto-bench.ts');
  const dist = path.resolve(import.meta.dirname, '../dist');
  if (!existsSync(path.join(dist, 'index.html'))) throw new Error('no built SPA in dist/: run `npm run build` first');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'wb-bench-crypto-portal-'));
  process.stderr.write('starting the portal…\n');
  const built = await buildApp({
    ...configFromEnv({}),
    port: 0,
    host: '127.0.0.1',
    dataDir,
    distDir: dist,
    logLevel: 'error',
    seedDemo: true,
    sealedCases: 'browser',
    // Throughput, not abuse guards: no proof-of-work to solve.
    powDifficulty: 0,
  });
  try {
    await built.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (built.app.server.address() as { port: number }).port;
    const figures = await sealedFileFigures({ origin: `http://localhost:${port}`, db: built.ctx.db, adminToken: built.ctx.adminToken }, browserMb, (l) => process.stderr.write(`${l}\n`));
    process.stdout.write(`\n${formatSealedFileFigures(figures).join('\n')}\n`);
  } finally {
    await built.lifecycle.shutdown(built.app, 5000).catch(() => built.app.close());
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await derivations();
await streams();
if (browser) {
  await inBrowser();
  await onPortal();
}
