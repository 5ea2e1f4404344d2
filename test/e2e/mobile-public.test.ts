/**
 * The public side of the mobile journey (issue 17 §2) in Chromium at 375 px against
 * the real server and the built SPA: "Loading the form…" right after a tap on Slow 3G,
 * the landing's first text before the slow requests end, one step-header layout,
 * asterisks never alone on a line, a lone officer's logo that can be read, and phone
 * numbers that dial. axe runs where the markup changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { LANGUAGES, type Language } from '../../machines/languages.ts';

const read = (area: string, lang: Language) =>
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, `../../src/i18n/${area}/${lang}.json`), 'utf8')) as Record<string, string>;
const catalogue = (lang: Language) => ({ ...read('common', lang), ...read('forms', lang) });
const en = catalogue('en');

let browser: Browser;
let portal: Portal;
const opened: OpenedPage[] = [];

beforeAll(async () => {
  [browser, portal] = await Promise.all([launchBrowser(), startPortal()]);
}, 180_000);
afterAll(async () => {
  for (const p of opened) await p.close().catch(() => {});
  await browser?.close();
  await portal?.server.cleanup();
});

async function phone(width = 375, lang?: Language): Promise<OpenedPage> {
  const o = await openPage(browser, { width, height: 667, locale: 'en-GB' });
  opened.push(o);
  if (lang) await o.context.addInitScript((l) => localStorage.setItem('wb.language', l), lang);
  return o;
}

/** Chrome DevTools' "Slow 3G" preset: 2 s round trip, about 400 kbit/s each way. */
async function slow3g(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 2000,
    downloadThroughput: (500 * 1024 * 0.8) / 8,
    uploadThroughput: (500 * 1024 * 0.8) / 8,
  });
  return cdp;
}

describe('Slow 3G', () => {
  for (const [card, route] of [
    ['online', '/online-form'],
    ['oral', '/oral-report'],
    ['meeting', '/book-meeting'],
  ] as const) {
    it(`a tap on the ${card} card shows "Loading the form…" at once, then the form`, async () => {
      const { page } = await phone();
      await page.goto(portal.url('localhost', '/'));
      await page.locator(`[data-card="${card}"]`).waitFor();
      await slow3g(page);
      await page.locator(`[data-card="${card}"]`).click();
      // The form's chunk takes seconds on this network; the text must not wait for it.
      // Generous bound: one round trip of the throttled network would already exceed it.
      await page.getByText(en['page.loadingForm']!, { exact: true }).waitFor({ timeout: 1500 });
      expect(new URL(page.url()).pathname).toBe(route);
      await page.locator('[data-step]').first().waitFor({ timeout: 90_000 });
      expect(await page.getByText(en['page.loadingForm']!, { exact: true }).count()).toBe(0);
    });
  }

  // The formatter shares a chunk with other modules (vite.config.ts), so a script is
  // told to hold it by what it is, not by its file name: intl-messageformat's error codes.
  const scriptText = async (scriptPath: string) => (await fetch(portal.url('localhost', scriptPath))).text();
  const holdsFormatter = async (scriptPath: string) => (await scriptText(scriptPath)).includes('MISSING_INTL_API');
  // The ICU parser's own error kinds: the build ships messages parsed (scripts/precompileMessages.ts).
  const holdsParser = async (scriptPath: string) => (await scriptText(scriptPath)).includes('EXPECT_ARGUMENT_CLOSING_BRACE');
  const scriptsOf = (page: Page) => {
    const paths: string[] = [];
    page.on('requestfinished', (r) => {
      const { pathname } = new URL(r.url());
      if (pathname.endsWith('.js')) paths.push(pathname);
    });
    return paths;
  };
  const formatterIn = async (paths: string[]) => {
    const found: string[] = [];
    for (const p of new Set(paths)) if (await holdsFormatter(p)) found.push(p);
    return found;
  };

  it("the landing's first text does not wait for the ICU formatter, which it does not need", async () => {
    const { page } = await phone();
    await slow3g(page);
    const scripts = scriptsOf(page);
    await page.goto(portal.url('localhost', '/'), { waitUntil: 'commit', timeout: 90_000 });
    await page.locator('h1').first().waitFor({ timeout: 90_000 });
    expect(await formatterIn(scripts)).toEqual([]);
    // The landing's catalogue is plain text: the formatter (plurals, e.g. file sizes) is not fetched at all.
    await page.waitForLoadState('networkidle', { timeout: 90_000 });
    expect(scripts.length).toBeGreaterThan(0);
    expect(await formatterIn(scripts)).toEqual([]);
  });

  it('the form fetches the formatter with its first load (its catalogue has plurals)', async () => {
    const { page } = await phone();
    const scripts = scriptsOf(page);
    await page.goto(portal.url('localhost', '/online-form'));
    await page.locator('[data-step]').first().waitFor();
    expect((await formatterIn(scripts)).length).toBe(1);
  });

  it("the form's scripts hold the formatter but not the ICU parser: its plurals arrive parsed", async () => {
    const { page } = await phone(375, 'pl');
    const scripts = scriptsOf(page);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(portal.url('localhost', '/online-form'));
    await page.locator('[data-step]').first().waitFor();
    await page.waitForLoadState('networkidle');
    expect((await formatterIn(scripts)).length).toBe(1);
    const withParser: string[] = [];
    for (const p of new Set(scripts)) if (await holdsParser(p)) withParser.push(p);
    expect(withParser).toEqual([]);
    expect(errors).toEqual([]);
  });
});

