/**
 * The reporter's side keeps its promises (issue 42 §6), in real Chromium against the
 * real server and the built SPA:
 * - after the success dialog's "Log in to your case" the sign-in page has the number
 *   filled in, and Back and in again fills it again; it is in no URL, cookie or
 *   localStorage, and gone once the form is sent;
 * - the sign-in and new-password pages have "Leave quickly" and Alt+Q, and without a
 *   company address the exit ends on about:blank, not on a portal address;
 * - while a report with a file goes on a slow link, its progress stands beside Send,
 *   in view;
 * - offline at Send: "you seem to be offline", not "complete the form";
 * - a tap on Log in on a slow network says "Opening the login…" at once, and the
 *   private page says "Opening your case…" before its script runs;
 * - at 320 px the phone input with a number fits and "Leave quickly" leaves the logo
 *   alone, in every language; Danish words do not break mid-word at 375 px.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page, Worker } from 'playwright-core';
import { axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { createOnlineCase, firstOfficerId, signInThroughProvider } from './reporter.ts';
import { LANGUAGES, formatCaseNumber, type Language } from '../../machines/schema.ts';
import { SIGNIN_HANDOVER_KEY } from '../../machines/config.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as Record<string, string>;
const ui = (lang: Language) => ({ ...read(`src/i18n/common/${lang}.json`), ...read(`src/i18n/forms/${lang}.json`) });
const idp = (lang: Language) => read(`server/idp/i18n/${lang}.json`);
const en = ui('en');

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

async function open(width = 375, lang: Language = 'en'): Promise<OpenedPage> {
  const o = await openPage(browser, { width, height: 667, locale: 'en-GB' });
  opened.push(o);
  await o.context.addInitScript((l) => localStorage.setItem('wb.language', l), lang);
  return o;
}

/**
 * Whether the form's proof-of-work is solved, watched from before the page loads: the
 * proof's worker script was fetched, and every worker the page started has ended (the
 * proof's worker is closed on its answer).
 */
function watchProof(page: Page): () => boolean {
  let fetched = false;
  let started = 0;
  const running = new Set<Worker>();
  page.on('response', (r) => {
    if (/\/assets\/pow\.worker-[\w-]+\.js$/.test(new URL(r.url()).pathname)) fetched = true;
  });
  page.on('worker', (w) => {
    started++;
    running.add(w);
    w.once('close', () => running.delete(w));
  });
  return () => fetched && started > 0 && running.size === 0;
}

/** The oral report (one officer, chosen for the reporter), filled in and ready to send, in any language. */
async function fillOral(page: Page, password: string) {
  await page.goto(portal.url('localhost', '/oral-report'));
  await page.locator('[data-step="relation"] textarea, [data-step="relation"] input').first().fill('Driver');
  await page.locator('[data-step="identity"] input[type="radio"]').nth(1).check();
  await page.locator('[data-step="followReport"] input[type="password"]').nth(0).fill(password);
  await page.locator('[data-step="followReport"] input[type="password"]').nth(1).fill(password);
  await page.locator('[data-step="followReport"] input[type="checkbox"]').check();
}

