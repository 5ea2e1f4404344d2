/**
 * Spec §1 in real Chromium (issue 42): a browser whose language the portal does not
 * speak (French, Italian) gets the company's default language, the site default for
 * it: English at group.localhost, not Danish. The first paint, the live page, the
 * stored-nothing state and the sign-in page the private area leads to agree.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const common = (lang: string) => JSON.parse(readFileSync(path.join(ROOT, 'src/i18n/common', `${lang}.json`), 'utf8')) as Record<string, string>;
const idp = (lang: string) => JSON.parse(readFileSync(path.join(ROOT, 'server/idp/i18n', `${lang}.json`), 'utf8')) as Record<string, string>;
const MOUNT = '/idp/realms/whistleblower';

let browser: Browser;
let portal: Portal;
const opened: OpenedPage[] = [];

beforeAll(async () => {
  [browser, portal] = await Promise.all([launchBrowser(), startPortal()]);
});
afterAll(async () => {
  for (const p of opened) await p.close().catch(() => undefined);
  await browser?.close();
  await portal?.server.cleanup();
});

describe('an unsupported browser language', () => {
  for (const locale of ['fr-FR', 'it-IT']) {
    it(`${locale} at a company whose default is English: English, first paint, page and sign-in`, async () => {
      const p = await openPage(browser, { locale });
      opened.push(p);
      const { page } = p;
      expect(await page.evaluate(() => navigator.language)).toBe(locale);
      const res = await page.goto(portal.url('group.localhost', '/'));
      // The server's page is English from the first byte.
      expect(await res!.text()).toMatch(/<html lang="en"/);
      const login = page.getByRole('link', { name: common('en')['frame.login']!, exact: true }).or(page.getByRole('button', { name: common('en')['frame.login']!, exact: true }));
      await expect.poll(() => login.first().isVisible(), { timeout: 15_000 }).toBe(true);
      expect(await page.locator('html').getAttribute('lang')).toBe('en');
      expect(await page.getByText(common('da')['frame.login']!, { exact: true }).count()).toBe(0);
      // Nothing was chosen, so nothing is stored: the next visit asks again.
      expect(await page.evaluate(() => localStorage.getItem('wb.language'))).toBeNull();

      // The private area's sign-in page speaks the same language.
      await page.goto(portal.url('group.localhost', '/private/status'));
      await page.waitForSelector('#caseNumber', { timeout: 20_000 });
      expect(new URL(page.url()).pathname.startsWith(`${MOUNT}/`)).toBe(true);
      expect(await page.locator('html').getAttribute('lang')).toBe('en');
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(idp('en')['signin.heading']);
    });
  }

  it('at a company whose default is Danish, French still gets Danish', async () => {
    const p = await openPage(browser, { locale: 'fr-FR' });
    opened.push(p);
    await p.page.goto(portal.url('localhost', '/'));
    await expect.poll(() => p.page.getByText(common('da')['frame.login']!, { exact: true }).first().isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await p.page.locator('html').getAttribute('lang')).toBe('da');
  });
});
