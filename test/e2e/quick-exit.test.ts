/**
 * "Leave quickly" in real Chromium (docs/decisions/quick-exit.md): after the button
 * or Alt+Q, no Back (and no Forward) reaches a page that shows the portal, whether
 * the portal pages were one document, several documents, or went through the
 * provider's sign-in; the tab's sessionStorage (tokens) is empty; the company's
 * neutral address is used when it set one, the blank /leave page otherwise.
 *
 * Playwright's goBack walks every history entry (CDP navigateToHistoryEntry), even
 * those Chromium's own Back button would skip, so this is stricter than a person.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { createOnlineCase, firstOfficerId, signInThroughProvider } from './reporter.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const en = JSON.parse(readFileSync(path.join(ROOT, 'src/i18n/common/en.json'), 'utf8')) as Record<string, string>;
const LEAVE = en['frame.quickExit']!;

let browser: Browser;
let portal: Portal;
let neutral: Server;
let neutralOrigin: string;
const opened: OpenedPage[] = [];

beforeAll(async () => {
  // Another site on another port: where the reporter came from, and the company's neutral address.
  neutral = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>News ${req.url}</title><h1>Weather and news</h1>`);
  });
  await new Promise<void>((r) => neutral.listen(0, '127.0.0.1', r));
  neutralOrigin = `http://127.0.0.1:${(neutral.address() as AddressInfo).port}`;
  [browser, portal] = await Promise.all([launchBrowser(), startPortal()]);
});

afterAll(async () => {
  for (const p of opened) await p.close().catch(() => undefined);
  await browser?.close();
  await portal?.server.stop();
  await portal?.server.cleanup();
  await new Promise((r) => neutral?.close(r));
});

async function open(width?: number): Promise<Page> {
  const p = await openPage(browser, { locale: 'en-GB', width });
  opened.push(p);
  return p.page;
}

async function setQuickExitUrl(url: string | undefined) {
  const row = await portal.server.ctx.db.selectFrom('company').select('settings').where('id', '=', 'nordlys-energi').executeTakeFirstOrThrow();
  const settings = { ...(row.settings as Record<string, unknown>) };
  if (url) settings.quickExitUrl = url;
  else delete settings.quickExitUrl;
  await portal.server.ctx.db.updateTable('company').set({ settings: JSON.stringify(settings) }).where('id', '=', 'nordlys-energi').execute();
}

const portalOrigin = () => new URL(portal.url()).origin;

/** What a person would see now: a portal page is any portal address other than the blank /leave, or a /leave that shows something. */
async function showsPortal(page: Page): Promise<string | null> {
  const u = new URL(page.url());
  if (u.origin !== portalOrigin()) return null;
  const text = (await page.evaluate(() => document.body?.innerText ?? '')).trim();
  const title = await page.title();
  if (page.url() === 'about:blank') return null;
  if (u.pathname === '/leave' && text === '' && title === '') return null;
  return `${u.pathname} (title "${title}", text "${text.slice(0, 60)}")`;
}

/** Back one entry at a time to the first, then Forward to the last; every stop is checked. */
async function walkHistory(page: Page): Promise<{ back: string[]; forward: string[]; portalShown: string[] }> {
  // A step across sites may swap the page's renderer, and the DevTools session on the
  // old one ends with it ("Not attached to an active page"): a new session then.
  let cdp = await page.context().newCDPSession(page);
  const attached = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (e) {
      if (!/not attached|target closed|session closed/i.test(String(e))) throw e;
      cdp = await page.context().newCDPSession(page);
      return call();
    }
  };
  const history = () => attached(() => cdp.send('Page.getNavigationHistory'));
  const back: string[] = [];
  const forward: string[] = [];
  const portalShown: string[] = [];
  const step = async (delta: -1 | 1, into: string[], label: string) => {
    const { currentIndex, entries } = await history();
    const entry = entries[currentIndex + delta];
    if (!entry) return false;
    await attached(() => cdp.send('Page.navigateToHistoryEntry', { entryId: entry.id }));
    // The call returns before the traversal commits; on a loaded machine the page being
    // left would still be the one loaded (and recorded) without this wait.
    await expect.poll(async () => (await history()).currentIndex).toBe(currentIndex + delta);
    await page.waitForLoadState('load');
    await page.waitForTimeout(200); // a page that would leave by itself has left by now
    into.push(page.url());
    const shown = await showsPortal(page);
    if (shown) portalShown.push(`${label}: ${shown}`);
    return true;
  };
  for (let i = 0; i < 30 && (await step(-1, back, 'back')); i++);
  for (let i = 0; i < 30 && (await step(1, forward, 'forward')); i++);
  await cdp.detach().catch(() => undefined);
  return { back, forward, portalShown };
}