describe('after the report', () => {
  it('"Log in to your case" opens the sign-in with the number filled in; Back and in again fills it again; no URL, cookie or localStorage holds it', async () => {
    const { page, context } = await open();
    await fillOral(page, 'handover-1');
    await page.getByRole('button', { name: en['forms.send.oral'] }).click();
    const dialog = page.getByRole('dialog', { name: en['forms.success.oral.title'] });
    const shown = (await dialog.getByTestId('case-number').innerText()).trim();
    expect(shown).toMatch(/^\d{4} \d{4} \d{4} \d{4}$/);
    const digits = shown.replace(/\D/g, '');

    const urls: string[] = [];
    page.on('request', (r) => urls.push(r.url()));
    await dialog.getByRole('button', { name: en['forms.success.login'] }).click();
    await page.waitForSelector('#caseNumber');
    await expect.poll(() => page.inputValue('#caseNumber')).toBe(shown);
    // The focus waits in the password field, and a line says where the number came from.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('password');
    expect(await page.locator('#caseNumber-filled').innerText()).toBe(idp('en')['signin.caseNumber.filled']);

    // Back, and in again: the number is there again (it stays until the form is sent).
    await page.goBack();
    await page.waitForURL((u) => u.pathname.startsWith('/idp/'));
    await page.waitForSelector('#caseNumber');
    await expect.poll(() => page.inputValue('#caseNumber')).toBe(shown);

    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + document.cookie);
    const cookies = JSON.stringify(await context.cookies());
    for (const place of [...urls, stored, cookies]) expect(place).not.toContain(digits);

    await page.fill('#password', 'handover-1');
    await page.press('#password', 'Enter');
    await page.waitForURL((u) => u.pathname === '/private/status');
    expect(await page.evaluate((k) => sessionStorage.getItem(k), SIGNIN_HANDOVER_KEY)).toBeNull();
  });

  it('offline at Send: the dialog says so and keeps the report, not "complete the form", in every language, and axe finds nothing', async () => {
    for (const lang of LANGUAGES) {
      const t = ui(lang);
      const { page, context } = await open(375, lang);
      const proofSolved = watchProof(page);
      await fillOral(page, 'offline-1');
      // The proof is solved while the reporter types; then the network goes.
      await expect.poll(proofSolved).toBe(true);
      await context.setOffline(true);
      await page.getByRole('button', { name: t['forms.send.oral'] }).click();
      const dialog = page.getByRole('alertdialog', { name: t['forms.failure.offline.title'] });
      await dialog.waitFor({ timeout: 20_000 });
      expect(await dialog.innerText(), lang).toContain(t['forms.failure.offline.text']);
      expect(await dialog.innerText(), lang).not.toContain(t['dialog.failure.text']);
      expect(await axeViolations(page), lang).toEqual([]);
      await context.setOffline(false);
      await dialog.getByRole('button', { name: t['dialog.failure.close'] }).click();
      expect(await page.locator('[data-step="relation"] textarea, [data-step="relation"] input').first().inputValue()).toBe('Driver');
      await context.close();
    }
  });
});

describe('quick exit on the provider\'s pages', () => {
  it('the sign-in page has "Leave quickly" and Alt+Q; without a company address the exit ends on about:blank', async () => {
    const { page } = await open();
    await page.goto(portal.url('localhost', '/'));
    await page.goto(portal.url('localhost', '/private/status'));
    await page.waitForSelector('#caseNumber');
    const button = page.getByRole('button', { name: idp('en')['page.quickExit'] });
    expect(await button.getAttribute('aria-keyshortcuts')).toBe('Alt+Q');
    const box = (await button.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(44);
    expect(box.x + box.width).toBeLessThanOrEqual(375);
    await page.fill('#caseNumber', '1234 5678 9012 3456');
    await page.keyboard.press('Alt+KeyQ');
    await page.waitForURL('about:blank');
    // Back: the landing, which was the first portal entry, replaced by the exit.
    await page.goBack().catch(() => undefined);
    expect(page.url()).not.toContain('/idp/');
  });

  it('the new-password page has it too, and the button leaves', async () => {
    const officerId = await firstOfficerId(portal);
    const caseNumber = await createOnlineCase(portal, { officerId, password: 'old-pass' });
    const id = (await portal.server.ctx.db.selectFrom('report_case').select('id').where('case_number', '=', caseNumber).executeTakeFirstOrThrow()).id;
    await portal.server.ctx.db.updateTable('case_account').set({ must_change_password: true }).where('case_id', '=', id).execute();
    const { page } = await open();
    await page.goto(portal.url('localhost', '/private/status'));
    await page.waitForSelector('#caseNumber');
    await page.fill('#caseNumber', formatCaseNumber(caseNumber));
    await page.fill('#password', 'old-pass');
    await page.press('#password', 'Enter');
    await page.waitForSelector('#newPassword');
    const button = page.getByRole('button', { name: idp('en')['page.quickExit'] });
    expect(await button.getAttribute('aria-keyshortcuts')).toBe('Alt+Q');
    await button.click();
    await page.waitForURL('about:blank');
  });
});

/** Chrome DevTools' "Slow 3G"-like link of the issue: 400 kbit/s, 400 ms, 4x CPU. */
async function slowNetwork(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 400, downloadThroughput: 400_000 / 8, uploadThroughput: 400_000 / 8 });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  return cdp;
}

