/**
 * Code integrity in Chromium (issue 37, Build 6; docs/decisions/code-integrity.md):
 * the pages run under `require-trusted-types-for 'script'` with no violation (the
 * harness fails any page with one), the proof-of-work worker is started from checked
 * bytes (a blob: URL), and a build altered after it was made is refused by the
 * browser, not run: the entry, a route chunk reached by a dynamic import, and a worker.
 * The altered build is a copy of dist/ whose recorded digests (manifest-sha256.json)
 * are the build's own, as on a server whose files were changed under it.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import { distDir, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';

let browser: Browser;
let portal: Portal;
let altered: Portal;
let alteredDir: string;
const opened: OpenedPage[] = [];

const MARK = 'wb-altered-chunk-ran';

/** The built file (`assets/x.js`) of a manifest key of the public page's build. */
function builtFile(dir: string, key: string): string {
  const manifest = JSON.parse(readFileSync(path.join(dir, '.vite', 'manifest.json'), 'utf8')) as Record<string, { file: string; isEntry?: boolean; assets?: string[] }>;
  if (key === 'entry') return Object.values(manifest).find((c) => c.isEntry)!.file;
  if (key === 'pow-worker') return Object.values(manifest).flatMap((c) => c.assets ?? []).find((a) => /\/pow\.worker-[\w-]+\.js$/.test(a))!;
  return manifest[key]!.file;
}

/** Appends code to a built file and drops its precompressed copies, so the server sends the altered bytes. */
function alter(dir: string, file: string, code: string) {
  const p = path.join(dir, file);
  writeFileSync(p, `${readFileSync(p, 'utf8')}\n${code}\n`);
  rmSync(`${p}.br`, { force: true });
  rmSync(`${p}.gz`, { force: true });
}

beforeAll(async () => {
  browser = await launchBrowser();
  portal = await startPortal();
  alteredDir = mkdtempSync(path.join(os.tmpdir(), 'wb-altered-dist-'));
  cpSync(distDir(), alteredDir, { recursive: true });
  alter(alteredDir, builtFile(alteredDir, 'src/routes/how-to-report.tsx?tsr-split=component'), `globalThis[${JSON.stringify(MARK)}] = true;`);
  alter(alteredDir, builtFile(alteredDir, 'pow-worker'), `self.postMessage({ nonce: ${JSON.stringify(MARK)} });`);
  altered = await startPortal({ distDir: alteredDir });
});

afterAll(async () => {
  for (const p of opened) await p.close().catch(() => undefined);
  await browser?.close();
  await portal?.server.cleanup();
  await altered?.server.cleanup();
  if (alteredDir) rmSync(alteredDir, { recursive: true, force: true });
});

async function open() {
  const p = await openPage(browser, { locale: 'da-DK' });
  opened.push(p);
  return p;
}

const h1 = (page: Page) => page.locator('h1').first();

/** An in-app navigation, as a link makes it: the route's chunk comes by a dynamic import. */
async function navigateInApp(page: Page, to: string) {
  await page.evaluate((target) => {
    history.pushState({ __TSR_index: ((history.state as { __TSR_index?: number } | null)?.__TSR_index ?? 0) + 1 }, '', target);
    dispatchEvent(new PopStateEvent('popstate', { state: history.state }));
  }, to);
}

/**
 * Whether the altered code ran, read once the page has settled: the router reloads the
 * page once when a route's chunk cannot be loaded (it takes that for a new deploy), and
 * the reloaded page meets the same refusal.
 */
async function alteredCodeRan(page: Page): Promise<boolean> {
  for (let i = 0; i < 10; i++) {
    await page.waitForLoadState('networkidle');
    try {
      return await page.evaluate((mark) => (globalThis as Record<string, unknown>)[mark] === true, MARK);
    } catch (err) {
      if (!/context was destroyed|navigat/i.test(String(err))) throw err;
    }
  }
  throw new Error('the page did not settle');
}

const integrityRefusal = (m: ConsoleMessage, file: string) => m.type() === 'error' && m.text().includes(path.basename(file)) && /integrity/i.test(m.text());

describe('Trusted Types and pinned workers', () => {
  it('the public pages, a report form with its proof-of-work worker, the sign-in page and the handlers’ workspace run with no Trusted Types violation', async () => {
    const p = await open();
    for (const route of ['/', '/how-to-report', '/faq', '/about-whistleblowing/anonymity']) {
      await p.page.goto(portal.url('localhost', route));
      await h1(p.page).waitFor();
    }
    // The proof-of-work starts with the form; its worker runs from a blob: URL of checked bytes.
    const worker = p.page.waitForEvent('worker');
    await p.page.goto(portal.url('localhost', '/online-form'));
    await h1(p.page).waitFor();
    expect((await worker).url()).toMatch(/^blob:/);

    await p.page.goto(portal.url('localhost', '/private'));
    await p.page.waitForURL(/\/idp\//);
    await p.page.locator('input[type="password"]').waitFor();
    await p.page.goto(portal.url('localhost', '/handler'));
    await h1(p.page).waitFor();
    await p.page.waitForLoadState('networkidle');
    expect(p.violations).toEqual([]);
  });
});

describe('a build altered after it was made', () => {
  it('a route chunk that no longer matches its digest is refused on an in-app navigation (a dynamic import), not run', async () => {
    const p = await open();
    const file = builtFile(alteredDir, 'src/routes/how-to-report.tsx?tsr-split=component');
    const refused = p.page.waitForEvent('console', (m) => integrityRefusal(m, file));
    await p.page.goto(altered.url('localhost', '/'));
    await h1(p.page).waitFor();
    await navigateInApp(p.page, '/how-to-report');
    await refused;
    expect(await alteredCodeRan(p.page)).toBe(false);
  });

  it('the same chunk preloaded by the page itself (a first load of its route) is refused, not run', async () => {
    const p = await open();
    const file = builtFile(alteredDir, 'src/routes/how-to-report.tsx?tsr-split=component');
    const refused = p.page.waitForEvent('console', (m) => integrityRefusal(m, file));
    await p.page.goto(altered.url('localhost', '/how-to-report'));
    await refused;
    expect(await alteredCodeRan(p.page)).toBe(false);
  });

  it('an altered proof-of-work worker is never started', async () => {
    const p = await open();
    const file = builtFile(alteredDir, 'pow-worker');
    const refused = p.page.waitForEvent('console', (m) => integrityRefusal(m, file));
    const started: string[] = [];
    p.page.on('worker', (w) => started.push(w.url()));
    await p.page.goto(altered.url('localhost', '/online-form'));
    await h1(p.page).waitFor();
    await refused;
    await p.page.waitForLoadState('networkidle');
    expect(started).toEqual([]);
  });

  it('an altered entry is refused: the page does not run', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'wb-altered-entry-'));
    try {
      cpSync(distDir(), dir, { recursive: true });
      const entry = builtFile(dir, 'entry');
      alter(dir, entry, `globalThis[${JSON.stringify(MARK)}] = true;`);
      const server = await startPortal({ distDir: dir });
      try {
        const p = await open();
        const refused = p.page.waitForEvent('console', (m) => integrityRefusal(m, entry));
        await p.page.goto(server.url('localhost', '/'));
        await refused;
        expect(await alteredCodeRan(p.page)).toBe(false);
        // Nothing of the SPA was drawn.
        expect(await p.page.locator('#root > *:not(.wb-opening)').count()).toBe(0);
      } finally {
        await server.server.cleanup();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
