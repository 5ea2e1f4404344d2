/**
 * The identity provider's own pages (server/idp/pages.ts) in real Chromium against
 * the real server: sign-in, its error, the new password step, sign-out and its
 * confirmation, and the provider's error page. In all seven languages (sign-in and
 * its error with the languages split between the two demo companies), each page is in
 * the reporter's language and axe finds nothing; the
 * sign-in works by keyboard alone, and nothing is loaded from another host.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { SWEEP_LANGUAGES, axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { createOnlineCase, firstOfficerId } from './reporter.ts';
import { LANGUAGES, formatCaseNumber, type Language } from '../../machines/schema.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const texts = (lang: Language) =>
  JSON.parse(readFileSync(path.join(ROOT, `server/idp/i18n/${lang}.json`), 'utf8')) as Record<string, string>;
const htmlLang = (lang: Language) => (lang === 'se' ? 'sv' : lang);
const MOUNT = '/idp/realms/whistleblower';
const HOSTS = ['localhost', 'group.localhost'] as const;

let browser: Browser;
let portal: Portal;
const opened: OpenedPage[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  portal = await startPortal();
});
afterAll(async () => {
  for (const p of opened) await p.close().catch(() => undefined);
  await browser?.close();
  await portal?.server.cleanup();
});

async function open() {
  const p = await openPage(browser, { locale: 'en-GB' });
  opened.push(p);
  return p;
}

/** The reporter's language chosen on the portal, then on to the private area: the provider's sign-in page. */
async function toSignIn(page: Page, host: string, lang: Language) {
  await page.goto(portal.url(host, '/'));
  await page.evaluate((l) => localStorage.setItem('wb.language', l), lang);
  await page.goto(portal.url(host, '/private/status'));
  await page.waitForSelector('#caseNumber');
  expect(new URL(page.url()).pathname.startsWith(`${MOUNT}/`)).toBe(true);
}

const h1 = (page: Page) => page.getByRole('heading', { level: 1 }).innerText();
const unknownCaseNumber = () => Array.from({ length: 16 }, () => randomInt(10)).join('');

