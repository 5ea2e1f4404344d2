/**
 * The server's first paint in Chromium (docs/decisions/first-paint.md): before any
 * script runs a public page already shows its first screen, as a picture that
 * assistive technology and the keyboard never reach; the SPA then takes its place
 * in one step, and the live page is the only one left. A stored language other than
 * the picture's shows the live page at once; a page a quick exit travels through
 * shows nothing, picture included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const cat = (area: string, lang: string) => JSON.parse(readFileSync(path.join(ROOT, 'src/i18n', area, `${lang}.json`), 'utf8')) as Record<string, string>;
const formsEn = cat('forms', 'en');
const formsPl = cat('forms', 'pl');

let browser: Browser;
let portal: Portal;
const opened: OpenedPage[] = [];

beforeAll(async () => {
  [browser, portal] = await Promise.all([launchBrowser(), startPortal()]);
});
afterAll(async () => {
  for (const p of opened) await p.close().catch(() => undefined);
  await browser?.close();
  await portal?.server.stop();
  await portal?.server.cleanup();
});

async function open(opts: { width?: number; locale?: string } = {}) {
  const p = await openPage(browser, { locale: 'en-GB', ...opts });
  opened.push(p);
  return p;
}

describe('the first paint', () => {
  it('shows the online form heading and introduction before any script runs, hidden from assistive technology and the keyboard', async () => {
    const { page } = await open({ width: 412 });
    // The SPA's scripts never arrive: what shows is the server's picture alone.
    await page.route(/\/assets\/.*\.js$/, (r) => r.abort());
    await page.goto(portal.url('localhost', '/online-form'));
    const picture = page.locator('#wb-first-paint');
    await expect.poll(() => picture.getByText(formsEn['forms.online.title']!, { exact: true }).isVisible()).toBe(true);
    expect(await picture.getByText(formsEn['forms.online.intro']!.split('{')[0]!.trim().slice(0, 20)).isVisible()).toBe(true);
    expect(await page.locator('#root').isHidden()).toBe(true);
    // A picture: no heading for a screen reader, nothing to tab to.
    expect(await page.getByRole('heading').count()).toBe(0);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement === document.body || document.activeElement === null)).toBe(true);
  });

  it('gives way to the live page in one step: one heading, working controls, no errors, axe clean', async () => {
    const { page } = await open();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(portal.url('localhost', '/online-form'));
    await expect.poll(() => page.getByRole('heading', { level: 1, name: formsEn['forms.online.title']! }).isVisible()).toBe(true);
    await expect.poll(() => page.locator('#wb-first-paint').count()).toBe(0);
    expect(await page.locator('#root').isVisible()).toBe(true);
    expect(await page.getByRole('heading', { level: 1 }).count()).toBe(1);
    // The live form answers: the first step's choice can be made.
    const radio = page.getByRole('radio').first();
    await radio.check();
    expect(await radio.isChecked()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('brings the route’s texts in the page: the first load asks for no catalogue chunk, a later language does', async () => {
    const { page, requests } = await open();
    // The chunks of the form's and the frame's catalogues, by the build's manifest.
    const manifest = JSON.parse(readFileSync(path.join(process.env.DIST_DIR ?? path.join(ROOT, 'dist'), '.vite/manifest.json'), 'utf8')) as Record<string, { file: string }>;
    const chunkOf = new Map<string, string>(Object.entries(manifest).flatMap(([key, c]) => (/^src\/i18n\/(common|forms)\/[a-z]{2}\.json$/.test(key) ? [[`/${c.file}`, key] as [string, string]] : [])));
    const catalogueChunks = () => requests.flatMap((r) => chunkOf.get(new URL(r.url).pathname) ?? []);
    await page.goto(portal.url('localhost', '/online-form'));
    await expect.poll(() => page.getByRole('heading', { level: 1, name: formsEn['forms.online.title']! }).isVisible()).toBe(true);
    await page.getByRole('radio').first().check();
    expect(catalogueChunks()).toEqual([]);
    // Another language than the page's comes as before, from its chunks.
    await page.getByRole('combobox', { name: cat('common', 'en')['frame.language']! }).selectOption('pl');
    await expect.poll(() => page.getByRole('heading', { level: 1, name: formsPl['forms.online.title']! }).isVisible()).toBe(true);
    expect(catalogueChunks().sort()).toEqual(['src/i18n/common/pl.json', 'src/i18n/forms/pl.json']);
  });

  it('a language chosen on an earlier visit shows at once, not the picture in the browser language', async () => {
    const { page } = await open();
    await page.goto(portal.url('localhost', '/'));
    await page.evaluate(() => localStorage.setItem('wb.language', 'pl'));
    await page.goto(portal.url('localhost', '/online-form'));
    await expect.poll(() => page.getByRole('heading', { level: 1, name: formsPl['forms.online.title']! }).isVisible()).toBe(true);
    expect(await page.locator('#wb-first-paint').count()).toBe(0);
    expect(await page.getByText(formsEn['forms.online.title']!, { exact: true }).count()).toBe(0);
  });

  it('a page reached by a quick exit shows nothing, not even the picture', async () => {
    const { page } = await open();
    await page.goto(portal.url('localhost', '/'));
    // The flag the quick exit leaves for the page its traversal lands on; the app's
    // scripts are kept away so only the gate in the HTML can hide the page.
    await page.evaluate(() => sessionStorage.setItem('quick-exit', '1'));
    await page.route(/\/assets\/.*\.js$/, (r) => r.abort());
    await page.goto(portal.url('localhost', '/online-form'));
    expect(await page.locator('#wb-first-paint').count()).toBe(1);
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).visibility)).toBe('hidden');
  });
});
