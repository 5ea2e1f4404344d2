/**
 * `npm run bench -- bundle`: in one run, builds the portal and a bare React hello
 * world with the same Vite, loads the portal's landing page in Chromium against the
 * real server, and prints the landing route's JS+CSS gzip size, the hello world's,
 * and their ratio (aim: ≤ 1.5×; React + TanStack Router alone are ≈ 1.39×), and the
 * same for the first screen of /online-form. It also checks that no module of the forms, the
 * phone input or the private area is loaded on the landing page, and writes
 * screenshots of the landing page at 375 px and 1280 px to docs/screens/.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { chromium } from 'playwright-core';
import { buildApp } from '../server/app.ts';
import { configFromEnv } from '../server/config.ts';
import { CHROMIUM_ARGS, chromiumPath } from '../test/e2e/harness.ts';

const root = path.resolve(import.meta.dirname, '..');
const kB = (n: number) => `${(n / 1024).toFixed(1)} kB`;
const gz = (file: string) => gzipSync(readFileSync(file), { level: 9 }).length;

/**
 * Modules that must never be on the landing page. (Route *definitions* of
 * src/routes/private*.tsx are in the route tree by design; their components are
 * split off by the router plugin, and what they import is caught here.)
 */
const LAZY_ONLY = [/\/src\/forms\//, /\/src\/private\//, /\/src\/i18n\/(forms|private)\//, /react-international-phone/, /oidc-client-ts/, /country-flag-icons/, /@radix-ui\/react-dialog/];

/** Records which source modules end up in which output file. */
function moduleMap(into: Map<string, string[]>): Plugin {
  return {
    name: 'bench-module-map',
    generateBundle(_opts, bundle) {
      for (const [file, out] of Object.entries(bundle)) if (out.type === 'chunk') into.set(file, out.moduleIds);
    },
  };
}

async function buildPortal(outDir: string, modules: Map<string, string[]>) {
  await build({
    root,
    configFile: path.join(root, 'vite.config.ts'),
    logLevel: 'warn',
    plugins: [moduleMap(modules)],
    build: { outDir, emptyOutDir: true },
  });
}

async function buildHelloWorld(outDir: string): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wb-hello-'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><html lang="en"><head><meta charset="UTF-8"><title>Hello</title></head><body><div id="root"></div><script type="module" src="/main.tsx"></script></body></html>');
  writeFileSync(
    path.join(dir, 'main.tsx'),
    "import { StrictMode } from 'react';\nimport { createRoot } from 'react-dom/client';\ncreateRoot(document.getElementById('root')!).render(<StrictMode><h1>Hello world</h1></StrictMode>);\n",
  );
  await build({
    root: dir,
    configFile: false,
    logLevel: 'warn',
    plugins: [react()],
    resolve: { alias: { react: path.join(root, 'node_modules/react'), 'react-dom': path.join(root, 'node_modules/react-dom') } },
    build: { outDir, emptyOutDir: true },
  });
  const manifestless = (await import('node:fs')).readdirSync(path.join(outDir, 'assets'));
  const total = manifestless.filter((f) => f.endsWith('.js') || f.endsWith('.css')).reduce((s, f) => s + gz(path.join(outDir, 'assets', f)), 0);
  rmSync(dir, { recursive: true, force: true });
  return total;
}

