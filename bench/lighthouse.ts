/**
 * npm run bench -- lighthouse
 *
 * In one run: builds the portal and a bare React hello world with the same Vite
 * (both precompressed the same way; the portal with the private area's and the report
 * forms' own pages), serves each with the real server in a process of its own, as
 * `npm start` does (the hello world as the server's SPA, on another instance), and runs
 * Lighthouse (the npm package; mobile preset, simulated throttling, cold cache) in Debian's Chromium on
 * `/`, `/online-form`, a signed-in `/private/status` and the hello world, and `/` and
 * `/online-form` once more from a copy of the same build without the server's first
 * paint (dist/.ssr, docs/decisions/first-paint.md) as the baseline. Prints the
 * four category scores, LCP and the failed audits side by side. Figures only.
 * LIGHTHOUSE_REPORT_DIR=dir also writes each page's full Lighthouse JSON there.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'vite';
import react from '@vitejs/plugin-react';
import lighthouse from 'lighthouse';
import puppeteer, { type Page } from 'puppeteer-core';
import { precompressDir } from '../scripts/precompress.ts';
import { formatCaseNumber } from '../machines/schema.ts';
import { chromiumPath } from '../test/e2e/harness.ts';
import { fileFollowedCase, freePort, start } from './_servers.ts';

const root = path.resolve(import.meta.dirname, '..');

async function buildHelloWorld(outDir: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wb-hello-'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><html lang="en"><head><meta charset="UTF-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="description" content="Hello world"><title>Hello</title></head><body><div id="root"></div><script type="module" src="/main.tsx"></script></body></html>');
  writeFileSync(path.join(dir, 'main.tsx'), "import { StrictMode } from 'react';\nimport { createRoot } from 'react-dom/client';\ncreateRoot(document.getElementById('root')!).render(<StrictMode><main><h1>Hello world</h1></main></StrictMode>);\n");
  await build({
    root: dir,
    configFile: false,
    logLevel: 'warn',
    plugins: [react()],
    resolve: { alias: { react: path.join(root, 'node_modules/react'), 'react-dom': path.join(root, 'node_modules/react-dom') } },
    build: { outDir, emptyOutDir: true },
  });
  precompressDir(outDir);
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The real server in a process of its own, as `npm start` runs it: in this process its
 * answers would wait behind Lighthouse's and Chromium's driver's work, and Lighthouse
 * takes the server's observed response times into its simulation.
 */
