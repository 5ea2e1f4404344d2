/**
 * The private area on a phone (issue 17 §2), in real Chromium at 375 × 667 with
 * touch, against the real server and the built SPA: Log out labelled in the top bar
 * and in the menu; the case menu in words; the conversation opening at the newest
 * message without a scroll box of its own, and a sent message seen with the focus
 * kept in the composer; the page after a password-change request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations, launchBrowser, startPortal, type Portal } from './harness.ts';
import { createOnlineCase, firstOfficerId, signInThroughProvider } from './reporter.ts';
import { formatCaseNumber } from '../../machines/schema.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const en = JSON.parse(readFileSync(path.join(ROOT, 'src/i18n/private/en.json'), 'utf8')) as Record<string, string>;
const t = (key: string) => en[key]!;

let browser: Browser;
let portal: Portal;
let officerId: string;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  portal = await startPortal();
  officerId = await firstOfficerId(portal);
}, 180_000);
afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await portal?.server.cleanup();
});

/** A phone: 375 × 667, touch, English. */
async function phone(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 375, height: 667 }, hasTouch: true, isMobile: true, locale: 'en-GB', serviceWorkers: 'block' });
  contexts.push(context);
  return context.newPage();
}

async function signedIn(password: string, to = '/private/status') {
  const caseNumber = await createOnlineCase(portal, { officerId, password });
  const page = await phone();
  await signInThroughProvider(portal, page, caseNumber, password, to);
  await page.getByRole('navigation', { name: t('private.nav.label') }).waitFor();
  return { page, caseNumber };
}

/** Whether an element is drawn on screen at a readable size (not a screen-reader-only clip). */
const shown = (page: Page, selector: string) =>
  page.locator(selector).evaluateAll((els) =>
    els.map((el) => {
      const r = el.getBoundingClientRect();
      return r.width > 8 && r.height > 8 && r.right <= document.documentElement.clientWidth + 0.5;
    }),
  );

async function handlerMessage(caseNumber: string, token: string, message: string) {
  const fd = new FormData();
  fd.append('messageDto', new Blob([JSON.stringify({ message, type: 'STANDARD' })], { type: 'application/json' }));
  const res = await fetch(`${portal.server.url}/api/handler/cases/${caseNumber}/messages`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: fd });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
}