describe('a slow network', () => {
  it('a report with a file: while it goes, its progress stands beside Send, in view', async () => {
    const { page } = await open();
    const proofSolved = watchProof(page);
    await page.goto(portal.url('localhost', '/online-form'));
    await page.locator('[data-step]').first().waitFor();
    // The background proof, solved as the form opens: before the file is added, whose
    // check starts a worker of its own that stays.
    await expect.poll(proofSolved).toBe(true);
    await page.locator('input[type="file"]').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('x'.repeat(250_000)) });
    await page.locator('[data-step="relation"] textarea, [data-step="relation"] input').first().fill('Employee');
    await page.locator('[data-step="describeProblem"] textarea').first().fill('Invoices are paid twice.');
    await page.locator('[data-step="describeProblem"] input[type="radio"]').first().check();
    await page.locator('[data-step="reportRelated"] input[type="radio"]').last().check();
    await page.locator('[data-step="reportRelated"] input[type="text"]').last().fill('Accounts payable');
    await page.getByRole('radio', { name: en['forms.identity.anonymous'] }).check();
    await page.getByRole('radio', { name: en['forms.follow.notFollow'] }).check();
    await page.getByRole('checkbox', { name: new RegExp(en['forms.terms.accept']!) }).check();
    await slowNetwork(page);
    await page.getByRole('button', { name: en['forms.send.online'] }).click();
    const status = page.getByTestId('sending-status');
    await status.locator('progress').waitFor({ timeout: 20_000 });
    const inView = await status.locator('progress').evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight;
    });
    expect(inView).toBe(true);
    expect(await status.getByRole('status').innerText()).toBe(en['forms.sending']);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('dialog', { name: en['forms.success.online.title'] }).waitFor({ timeout: 60_000 });
  });

  it('a tap on Log in says "Opening the login…" at once', async () => {
    const { page } = await open();
    await page.goto(portal.url('localhost', '/'));
    await page.locator('[data-card]').first().waitFor();
    await slowNetwork(page);
    await page.getByRole('banner').getByRole('link', { name: en['frame.login'] }).or(page.getByRole('link', { name: en['frame.login'] }).first()).first().click();
    // Within a second, a status says something is happening (the area's code takes seconds here).
    const status = page.locator('main [role="status"]').filter({ hasText: /\S/ }).first();
    await status.waitFor({ timeout: 1000 });
    expect(await status.innerText()).toBe(en['page.openingSignIn']);
  });

  it('a private page says "Opening your case…" before its script runs, in the page\'s language', async () => {
    for (const lang of LANGUAGES) {
      const bcp = lang === 'se' ? 'sv' : lang;
      const html = await (await fetch(portal.url('localhost', '/private/callback'), { headers: { 'accept-language': bcp } })).text();
      expect(html, lang).toContain(`<p role="status" class="wb-opening">${ui(lang)['page.openingCase']}</p>`);
    }
  });
});