describe('375 px: the forms', () => {
  it('every step header has one layout (counter above the title) in every channel and language', async () => {
    const problems: string[] = [];
    for (const lang of LANGUAGES) {
      const { page } = await phone(375, lang);
      for (const route of ['/online-form', '/oral-report', '/book-meeting']) {
        await page.goto(portal.url('group.localhost', route));
        await page.locator('[data-step] h2').first().waitFor();
        const layouts = await page.locator('[data-step] h2').evaluateAll((hs) =>
          hs.map((h) => {
            const [title, counter] = [...h.children].map((c) => c.getBoundingClientRect());
            return counter!.bottom <= title!.top + 1 ? 'counter above' : counter!.top >= title!.bottom - 1 ? 'counter below' : 'side by side';
          }),
        );
        const odd = layouts.filter((l) => l !== 'counter above');
        if (odd.length) problems.push(`${lang} ${route}: ${layouts.join(', ')}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('320 px: no required asterisk starts a line, in any language, with every field revealed', async () => {
    const problems: string[] = [];
    for (const lang of LANGUAGES) {
      const { page } = await phone(320, lang);
      for (const route of ['/online-form', '/oral-report']) {
        await page.goto(portal.url('group.localhost', route));
        await page.locator('[data-step] h2').first().waitFor();
        await page.locator('[data-step="identity"] input[type="radio"]').first().check();
        if (route === '/online-form') {
          await page.locator('[data-step="reportRelated"] input[type="radio"]').first().check();
          await page.locator('[data-step="followReport"] input[type="radio"]').first().check();
        }
        const alone = await page.evaluate(() => {
          const out: string[] = [];
          for (const star of document.querySelectorAll<HTMLElement>('[aria-hidden="true"]')) {
            if (star.textContent !== '*') continue;
            // The character just before the asterisk, wherever it is in the label.
            const walker = document.createTreeWalker(star.closest('label, legend')!, NodeFilter.SHOW_TEXT);
            let before: Text | null = null;
            for (let n = walker.nextNode(); n && !star.contains(n); n = walker.nextNode()) if (n.textContent!.trim()) before = n as Text;
            if (!before) continue;
            const range = document.createRange();
            const end = before.textContent!.trimEnd().length;
            range.setStart(before, end - 1);
            range.setEnd(before, end);
            const last = range.getClientRects()[0]!;
            if (Math.abs(star.getBoundingClientRect().top - last.top) > 2) out.push(before.textContent!.trim());
          }
          return out;
        });
        if (alone.length) problems.push(`${lang} ${route}: ${alone.join(' | ')}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("a lone officer is shown as who receives the report, with a logo wide enough to read", async () => {
    const { page } = await phone();
    for (const route of ['/online-form', '/oral-report', '/book-meeting']) {
      await page.goto(portal.url('localhost', route));
      const receiver = page.getByTestId('officer-receiver');
      await receiver.waitFor();
      expect(await page.locator('[data-step="protectionOfficer"] input[type="radio"]').count()).toBe(0);
      const logo = receiver.locator('img');
      await expect.poll(() => logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
      const box = (await logo.boundingBox())!;
      // Holm & Lund's logo is a mark and a name (240 × 64): squeezed into 48 × 48 its name was 4 px high.
      expect(box.width).toBeGreaterThanOrEqual(150);
      expect(box.height).toBeGreaterThanOrEqual(56);
      expect(await logo.evaluate((img) => getComputedStyle(img).backgroundColor)).toBe('rgb(255, 255, 255)');
      expect(await axeViolations(page), route).toEqual([]);
    }
  });
});

describe('375 px: numbers that dial', () => {
  it('no "Call us" on the landing leads to a form, in any language', async () => {
    const problems: string[] = [];
    for (const lang of LANGUAGES) {
      const { page } = await phone(375, lang);
      await page.goto(portal.url('localhost', '/'));
      await page.locator('[data-card]').first().waitFor();
      const callUs = read('common', lang)['ask.phone.title']!;
      const links = await page.locator('a').evaluateAll((as) => as.map((a) => ({ text: a.textContent ?? '', href: a.getAttribute('href') ?? '' })));
      for (const l of links) if (l.text.includes(callUs) && !l.href.startsWith('tel:')) problems.push(`${lang}: "${callUs}" → ${l.href}`);
    }
    expect(problems).toEqual([]);
  });

  it('the oral-report page and the ask page have grouped tap-to-call numbers and the hiding hint', async () => {
    const { page } = await phone();
    await page.goto(portal.url('localhost', '/oral-report'));
    const call = page.locator('[data-step="protectionOfficer"] a[href^="tel:"]');
    await call.waitFor();
    expect(await call.getAttribute('href')).toBe('tel:+4570203040');
    expect(await call.textContent()).toContain('+45 70 20 30 40');
    expect(await page.locator('[data-step="protectionOfficer"]').textContent()).toContain(en['phone.hideNumber']);
    await page.goto(portal.url('localhost', '/ask-questions'));
    const ask = page.getByTestId('contact-phone');
    await ask.waitFor();
    expect(await ask.getAttribute('href')).toBe('tel:+4570203040');
    expect(await ask.textContent()).toBe('+45 70 20 30 40');
    expect(await page.locator('main, body').first().textContent()).toContain(en['phone.hideNumber']);
  });
});