async function bench() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-bench-bundle-'));
  const portalDir = path.join(tmp, 'portal');
  const helloDir = path.join(tmp, 'hello');
  const modules = new Map<string, string[]>();
  console.log('building the portal and a bare React hello world with the same Vite …');
  await buildPortal(portalDir, modules);
  const hello = await buildHelloWorld(helloDir);

  const dataDir = path.join(tmp, 'data');
  mkdirSync(dataDir);
  const config = { ...configFromEnv({}), port: 0, host: '127.0.0.1', dataDir, distDir: portalDir, logLevel: 'silent', seedDemo: true };
  const { app } = await buildApp(config);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'da-DK' });
    const page = await context.newPage();
    const loaded: string[] = [];
    page.on('response', (r) => {
      const u = new URL(r.url());
      if (u.pathname.startsWith('/assets/') && /\.(js|css)$/.test(u.pathname)) loaded.push(u.pathname.slice('/assets/'.length));
    });
    await page.goto(`http://localhost:${port}/`);
    await page.locator('[data-card]').first().waitFor();
    await page.waitForLoadState('networkidle');

    // The stylesheet is written into the HTML (server/spa.ts): counted as a file would be.
    const inlineCss = async (url: string) => {
      const html = await (await fetch(url, { headers: { 'accept-language': 'da' } })).text();
      const css = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]).join('');
      return css ? gzipSync(Buffer.from(css), { level: 9 }).length : 0;
    };
    const rows = loaded.map((f) => ({ file: f, gzip: gz(path.join(portalDir, 'assets', f)) }));
    const landingCss = await inlineCss(`http://localhost:${port}/`);
    if (landingCss) rows.push({ file: '<style> in index.html', gzip: landingCss });
    const landing = rows.reduce((s, r) => s + r.gzip, 0);
    console.log('\nlanding route (localhost, da), files loaded:');
    for (const r of rows.sort((a, b) => b.gzip - a.gzip)) console.log(`  ${r.file.padEnd(40)} ${kB(r.gzip).padStart(9)}`);

    const offenders = loaded.flatMap((f) => (modules.get(`assets/${f}`) ?? []).filter((m) => LAZY_ONLY.some((re) => re.test(m))).map((m) => `${f}: ${path.relative(root, m)}`));

    console.log('\n| what | JS+CSS gzip |');
    console.log('|---|---|');
    console.log(`| landing route | ${kB(landing)} |`);
    console.log(`| bare React hello world (same Vite) | ${kB(hello)} |`);
    console.log(`| ratio | ${(landing / hello).toFixed(2)}× (aim ≤ 1.50×) |`);
    // The report forms' own chunks (loaded only on /online-form, /oral-report, /book-meeting).
    const formChunks = [...modules].filter(([, ids]) => ids.some((m) => /\/src\/forms\//.test(m))).map(([f]) => f);
    const formGzip = formChunks.reduce((sum, f) => sum + gz(path.join(portalDir, f)), 0);
    console.log(`| report forms chunk${formChunks.length > 1 ? 's' : ''} (${formChunks.map((f) => path.basename(f)).join(', ')}) | ${kB(formGzip)} |`);
    // The online form's first screen, in a fresh context (nothing cached).
    const formContext = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'da-DK' });
    const formPage = await formContext.newPage();
    const formLoaded: string[] = [];
    formPage.on('response', (r) => {
      const u = new URL(r.url());
      if (u.pathname.startsWith('/assets/') && /\.(js|css)$/.test(u.pathname)) formLoaded.push(u.pathname.slice('/assets/'.length));
    });
    await formPage.goto(`http://localhost:${port}/online-form`);
    await formPage.locator('main h1').first().waitFor();
    await formPage.waitForLoadState('networkidle');
    const formTotal = formLoaded.reduce((sum, f) => sum + gz(path.join(portalDir, 'assets', f)), 0) + (await inlineCss(`http://localhost:${port}/online-form`));
    const phoneOnForm = formLoaded.some((f) => (modules.get(`assets/${f}`) ?? []).some((m) => /react-international-phone/.test(m)));
    console.log(`| /online-form first screen (all files loaded) | ${kB(formTotal)} (${(formTotal / hello).toFixed(2)}×) |`);
    console.log(`\nphone input on the online form's first screen: ${phoneOnForm ? 'LOADED' : 'not loaded (good)'}`);
    await formContext.close();
    console.log(`\nforms, phone input, private area on the landing page: ${offenders.length === 0 ? 'none (good)' : `LOADED:\n  ${offenders.join('\n  ')}`}`);

    const screens = path.join(root, 'docs/screens');
    mkdirSync(screens, { recursive: true });
    for (const [width, height] of [[375, 812], [1280, 900]] as const) {
      await page.setViewportSize({ width, height });
      await page.goto(`http://localhost:${port}/`);
      await page.locator('[data-card]').first().waitFor();
      await page.waitForLoadState('networkidle');
      const file = path.join(screens, `landing-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      console.log(`screenshot: ${path.relative(root, file)}`);
    }
    await context.close();
    if (offenders.length) process.exitCode = 1;
  } finally {
    await browser.close();
    await app.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

await bench();