/** How far the page reaches past the viewport's right edge. */
const tooWide = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe('small screens', () => {
  it('320 px: the phone input with a number fits, and "Leave quickly" leaves the logo alone, in every language', async () => {
    const problems: string[] = [];
    for (const lang of LANGUAGES) for (const host of ['localhost', 'group.localhost']) {
      const { page } = await open(320, lang);
      await page.goto(portal.url(host, '/online-form'));
      await page.locator('[data-step="identity"] input[type="radio"]').first().check();
      const phone = page.locator('[data-step="identity"] input[type="tel"]');
      await phone.waitFor();
      await phone.fill('');
      await phone.pressSequentially('20304050');
      await phone.blur();
      const by = await tooWide(page);
      if (by > 0) problems.push(`${host} ${lang}: the form is ${by} px too wide with a phone number`);
      // The country list open: still within the screen.
      await page.locator('[data-step="identity"] .react-international-phone-country-selector-button').click();
      await page.locator('.react-international-phone-country-selector-dropdown').waitFor();
      const withList = await tooWide(page);
      if (withList > 0) problems.push(`${host} ${lang}: ${withList} px too wide with the country list open`);
      await page.keyboard.press('Escape');
      // The logo as drawn (the image may be wider than its shrunken link).
      await page.getByRole('banner').locator('img').first().evaluate((img: HTMLImageElement) => img.decode().catch(() => undefined));
      const [logo, leave] = await Promise.all([
        page.getByRole('banner').locator('a img, a span').first().boundingBox(),
        page.getByRole('banner').getByRole('button', { name: ui(lang)['frame.quickExit'] }).boundingBox(),
      ]);
      if (logo && leave && logo.x + logo.width > leave.x + 0.5 && leave.x + leave.width > logo.x && logo.y + logo.height > leave.y && leave.y + leave.height > logo.y) {
        problems.push(`${host} ${lang}: "Leave quickly" covers the logo`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('320 px, signed in: "Leave quickly" and Log out leave the logo alone, in every language', async () => {
    const officerId = await firstOfficerId(portal);
    const caseNumber = await createOnlineCase(portal, { officerId, password: 'narrow-1' });
    const { page } = await open(320, 'en');
    await signInThroughProvider(portal, page, caseNumber, 'narrow-1');
    const problems: string[] = [];
    for (const lang of LANGUAGES) {
      await page.evaluate((l) => localStorage.setItem('wb.language', l), lang);
      await page.reload();
      await page.locator('nav a[href="/private/info"]').first().waitFor();
      await page.evaluate(() => document.fonts.ready.then(() => undefined));
      const boxes = await page.getByRole('banner').evaluate((bar) => {
        const logo = (bar.querySelector('a img, a span') ?? bar.querySelector('a')!).getBoundingClientRect();
        return [...bar.querySelectorAll('button')]
          .map((b) => ({ text: b.textContent ?? '', r: b.getBoundingClientRect() }))
          .filter(({ r }) => r.width > 0 && r.left < logo.right - 0.5 && r.right > logo.left && r.top < logo.bottom && r.bottom > logo.top)
          .map(({ text }) => text);
      });
      if (boxes.length) problems.push(`${lang}: ${boxes.join(', ')} over the logo`);
      const by = await tooWide(page);
      if (by > 0) problems.push(`${lang}: ${by} px too wide`);
    }
    expect(problems).toEqual([]);
  });

  it('375 px, Danish: no word of a heading, label or button breaks mid-word', async () => {
    const { page } = await open(375, 'da');
    const broken: string[] = [];
    for (const [host, route] of [
      ['localhost', '/'],
      ['localhost', '/online-form'],
      ['group.localhost', '/'],
      ['group.localhost', '/online-form'],
      ['group.localhost', '/how-to-report'],
      ['group.localhost', '/about-whistleblowing/personal-data'],
      ['group.localhost', '/about-whistleblowing/case-process'],
      ['group.localhost', '/ask-questions'],
    ] as const) {
      await page.goto(portal.url(host, route));
      await page.locator('h1').first().waitFor();
      if (route === '/online-form') {
        await page.locator('[data-step="identity"] input[type="radio"]').first().check();
        await page.locator('[data-step="followReport"] input[type="radio"]').first().check();
      }
      broken.push(
        ...(await page.evaluate(() => {
          const out: string[] = [];
          for (const el of document.querySelectorAll<HTMLElement>('h1, h2, h3, label, button, legend')) {
            if (!el.getClientRects().length) continue;
            const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
            for (let n = walker.nextNode(); n; n = walker.nextNode()) {
              const text = n.textContent ?? '';
              for (const m of text.matchAll(/\S{6,}/g)) {
                const range = document.createRange();
                range.setStart(n, m.index);
                range.setEnd(n, m.index + m[0].length);
                const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
                // Across lines: a break inside the word. (\`hyphens: auto\` does nothing without
                // the browser's Danish dictionary, as in this Chromium: the word must fit.)
                if (lines.size > 1) out.push(`${location.host}${location.pathname}: ${m[0]}`);
              }
            }
          }
          return out;
        })),
      );
    }
    expect(broken).toEqual([]);
  });
});