describe('the private area on a phone', () => {
  it("Log out is a labelled button in the top bar and in the menu, the case menu shows its words, and the logo keeps its room", async () => {
    const { page } = await signedIn('phone-pass');
    const bar = page.getByRole('banner');
    const barLogout = bar.getByRole('button', { name: t('private.nav.logout') });
    expect(await barLogout.isVisible()).toBe(true);
    expect((await barLogout.innerText()).trim()).toBe(t('private.nav.logout'));
    const box = (await barLogout.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(44);
    expect(box.x + box.width).toBeLessThanOrEqual(375);

    // The case menu: every entry drawn with its word, none only as an icon.
    const nav = page.getByRole('navigation', { name: t('private.nav.label') });
    for (const key of ['private.nav.status', 'private.nav.messages', 'private.nav.report', 'private.nav.info']) {
      expect(await nav.getByRole('link', { name: t(key) }).isVisible()).toBe(true);
    }
    const labels = await shown(page, `nav[aria-label="${t('private.nav.label')}"] a span`);
    expect(labels).toEqual([true, true, true, true]);
    // The logo keeps a readable width beside "Leave quickly", Log out and the menu.
    expect((await bar.locator('img').first().boundingBox())!.width).toBeGreaterThanOrEqual(60);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

    // The frame's menu has Log out too, and it logs out.
    await page.getByRole('button', { name: 'Menu' }).click();
    const menu = page.getByRole('dialog');
    const menuLogout = menu.getByRole('button', { name: t('private.nav.logout') });
    await menuLogout.waitFor();
    expect(await menuLogout.isVisible()).toBe(true);
    await menuLogout.click();
    await page.waitForURL((u) => u.pathname === '/');
  });

  it('no private page scrolls sideways on a 320 px phone either', async () => {
    const caseNumber = await createOnlineCase(portal, { officerId, password: 'narrow-pass' });
    const context = await browser.newContext({ viewport: { width: 320, height: 640 }, hasTouch: true, isMobile: true, locale: 'en-GB', serviceWorkers: 'block' });
    contexts.push(context);
    const page = await context.newPage();
    await signInThroughProvider(portal, page, caseNumber, 'narrow-pass', '/private/status');
    const wide: string[] = [];
    for (const route of ['/private/status', '/private/messages', '/private/report', '/private/info']) {
      await page.goto(portal.url('localhost', route));
      await page.locator('h1').first().waitFor();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      if (width > 320) wide.push(`${route}: ${width} px`);
    }
    expect(wide).toEqual([]);
    expect(await page.getByRole('banner').getByRole('button', { name: t('private.nav.logout') }).isVisible()).toBe(true);
  });

  it('a touch tablet (800 px) keeps the words in the case menu; a mouse at that width gets icons with their names on hover', async () => {
    const caseNumber = await createOnlineCase(portal, { officerId, password: 'tablet-pass' });
    const widths: Record<string, number> = {};
    for (const touch of [true, false]) {
      const context = await browser.newContext({ viewport: { width: 800, height: 1000 }, hasTouch: touch, isMobile: touch, locale: 'en-GB', serviceWorkers: 'block' });
      contexts.push(context);
      const page = await context.newPage();
      await signInThroughProvider(portal, page, caseNumber, 'tablet-pass', '/private/status');
      const nav = page.getByRole('navigation', { name: t('private.nav.label') });
      await nav.waitFor();
      const labels = await shown(page, `nav[aria-label="${t('private.nav.label')}"] a span`);
      widths[touch ? 'touch' : 'mouse'] = (await nav.boundingBox())!.width;
      expect(labels, touch ? 'touch' : 'mouse').toEqual(touch ? [true, true, true, true] : [false, false, false, false]);
    }
    expect(widths.touch).toBeGreaterThan(150);
    expect(widths.mouse).toBeLessThan(100);
  });

  it('messages open at the newest one, on the page itself; a sent message is seen and the focus stays in the composer', async () => {
    const { page, caseNumber } = await signedIn('chat-pass');
    const company = await portal.server.ctx.db.selectFrom('company_host').select('company_id').where('host', '=', 'localhost').executeTakeFirstOrThrow();
    const { token } = await createHandlerAccount(portal.server.ctx.db, company.company_id, 'Chat handler');
    for (let i = 1; i <= 12; i++) await handlerMessage(caseNumber, token, `Question number ${i} from the case handler, with a few words more to fill a phone screen.`);

    await page.getByRole('navigation', { name: t('private.nav.label') }).getByRole('link', { name: t('private.nav.messages') }).click();
    await page.getByText(/^Question number 12 /).waitFor();
    const thread = page.getByRole('list', { name: t('private.messages.thread') });
    // No scroll box inside the page's scroll.
    expect(await thread.evaluate((el) => ({ overflowY: getComputedStyle(el).overflowY, scrolls: el.scrollHeight > el.clientHeight + 1 }))).toEqual({
      overflowY: 'visible',
      scrolls: false,
    });
    // Opened at the newest message: it is on screen, the first one is not.
    const inView = (text: RegExp) =>
      page.getByText(text).evaluate((el) => {
        const r = el.getBoundingClientRect();
        return r.bottom > 0 && r.top < window.innerHeight;
      });
    await expect.poll(() => inView(/^Question number 12 /)).toBe(true);
    expect(await inView(/^Question number 1 /)).toBe(false);

    // Send with the button (a tap): the message is seen, the focus is back in the field.
    const box = page.getByLabel(t('private.messages.label'));
    await box.fill('It is the supplier Acme.');
    await page.getByRole('button', { name: t('private.messages.send') }).tap();
    const mine = page.locator('[data-own="true"]', { hasText: 'It is the supplier Acme.' });
    await mine.waitFor();
    await expect.poll(() => mine.evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight;
    })).toBe(true);
    await expect.poll(() => box.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await box.inputValue()).toBe('');
  });

  it('after a password-change request the page says what happens next', async () => {
    const { page } = await signedIn('change-pass', '/private/info');
    await page.getByRole('button', { name: t('private.info.password.change') }).tap();
    await page.getByRole('alertdialog').getByRole('button', { name: t('private.info.password.confirm') }).tap();
    await page.getByRole('heading', { level: 1, name: t('private.password.requested.title') }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/private/info');
    for (const key of ['private.password.requested.text', 'private.password.requested.step1', 'private.password.requested.step2']) {
      expect(await page.getByText(t(key)).isVisible(), key).toBe(true);
    }
    // Log in again: the provider's page, where the new password is chosen after the current one.
    await page.getByRole('link', { name: t('private.password.requested.login') }).tap();
    await page.waitForSelector('#caseNumber');
  });

  it('the sign-in page on a phone: 48 px inputs, the language switch, the case number kept after a wrong password', async () => {
    const caseNumber = await createOnlineCase(portal, { officerId, password: 'kept-pass' });
    const page = await phone();
    await page.goto(portal.url('localhost', '/private/status'));
    await page.waitForSelector('#caseNumber');
    for (const id of ['caseNumber', 'password']) expect((await page.locator(`#${id}`).boundingBox())!.height, id).toBeGreaterThanOrEqual(48);
    expect((await page.locator('main button[type="submit"]').boundingBox())!.height).toBeGreaterThanOrEqual(48);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

    // The switch: the same page in German.
    await page.getByRole('navigation', { name: 'Language' }).getByRole('link', { name: 'Deutsch' }).tap();
    await page.waitForFunction(() => document.documentElement.lang === 'de');
    expect(await page.getByRole('navigation', { name: 'Sprache' }).getByRole('link', { name: 'Deutsch' }).getAttribute('aria-current')).toBe('page');
    expect(await axeViolations(page)).toEqual([]);

    // A wrong password: the number stays, the focus is in the password field.
    await page.fill('#caseNumber', formatCaseNumber(caseNumber));
    await page.fill('#password', 'wrong-pass');
    await page.press('#password', 'Enter');
    await page.getByRole('alert').waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    expect(await page.inputValue('#caseNumber')).toBe(formatCaseNumber(caseNumber));
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('password');
    expect(await axeViolations(page)).toEqual([]);
    await page.fill('#password', 'kept-pass');
    await page.press('#password', 'Enter');
    await page.waitForURL((u) => u.pathname === '/private/status');
  });
});