describe('quick exit', () => {
  it('the button on a public page leaves for about:blank (no company address: the address bar names nothing); Back goes to the page before the portal', async () => {
    await setQuickExitUrl(undefined);
    const page = await open();
    await page.goto(`${neutralOrigin}/before`);
    await page.goto(portal.url('localhost', '/'));
    await expect.poll(() => page.getByTestId('quick-exit-help').innerText()).toContain('Alt+Q');
    await page.getByRole('link', { name: /Report online/ }).click();
    await page.waitForURL((u) => u.pathname === '/online-form');
    await page.getByRole('link', { name: 'Home' }).first().click();
    await page.waitForURL((u) => u.pathname === '/');

    const button = page.getByRole('button', { name: LEAVE });
    expect(await button.getAttribute('aria-keyshortcuts')).toBe('Alt+Q');
    const box = (await button.boundingBox())!;
    expect(box.width).toBeGreaterThanOrEqual(44);
    expect(box.height).toBeGreaterThanOrEqual(44);
    await button.click();
    await page.waitForURL('about:blank');
    expect(await showsPortal(page)).toBeNull();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);

    const walk = await walkHistory(page);
    expect(walk.portalShown).toEqual([]);
    expect(walk.back).toContain(`${neutralOrigin}/before`);
  });

  it('Alt+Q while typing in the form, portal pages in two documents: the company address, and no portal page with Back or Forward', async () => {
    await setQuickExitUrl(`${neutralOrigin}/after`);
    const page = await open();
    await page.goto(`${neutralOrigin}/before`);
    await page.goto(portal.url('localhost', '/faq'));
    await page.getByRole('link', { name: 'Home' }).first().click();
    await page.waitForURL((u) => u.pathname === '/');
    // A second document: a full load, as after a reload or a typed address.
    await page.goto(portal.url('localhost', '/online-form'));
    const field = page.getByRole('textbox').first();
    await field.click();
    await field.pressSequentially('Employee');
    await page.keyboard.press('Alt+KeyQ');
    await page.waitForURL(`${neutralOrigin}/after`);

    const walk = await walkHistory(page);
    expect(walk.portalShown).toEqual([]);
    expect(walk.back).toContain(`${neutralOrigin}/before`);
    // The blank page was passed on the way back: the typed words and tokens are gone.
    expect(walk.back.some((u) => u.startsWith(portalOrigin()))).toBe(true);
  });

  it('from the private area after signing in through the provider: nothing signed in stays reachable', async () => {
    await setQuickExitUrl(undefined);
    const officerId = await firstOfficerId(portal);
    const caseNumber = await createOnlineCase(portal, { officerId, password: 'quick-exit-1' });
    const page = await open(390); // a phone: the control is in the bar, not in the drawer
    await page.goto(`${neutralOrigin}/before`);
    await signInThroughProvider(portal, page, caseNumber, 'quick-exit-1');
    await page.getByRole('link', { name: /messages/i }).first().click().catch(() => undefined);
    expect(await page.evaluate(() => Object.keys(sessionStorage).some((k) => k.startsWith('oidc.')))).toBe(true);

    const button = page.getByRole('button', { name: LEAVE });
    await expect.poll(() => button.isVisible()).toBe(true);
    const box = (await button.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(44);
    // Keyboard: focus the control and press Enter, as a keyboard or screen-reader user does.
    await button.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL('about:blank');
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);

    const walk = await walkHistory(page);
    expect(walk.portalShown).toEqual([]);
    expect(walk.back).toContain(`${neutralOrigin}/before`);

    // Someone who opens the portal afterwards in this browser must type the password:
    // the provider's single sign-on session ended with the exit.
    await page.goto(portal.url('localhost', '/private/status'));
    await page.waitForSelector('#caseNumber');
    expect(new URL(page.url()).pathname).toMatch(/^\/idp\/realms\/whistleblower\//);
  });

  it('the blank page names nothing and loads nothing from another host', async () => {
    await setQuickExitUrl(`${neutralOrigin}/after`);
    const res = await fetch(portal.url('localhost', '/leave'));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await res.text();
    expect(html).not.toMatch(/Nordlys|whistle|report/i);
    expect(html).toContain(`data-to="${neutralOrigin}/after"`);
    // Not even /favicon.ico: the page says it has no icon.
    expect(html).toContain('<link rel="icon" href="data:,">');
    await setQuickExitUrl(undefined);
    expect(await (await fetch(portal.url('localhost', '/leave'))).text()).not.toContain('data-to');
  });
});
