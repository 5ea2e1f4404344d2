/**
 * The mobile journey (issue 17 §2): no page scrolls sideways on a 320 or 375 px
 * phone, in any language (the forms with their hidden parts revealed), and the
 * online form's small controls stay tappable.
 * The private area's pages are measured at 375 px after a real sign-in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { createOnlineCase, firstOfficerId, signInThroughProvider } from './reporter.ts';
import { LANGUAGES } from '../../machines/languages.ts';

const PUBLIC_ROUTES = [
  '/',
  '/online-form',
  '/oral-report',
  '/book-meeting',
  '/ask-questions',
  '/faq',
  '/how-to-report',
  '/about-whistleblowing/personal-data',
  '/about-whistleblowing/anonymity',
  '/about-whistleblowing/case-process',
  '/something-went-wrong',
  '/no-such-page',
];
/** Every public route of the group company, and the pages the one-officer company lays out differently. */
const PUBLIC_PAGES: Array<[host: string, route: string]> = [
  ...PUBLIC_ROUTES.map((r): [string, string] => ['group.localhost', r]),
  ['localhost', '/online-form'],
  ['localhost', '/oral-report'],
  ['localhost', '/ask-questions'],
];
const PRIVATE_ROUTES = ['/private/status', '/private/messages', '/private/report', '/private/info'];

let browser: Browser;
let portal: Portal;
const opened: OpenedPage[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  portal = await startPortal();
}, 180_000);
afterAll(async () => {
  for (const p of opened) await p.close().catch(() => {});
  await browser?.close();
  await portal?.server.cleanup();
});

/** How far the page reaches past the viewport's right edge, and the widest offender. */
async function overflow(page: Page): Promise<{ by: number; widest: string }> {
  return page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    let widest = '';
    let right = vw;
    for (const el of document.body.querySelectorAll<HTMLElement>('*')) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > right + 0.5 && getComputedStyle(el).position !== 'fixed') {
        right = r.right;
        widest = `${el.tagName.toLowerCase()}.${el.className.toString().slice(0, 60)} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
      }
    }
    return { by: Math.max(0, document.documentElement.scrollWidth - vw), widest };
  });
}

async function settle(page: Page) {
  await page.locator('h1').first().waitFor();
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
  // Images (logos) and a part still loading (its catalogue, marked aria-busy) may still
  // change a width: measured once every image laid out has arrived and nothing is busy,
  // after the frame that lays that out. (An image in a closed list, like the phone
  // input's flags, has no box and is not fetched until the list opens.)
  await page.waitForFunction(
    () => [...document.images].every((i) => i.complete || i.getClientRects().length === 0) && !document.querySelector('[aria-busy="true"]'),
  );
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

describe('no sideways scroll on a phone', () => {
  // Each page is loaded once, at 320 px, and measured again after the window is widened
  // to 375 px: the same layout rules as a load at that width (media queries, the
  // drawer's), for half the loads.
  it('320 and 375 px: every public page in every language', { timeout: 900_000 }, async () => {
    const problems: string[] = [];
    for (const lang of LANGUAGES) {
      const o = await openPage(browser, { width: 320, height: 700 });
      opened.push(o);
      await o.context.addInitScript((l) => localStorage.setItem('wb.language', l), lang);
      for (const [host, route] of PUBLIC_PAGES) {
        const measure = async (width: number) => {
          const { by, widest } = await overflow(o.page);
          if (by > 0) problems.push(`${width} px, ${lang} ${host}${route}: ${by} px too wide (${widest})`);
        };
        await o.page.setViewportSize({ width: 320, height: 700 });
        await o.page.goto(portal.url(host, route));
        await settle(o.page);
        if (['/online-form', '/oral-report', '/book-meeting'].includes(route)) {
          // Reveal the longest parts too: the identity fields and the phone input, and
          // in the online form the person to add and the password fields.
          await o.page.locator('[data-step="identity"] input[type="radio"]').first().check();
          if (route === '/online-form') {
            await o.page.locator('[data-step="reportRelated"] input[type="radio"]').first().check();
            await o.page.locator('[data-step="followReport"] input[type="radio"]').first().check();
          }
        }
        await measure(320);
        await o.page.setViewportSize({ width: 375, height: 700 });
        await o.page.waitForFunction(() => window.innerWidth === 375);
        await o.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        await measure(375);
      }
      await o.close();
    }
    expect(problems).toEqual([]);
  });

  it('the language selector shows a globe in the top bar and in the drawer, and is labelled', async () => {
    const o = await openPage(browser, { width: 375, height: 700, locale: 'en-GB' });
    opened.push(o);
    await o.page.goto(portal.url('localhost', '/'));
    await settle(o.page);
    const visibleGlobes = () =>
      o.page.locator('[data-testid="language-label"] svg').evaluateAll((els) => els.filter((e) => e.getBoundingClientRect().width > 0).length);
    const menu = o.page.getByRole('button', { name: 'Menu' });
    if (await menu.count()) {
      await menu.click();
      await o.page.getByRole('dialog').locator('[data-testid="language-label"] svg').waitFor();
    }
    await expect.poll(visibleGlobes).toBeGreaterThan(0);
    expect(await o.page.getByRole('combobox', { name: 'Language' }).count()).toBeGreaterThan(0);
  });

  it('the page title gets its focus ring after a keyboard navigation only, not after a tap', async () => {
    const o = await openPage(browser, { width: 375, height: 700, locale: 'en-GB' });
    opened.push(o);
    const { page } = o;
    await page.goto(portal.url('localhost', '/ask-questions'));
    await settle(page);
    const ring = () =>
      page.evaluate(() => {
        const h1 = document.querySelector('h1')!;
        return { focused: document.activeElement === h1, outline: getComputedStyle(h1).outlineStyle };
      });
    // A tap (mouse) on the FAQ link: the title takes the focus, without a ring.
    await page.locator('a[href="/faq"]').last().click();
    await expect.poll(ring).toEqual({ focused: true, outline: 'none' });
    // Back, and the same link by keyboard: the ring is there.
    await page.goto(portal.url('localhost', '/ask-questions'));
    await settle(page);
    await page.locator('a[href="/faq"]').last().focus();
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await ring()).focused).toBe(true);
    expect((await ring()).outline).not.toBe('none');
  });

  it('375 px: the private pages, after signing in', async () => {
    const officerId = await firstOfficerId(portal);
    const caseNumber = await createOnlineCase(portal, { officerId, password: 'mobile-pass' });
    const o = await openPage(browser, { width: 375, height: 700, locale: 'en-GB' });
    opened.push(o);
    await signInThroughProvider(portal, o.page, caseNumber, 'mobile-pass', '/private/status');
    const problems: string[] = [];
    for (const route of PRIVATE_ROUTES) {
      await o.page.goto(portal.url('localhost', route));
      await settle(o.page);
      const { by, widest } = await overflow(o.page);
      if (by > 0) problems.push(`${route}: ${by} px too wide (${widest})`);
    }
    expect(problems).toEqual([]);
  });
});