describe('the sign-in pages', () => {
  it('the sweeps below take every language and both companies', () => {
    expect(new Set(HOSTS.flatMap((h) => SWEEP_LANGUAGES[h]))).toEqual(new Set(LANGUAGES));
  });
  // The languages split between the companies (SWEEP_LANGUAGES): every language, and
  // each company's look, without the cross product.
  for (const host of HOSTS) {
    it(`on ${host}: sign-in and its error, in ${SWEEP_LANGUAGES[host].join(', ')}, with axe finding nothing`, async () => {
      const { page, foreignRequests } = await open();
      for (const lang of SWEEP_LANGUAGES[host]) {
        const t = texts(lang);
        await toSignIn(page, host, lang);
        expect(await page.locator('html').getAttribute('lang')).toBe(htmlLang(lang));
        expect(await h1(page)).toBe(t['signin.heading']);
        expect(await page.getByLabel(t['signin.caseNumber.label']!).count()).toBe(1);
        expect(await axeViolations(page), `${host} ${lang} sign-in`).toEqual([]);

        await page.fill('#caseNumber', unknownCaseNumber());
        await page.fill('#password', 'not-the-password');
        await page.press('#password', 'Enter');
        const alert = page.getByRole('alert');
        await alert.waitFor();
        expect(await alert.innerText()).toContain(t['signin.error.invalid']);
        expect(await axeViolations(page), `${host} ${lang} sign-in error`).toEqual([]);
      }
      expect(foreignRequests([new URL(portal.url(host)).origin])).toEqual([]);
    });
  }

  it('the new password step, the sign-out confirmation, the signed-out page and the error page, in each language', async () => {
    const officerId = await firstOfficerId(portal);
    for (const lang of LANGUAGES) {
      const t = texts(lang);
      // A tab of its own per language: the last one's tokens stay in its sessionStorage.
      const { page, foreignRequests } = await open();
      const caseNumber = await createOnlineCase(portal, { officerId, password: 'old-pass' });
      await portal.server.ctx.db
        .updateTable('case_account')
        .set({ must_change_password: true })
        .where('case_id', '=', (await portal.server.ctx.db.selectFrom('report_case').select('id').where('case_number', '=', caseNumber).executeTakeFirstOrThrow()).id)
        .execute();

      await toSignIn(page, 'localhost', lang);
      await page.fill('#caseNumber', formatCaseNumber(caseNumber));
      await page.fill('#password', 'old-pass');
      await page.press('#password', 'Enter');
      await page.waitForSelector('#newPassword');
      expect(await h1(page)).toBe(t['password.heading']);
      expect(await axeViolations(page), `${lang} new password`).toEqual([]);
      // A mismatch is explained, in the language, and still passes axe.
      await page.fill('#newPassword', 'new-pass');
      await page.fill('#confirmPassword', 'new-pasS');
      await page.press('#confirmPassword', 'Enter');
      await page.getByRole('alert').waitFor();
      expect(await page.getByRole('alert').innerText()).toContain(t['password.error.mismatch']);
      expect(await axeViolations(page), `${lang} new password error`).toEqual([]);
      await page.fill('#newPassword', 'new-pass');
      await page.fill('#confirmPassword', 'new-pass');
      await page.press('#confirmPassword', 'Enter');
      await page.waitForURL((u) => u.pathname === '/private/status');
      await page.locator('nav a[href="/private/info"]').waitFor();

      // Sign-out asked for without the session's ID token (a link from elsewhere): the provider asks first.
      const bcp = htmlLang(lang);
      await page.goto(portal.url('localhost', `${MOUNT}/session/end?ui_locales=${bcp}`));
      await page.getByRole('button', { name: t['logout.submit'] }).waitFor();
      expect(await h1(page)).toBe(t['logout.heading']);
      expect(await axeViolations(page), `${lang} sign-out`).toEqual([]);
      await page.getByRole('button', { name: t['logout.submit'] }).click();
      await page.waitForURL((u) => u.pathname === `${MOUNT}/session/end/success`);
      expect(await h1(page)).toBe(t['logout.done.heading']);
      expect(await axeViolations(page), `${lang} signed out`).toEqual([]);

      await page.goto(portal.url('localhost', `${MOUNT}/auth?client_id=nobody&ui_locales=${bcp}`));
      await page.getByRole('alert').waitFor();
      expect(await page.locator('html').getAttribute('lang')).toBe(bcp);
      expect(await axeViolations(page), `${lang} error page`).toEqual([]);
      expect(foreignRequests([new URL(portal.url('localhost')).origin])).toEqual([]);
      await page.close();
    }
  });

  it('signs in by keyboard alone: Tab reaches the case number, the password and the button, in that order', async () => {
    const caseNumber = await createOnlineCase(portal, { officerId: await firstOfficerId(portal), password: 'key-pass' });
    const { page } = await open();
    await toSignIn(page, 'localhost', 'en');
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        return el?.id || (el?.getAttribute('type') === 'submit' ? 'submit' : el?.tagName.toLowerCase()) || 'body';
      });
    // The case number field may hold the focus from the start (autofocus).
    const stops: string[] = [await focused()];
    const fill = async (id: string) => {
      if (id === 'caseNumber') await page.keyboard.type(formatCaseNumber(caseNumber));
      if (id === 'password') await page.keyboard.type('key-pass');
    };
    await fill(stops[0]!);
    for (let i = 0; i < 12 && !stops.includes('submit'); i++) {
      await page.keyboard.press('Tab');
      const id = await focused();
      stops.push(id);
      await fill(id);
    }
    const order = stops.filter((s) => ['caseNumber', 'password', 'submit'].includes(s));
    expect(order).toEqual(['caseNumber', 'password', 'submit']);
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.pathname === '/private/status');
    await page.getByRole('navigation', { name: 'Your case' }).waitFor();
  });
});