async function serve(distDir: string, dataDir: string, seedDemo: boolean): Promise<{ child: ChildProcess; port: number }> {
  mkdirSync(dataDir, { recursive: true });
  const port = await freePort();
  // The proof-of-work is set aside by its setting: the bench files its one case with a plain POST.
  const child = await start(['--import', 'tsx', 'server/main.ts'], { PORT: String(port), HOST: '127.0.0.1', DIST_DIR: distDir, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn', SEED_DEMO: String(seedDemo), POW_DIFFICULTY: '0' }, /running on/);
  return { child, port };
}

interface Row {
  page: string;
  performance: number;
  accessibility: number;
  bestPractices: number;
  seo: number;
  lcp: number;
  fcp: number;
  tbt: number;
  cls: number;
  /** Lighthouse's own measure of this machine's speed at that moment (higher is faster). */
  benchmarkIndex: number;
  failed: string[];
}

async function audit(page: Page, label: string, url: string, keepStorage = false): Promise<Row> {
  if (keepStorage) {
    // Cold cache, but the tab's sessionStorage (the reporter's tokens) kept.
    const cdp = await page.createCDPSession();
    await cdp.send('Network.clearBrowserCache');
    await cdp.detach();
  }
  const result = await lighthouse(url, { logLevel: 'error', output: 'json', disableStorageReset: keepStorage }, undefined, page);
  if (!result) throw new Error(`no Lighthouse result for ${url}`);
  const { lhr } = result;
  // LIGHTHOUSE_REPORT_DIR=dir keeps each page's full report (LCP element, long tasks, unused JS) to read.
  if (process.env.LIGHTHOUSE_REPORT_DIR) {
    mkdirSync(process.env.LIGHTHOUSE_REPORT_DIR, { recursive: true });
    writeFileSync(path.join(process.env.LIGHTHOUSE_REPORT_DIR, `${label.replace(/[^a-z0-9]+/gi, '_').replace(/^_|_$/g, '') || 'root'}.json`), JSON.stringify(lhr));
  }
  const score = (id: string) => Math.round((lhr.categories[id]?.score ?? 0) * 100);
  const failed = Object.values(lhr.categories)
    .flatMap((c) => c.auditRefs.filter((r) => r.weight > 0).map((r) => lhr.audits[r.id]!))
    .filter((a) => a.score !== null && a.score < 0.9 && a.scoreDisplayMode !== 'informative' && a.scoreDisplayMode !== 'manual')
    .map((a) => `${a.id}${a.displayValue ? ` (${a.displayValue})` : ''}`);
  const ms = (id: string) => Math.round(lhr.audits[id]?.numericValue ?? NaN);
  if (lhr.finalDisplayedUrl && new URL(lhr.finalDisplayedUrl).pathname !== new URL(url).pathname) failed.unshift(`ended on ${new URL(lhr.finalDisplayedUrl).pathname}`);
  return {
    page: label,
    performance: score('performance'),
    accessibility: score('accessibility'),
    bestPractices: score('best-practices'),
    seo: score('seo'),
    lcp: ms('largest-contentful-paint'),
    fcp: ms('first-contentful-paint'),
    tbt: ms('total-blocking-time'),
    cls: Math.round((lhr.audits['cumulative-layout-shift']?.numericValue ?? NaN) * 1000) / 1000,
    benchmarkIndex: Math.round(lhr.environment?.benchmarkIndex ?? NaN),
    failed: [...new Set([...failed, ...(lhr.runWarnings ?? []).map((w) => `warning: ${w.replace(/\s+/g, ' ').slice(0, 160)}`)])],
  };
}

async function signIn(page: Page, origin: string) {
  const caseNumber = await fileFollowedCase(origin, 'pass1234');
  await page.goto(`${origin}/private/status`);
  await page.waitForSelector('#caseNumber', { timeout: 60_000 });
  await page.type('#caseNumber', formatCaseNumber(caseNumber));
  await page.type('#password', 'pass1234');
  await Promise.all([page.waitForNavigation({ timeout: 60_000 }), page.keyboard.press('Enter')]);
  await page.waitForFunction(() => location.pathname === '/private/status', { timeout: 60_000 });
}

async function bench() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-bench-lh-'));
  const servers: ChildProcess[] = [];
  const browser = await puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
  try {
    console.log('building the portal and a bare React hello world with the same Vite …');
    const portalDir = path.join(tmp, 'portal');
    await build({ root, configFile: path.join(root, 'vite.config.ts'), logLevel: 'warn', build: { outDir: portalDir, emptyOutDir: true } });
    // The private area's and the report forms' own pages, written beside the first build
    // (docs/decisions/private-entry.md, report-entry.md).
    for (const page of ['private', 'report']) {
      await build({ root, configFile: path.join(root, `vite.${page}.config.ts`), logLevel: 'warn', build: { outDir: portalDir, emptyOutDir: false } });
    }
    // The digests every page pins its scripts by (docs/decisions/code-integrity.md), as `npm run build` writes them.
    execFileSync(process.execPath, [path.join(root, 'scripts/build-manifest.mjs')], { env: { ...process.env, DIST_DIR: portalDir }, stdio: 'ignore' });
    // The baseline: the same client build, served without the first-paint bundle.
    const plainDir = path.join(tmp, 'portal-plain');
    cpSync(portalDir, plainDir, { recursive: true });
    await build({ root, configFile: path.join(root, 'vite.ssr.config.ts'), logLevel: 'error', build: { outDir: path.join(portalDir, '.ssr'), emptyOutDir: true } });
    const helloDir = path.join(tmp, 'hello');
    await buildHelloWorld(helloDir);
    const portal = await serve(portalDir, path.join(tmp, 'portal-data'), true);
    const plain = await serve(plainDir, path.join(tmp, 'plain-data'), true);
    const hello = await serve(helloDir, path.join(tmp, 'hello-data'), false);
    servers.push(portal.child, plain.child, hello.child);
    // `localhost` is the first demo company.
    const origin = `http://localhost:${portal.port}`;

    const rows: Row[] = [];
    for (const [label, url] of [
      ['React hello world (same server)', `http://localhost:${hello.port}/`],
      ['/', `${origin}/`],
      ['/online-form', `${origin}/online-form`],
      ['/ (no first paint, same build)', `http://localhost:${plain.port}/`],
      ['/online-form (no first paint, same build)', `http://localhost:${plain.port}/online-form`],
    ] as const) {
      // Each server renders a page's HTML once per company, language and path and
      // then answers it from memory (server/spa.ts): the first visitor after a start
      // or an import pays that, every later one does not. Both portals are measured
      // warm, as every reporter after the first meets them.
      const warm = await browser.newPage();
      await warm.goto(url, { waitUntil: 'load' });
      await warm.close();
      const page = await browser.newPage();
      rows.push(await audit(page, label, url));
      await page.close();
      console.log(`  ${label}: performance ${rows.at(-1)!.performance}, LCP ${rows.at(-1)!.lcp} ms`);
    }
    const page = await browser.newPage();
    await signIn(page, origin);
    rows.push(await audit(page, '/private/status (signed in)', `${origin}/private/status`, true));
    console.log(`  /private/status: performance ${rows.at(-1)!.performance}, LCP ${rows.at(-1)!.lcp} ms`);
    await page.close();

    console.log('\nLighthouse (mobile preset, simulated throttling, cold cache), one run each, shared machine:\n');
    // Lighthouse multiplies the CPU time it observed by 4, so a slow moment of a shared
    // machine moves every figure; its benchmark index, taken at each page, says how fast
    // the machine was then (the hello world's row is the same run's baseline).
    console.log('| page | performance | accessibility | best practices | SEO | FCP ms | LCP ms | TBT ms | CLS | benchmark index |');
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const r of rows) console.log(`| ${r.page} | ${r.performance} | ${r.accessibility} | ${r.bestPractices} | ${r.seo} | ${r.fcp} | ${r.lcp} | ${r.tbt} | ${r.cls} | ${r.benchmarkIndex} |`);
    console.log('\naudits below 0.9:');
    for (const r of rows) console.log(`  ${r.page}: ${r.failed.length ? r.failed.join(', ') : 'none'}`);
  } finally {
    await browser.close();
    for (const s of servers) s.kill();
    rmSync(tmp, { recursive: true, force: true });
  }
}

await bench();
