/**
 * Public pages in real Chromium against the real server with the built SPA
 * (DIST_DIR). Journeys: each demo company's landing page, navigation and the drawer,
 * languages and the stored choice, the FAQ accordion, not-found and error pages, the
 * spec §8 failure paths (the server made to fail on purpose), the report-route
 * guards, no request to another host, and axe on every public route in all seven
 * languages, split between the two demo companies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { SWEEP_LANGUAGES, axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { importCompany, readCompanyBundle, validateBundle } from '../../server/companies/service.ts';
import type { LookAndFeel } from '../../machines/lookAndFeel.ts';
import { LANGUAGES, type Language } from '../../machines/schema.ts';

const SEED = path.resolve(import.meta.dirname, '../../server/seed');
const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string };
const catalogue = (lang: Language) =>
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, `../../src/i18n/common/${lang}.json`), 'utf8')) as Record<string, string>;
const da = catalogue('da');
const en = catalogue('en');

const DEMO_HOSTS = ['localhost', 'group.localhost'] as const;

let browser: Browser;
let portal: Portal;
const opened: OpenedPage[] = [];

/** A company made from the localhost seed, changed by `edit`, under another host. */
async function importVariant(id: string, host: string, edit: (c: any) => void) {
  const file = path.join(SEED, 'localhost.json');
  const base = readCompanyBundle(file);
  const json = JSON.parse(readFileSync(file, 'utf8'));
  json.id = id;
  json.hosts = [host];
  edit(json);
  await importCompany(portal.server.ctx.db, validateBundle(json, base.assets));
}

/** Breaks a stored company's settings on purpose (a damaged row), so the server answers 500. */
async function breakSettings(id: string, edit: (settings: any) => void) {
  const row = await portal.server.ctx.db.selectFrom('company').select('settings').where('id', '=', id).executeTakeFirstOrThrow();
  const settings = structuredClone(row.settings) as any;
  edit(settings);
  await portal.server.ctx.db.updateTable('company').set({ settings: JSON.stringify(settings) } as never).where('id', '=', id).execute();
}

async function lookAndFeel(host: string, lang: Language): Promise<LookAndFeel> {
  const res = await fetch(`${portal.server.url}/api/public/site-look-and-feel/language/${lang}`, { headers: { 'x-company-host': host } });
  expect(res.status).toBe(200);
  return (await res.json()) as LookAndFeel;
}

async function open(opts: Parameters<typeof openPage>[1] = {}) {
  const p = await openPage(browser, opts);
  opened.push(p);
  return p;
}

// By role: the server's picture of the page (aria-hidden, inert) also has a heading in
// a <main>, and a test that found that one would press keys before the live page is there.
const h1 = (page: Page) => page.getByRole('main').getByRole('heading', { level: 1 }).first();
const origins = () => DEMO_HOSTS.map((h) => new URL(portal.url(h)).origin).concat(['quiet', 'broken', 'noinfo', 'nobody'].map((h) => new URL(portal.url(`${h}.localhost`)).origin));

beforeAll(async () => {
  browser = await launchBrowser();
  portal = await startPortal();
  // Options off, two languages only, one about page hidden, no contact settings.
  await importVariant('quiet-test', 'quiet.localhost', (c) => {
    c.languages = ['da', 'en'];
    c.defaultLanguage = 'en';
    c.contactPhone = '';
    c.contactPerson = '';
    c.contactDetails = '';
    for (const lang of Object.keys(c.lookAndFeel)) {
      if (!c.languages.includes(lang)) {
        delete c.lookAndFeel[lang];
        delete c.phoneCodes[lang];
        continue;
      }
      const laf = c.lookAndFeel[lang];
      laf.siteFrontPage.showVerbalOption = false;
      laf.siteFrontPage.showBookingOption = false;
      laf.contactPerson = '';
      laf.contactDetails = '';
      for (const a of laf.siteAboutPages) if (a.aboutPageType === 'ANONYMITY') a.visible = false;
    }
  });
  await importVariant('broken-test', 'broken.localhost', () => {});
  await breakSettings('broken-test', (s) => (s.languages = 42));
  await importVariant('noinfo-test', 'noinfo.localhost', () => {});
  await breakSettings('noinfo-test', (s) => (s.protectionOfficers = 42));
}, 180_000);

afterAll(async () => {
  for (const p of opened) await p.close().catch(() => {});
  await browser?.close();
  await portal?.server.cleanup();
});

describe('landing page of each demo company', () => {
  for (const host of DEMO_HOSTS) {
    it(`${host}: heading, cards, colours, background, logo and version from its own settings`, async () => {
      const laf = await lookAndFeel(host, 'da');
      const p = await open({ locale: 'da-DK' });
      await p.page.goto(portal.url(host));
      await expect.poll(() => h1(p.page).textContent()).toBe(laf.siteFrontPage.heading);
      await expect.poll(() => p.page.locator('main').textContent()).toContain(laf.siteFrontPage.subHeading);

      const cards = await p.page.locator('[data-card]').evaluateAll((els) => els.map((e) => e.getAttribute('data-card')));
      const expected = ['online', ...(laf.siteFrontPage.showVerbalOption ? ['oral'] : []), ...(laf.siteFrontPage.showBookingOption ? ['meeting'] : []), 'ask', 'case'];
      expect(cards).toEqual(expected);
      expect(await p.page.getByRole('link', { name: new RegExp(da['landing.cards.online.title']!) }).getAttribute('href')).toBe('/online-form');

      const cssVar = (name: string) => p.page.evaluate((n) => getComputedStyle(document.documentElement).getPropertyValue(n).trim(), name);
      expect(await cssVar('--wb-color-primary')).toBe(laf.siteColors.primaryColorCode);
      expect(await cssVar('--wb-color-secondary')).toBe(laf.siteColors.secondaryColorCode);
      expect(await cssVar('--wb-color-info')).toBe(laf.siteColors.infoColorCode);

      const hero = p.page.locator('[data-background]');
      expect(await hero.getAttribute('data-background')).toBe(laf.siteFrontPage.backgroundImageColor);
      const bg = await hero.evaluate((el) => getComputedStyle(el).backgroundImage);
      expect(bg).toContain(`/assets/${laf.siteFrontPage.backgroundImageColor}-`);
      expect(bg).toContain('linear-gradient');

      const logo = p.page.locator('header img');
      expect(await logo.getAttribute('src')).toContain(`/api/public/site-look-and-feel/logo/${laf.logoFileName}`);
      await expect.poll(() => logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
      // The logo link is named and goes home.
      expect(await p.page.getByRole('link', { name: da['frame.logoHome'] }).getAttribute('href')).toBe('/');

      expect(await p.page.locator('[data-testid="app-version"]').textContent()).toBe(pkg.version);
      expect(await p.page.locator('[data-testid="app-version"]').isVisible()).toBe(false);
      expect(await p.page.evaluate(() => document.documentElement.lang)).toBe('da');
      expect(p.foreignRequests(origins())).toEqual([]);
      // No waterfall: the page arrived with its look and feel and company info
      // inline (server/spa.ts), so neither is fetched after the script starts.
      expect(p.requests.some((r) => r.url.includes('/api/public/site-look-and-feel/language/'))).toBe(false);
      expect(p.requests.some((r) => r.url.endsWith('/api/public/case/company-info'))).toBe(false);
      expect(p.requests.some((r) => r.url.endsWith('/config/config.json'))).toBe(false);
    });
  }

  it('a company with both options off shows neither the oral nor the meeting card', async () => {
    const p = await open({ locale: 'da-DK' });
    await p.page.goto(portal.url('quiet.localhost'));
    await p.page.locator('[data-card="online"]').waitFor();
    const cards = await p.page.locator('[data-card]').evaluateAll((els) => els.map((e) => e.getAttribute('data-card')));
    expect(cards).toEqual(['online', 'ask', 'case']);
  });
});

describe('navigation', () => {
  it('top bar: links from the look and feel, about sub-pages, login', async () => {
    const laf = await lookAndFeel('localhost', 'da');
    const p = await open({ locale: 'da-DK', width: 1280 });
    await p.page.goto(portal.url('localhost'));
    const nav = p.page.getByRole('navigation', { name: da['frame.mainNavigation'] });
    await nav.waitFor();
    const topTexts = laf.navigationPages.map((n) => n.text);
    for (const text of topTexts) await expect.poll(() => nav.getByRole('link', { name: text, exact: true }).count()).toBe(1);

    // The first load leaves the focus to the browser.
    expect(await p.page.evaluate(() => document.activeElement === document.body)).toBe(true);
    await nav.getByRole('link', { name: laf.navigationPages[1]!.text, exact: true }).click();
    await expect.poll(() => new URL(p.page.url()).pathname).toBe(laf.navigationPages[1]!.link);
    await expect.poll(() => h1(p.page).textContent()).toBe(laf.siteHowToReportPage.heading);
    // A route change moves the focus to the new page's heading and announces its title.
    await expect.poll(() => h1(p.page).evaluate((el) => el === document.activeElement)).toBe(true);
    const live = p.page.locator('[aria-live="polite"][aria-atomic="true"]');
    await expect.poll(() => live.textContent()).toBe(await p.page.title());
    expect(await p.page.title()).toBe(laf.siteHowToReportPage.heading);

    // About's children show on hover/focus; their pages keep line breaks.
    const about = laf.navigationPages.find((n) => (n.children?.length ?? 0) > 0)!;
    await nav.getByRole('link', { name: about.text, exact: true }).hover();
    const child = about.children!.find((c) => c.pageType === 'CASE_MANAGEMENT')!;
    await nav.getByRole('link', { name: child.text, exact: true }).click();
    await expect.poll(() => new URL(p.page.url()).pathname).toBe('/about-whistleblowing/case-process');
    const page = laf.siteAboutPages.find((a) => a.aboutPageType === 'CASE_MANAGEMENT')!;
    await expect.poll(() => h1(p.page).textContent()).toBe(page.heading);
    const para = p.page.locator('main section p').first();
    expect(await para.evaluate((el) => getComputedStyle(el).whiteSpace)).toBe('pre-line');
    expect(await para.evaluate((el) => el.textContent)).toBe(page.textSections[0]!.paragraph);

    // The logo goes home; the login button goes to /private/status.
    await p.page.getByRole('link', { name: da['frame.logoHome'] }).click();
    await expect.poll(() => new URL(p.page.url()).pathname).toBe('/');
    expect(await p.page.getByRole('banner').getByRole('link', { name: da['frame.login'] }).getAttribute('href')).toBe('/private/status');
  });

  it('an about page not marked visible is left out of the navigation', async () => {
    const p = await open({ locale: 'da-DK', width: 1280 });
    await p.page.goto(portal.url('quiet.localhost'));
    const nav = p.page.getByRole('navigation', { name: da['frame.mainNavigation'] });
    await nav.waitFor();
    const laf = await lookAndFeel('quiet.localhost', 'da');
    const about = laf.navigationPages.find((n) => (n.children?.length ?? 0) > 0)!;
    const hidden = about.children!.find((c) => c.pageType === 'ANONYMITY')!;
    const shown = about.children!.find((c) => c.pageType === 'PERSONAL_DATA')!;
    await nav.getByRole('link', { name: about.text, exact: true }).hover();
    expect(await nav.getByRole('link', { name: shown.text, exact: true }).count()).toBe(1);
    expect(await nav.getByRole('link', { name: hidden.text, exact: true }).count()).toBe(0);
    // Nor is it served at its URL: the not-found page.
    await p.page.goto(portal.url('quiet.localhost', hidden.link));
    await expect.poll(() => h1(p.page).textContent()).toBe(da['notFound.title']);
    expect(await p.page.getByRole('link', { name: da['notFound.home'] }).count()).toBeGreaterThan(0);
  });

  it('under 1111 px a side drawer with expandable children replaces the bar', async () => {
    const laf = await lookAndFeel('group.localhost', 'da');
    const p = await open({ locale: 'da-DK', width: 375, height: 800 });
    await p.page.goto(portal.url('group.localhost'));
    await h1(p.page).waitFor();
    // The bar's navigation is hidden; a menu button is shown.
    expect(await p.page.getByRole('navigation', { name: da['frame.mainNavigation'] }).count()).toBe(0);
    const menu = p.page.getByRole('button', { name: da['frame.menu'] });
    expect(await menu.isVisible()).toBe(true);
    expect(await p.page.locator('header').evaluate((el) => el.getBoundingClientRect().height)).toBe(83);

    await menu.click();
    const dialog = p.page.getByRole('dialog', { name: da['frame.menu'] });
    await dialog.waitFor();
    const about = laf.navigationPages.find((n) => (n.children?.length ?? 0) > 0)!;
    const child = about.children![1]!;
    expect(await dialog.getByRole('link', { name: child.text, exact: true }).count()).toBe(0);
    const toggle = dialog.getByRole('button', { name: new RegExp(about.text) });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await dialog.getByRole('link', { name: child.text, exact: true }).click();
    await expect.poll(() => new URL(p.page.url()).pathname).toBe(child.link);
    await expect.poll(() => dialog.count()).toBe(0);
    // The focus goes to the new page's heading; Escape closes an open drawer.
    await expect.poll(() => h1(p.page).evaluate((el) => el === document.activeElement)).toBe(true);
    await menu.click();
    await dialog.waitFor();
    expect(await dialog.getByRole('combobox', { name: da['frame.language'] }).count()).toBe(1);
    await p.page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect(p.foreignRequests(origins())).toEqual([]);
  });

  it('keyboard only: tab into the about sub-menu and open a page, then a landing card', async () => {
    const laf = await lookAndFeel('localhost', 'en');
    const p = await open({ locale: 'en-GB', width: 1280 });
    await p.page.goto(portal.url('localhost'));
    await h1(p.page).waitFor();
    const about = laf.navigationPages.find((n) => (n.children?.length ?? 0) > 0)!;
    const target = about.children!.find((c) => c.pageType === 'ANONYMITY')!;
    const focusedText = () => p.page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    let found = false;
    for (let i = 0; i < 20 && !found; i++) {
      await p.page.keyboard.press('Tab');
      found = (await focusedText()) === target.text;
    }
    expect(found).toBe(true);
    // The focused sub-menu link is visible (the sub-menu opens on focus-within).
    expect(await p.page.getByRole('link', { name: target.text, exact: true }).isVisible()).toBe(true);
    await p.page.keyboard.press('Enter');
    await expect.poll(() => new URL(p.page.url()).pathname).toBe('/about-whistleblowing/anonymity');

    await p.page.goto(portal.url('localhost'));
    await h1(p.page).waitFor();
    found = false;
    for (let i = 0; i < 30 && !found; i++) {
      await p.page.keyboard.press('Tab');
      found = await p.page.evaluate(() => document.activeElement?.getAttribute('data-card') === 'ask');
    }
    expect(found).toBe(true);
    await p.page.keyboard.press('Enter');
    await expect.poll(() => new URL(p.page.url()).pathname).toBe('/ask-questions');
  });

  it('the skip link moves focus to the main content', async () => {
    const p = await open({ locale: 'en-GB' });
    await p.page.goto(portal.url('localhost'));
    await h1(p.page).waitFor();
    await p.page.keyboard.press('Tab');
    const skip = p.page.getByRole('link', { name: en['frame.skipToContent'] });
    expect(await skip.evaluate((el) => el === document.activeElement)).toBe(true);
    await p.page.keyboard.press('Enter');
    await expect.poll(() => p.page.evaluate(() => document.activeElement?.id)).toBe('main');
  });
});

describe('languages', () => {
  it('first visit follows the browser language (sv → se), else the site default', async () => {
    const sv = await open({ locale: 'sv-SE' });
    await sv.page.goto(portal.url('localhost'));
    const svLaf = await lookAndFeel('localhost', 'se');
    await expect.poll(() => h1(sv.page).textContent()).toBe(svLaf.siteFrontPage.heading);
    expect(await sv.page.evaluate(() => document.documentElement.lang)).toBe('sv');
    // The server inlined the Swedish look and feel: the language it expected the SPA to ask for.
    expect(sv.requests.some((r) => r.url.includes('/language/'))).toBe(false);

    const fr = await open({ locale: 'fr-FR' });
    await fr.page.goto(portal.url('localhost'));
    await fr.page.locator('[data-card]').first().waitFor();
    expect(await fr.page.evaluate(() => document.documentElement.lang)).toBe('da');
    expect(fr.requests.some((r) => r.url.includes('/language/'))).toBe(false);
  });

  it('switching language reloads the look and feel, and the stored choice wins on the next visit', async () => {
    const enLaf = await lookAndFeel('group.localhost', 'en');
    const plLaf = await lookAndFeel('group.localhost', 'pl');
    const p = await open({ locale: 'da-DK' });
    await p.page.goto(portal.url('group.localhost', '/faq'));
    await h1(p.page).waitFor();
    await p.page.getByRole('combobox', { name: da['frame.language'] }).selectOption('en');
    await expect.poll(() => h1(p.page).textContent()).toBe(enLaf.siteFAQPage.heading);
    expect(await p.page.evaluate(() => document.documentElement.lang)).toBe('en');
    expect(await p.page.getByRole('combobox', { name: en['frame.language'] }).inputValue()).toBe('en');
    // Only the language is kept locally (no report data).
    expect(await p.page.evaluate(() => ({ ...localStorage }))).toEqual({ 'wb.language': 'en' });
    expect(await p.page.evaluate(() => sessionStorage.length)).toBe(0);

    // Coming back later (new page, same browser profile), the stored choice wins over the browser's da.
    const again = await p.context.newPage();
    await again.goto(portal.url('group.localhost'));
    await expect.poll(() => again.locator('main h1').first().textContent()).toBe(enLaf.siteFrontPage.heading);
    await again.getByRole('combobox', { name: en['frame.language'] }).selectOption('pl');
    await expect.poll(() => again.locator('main h1').first().textContent()).toBe(plLaf.siteFrontPage.heading);
    expect(await again.evaluate(() => document.documentElement.lang)).toBe('pl');
    await again.reload();
    await expect.poll(() => again.locator('main h1').first().textContent()).toBe(plLaf.siteFrontPage.heading);
    expect(p.foreignRequests(origins())).toEqual([]);
  });

  it('the selector offers the company’s languages, each in its own name', async () => {
    const p = await open({ locale: 'da-DK' });
    await p.page.goto(portal.url('quiet.localhost'));
    await h1(p.page).waitFor();
    const options = await p.page.getByRole('combobox', { name: da['frame.language'] }).locator('option').allTextContents();
    expect(options).toEqual(['Dansk', 'English']);
    const group = await open({ locale: 'da-DK' });
    await group.page.goto(portal.url('group.localhost'));
    await h1(group.page).waitFor();
    const all = await group.page.getByRole('combobox', { name: da['frame.language'] }).locator('option').allTextContents();
    expect(all).toEqual(['Dansk', 'Norsk', 'Svenska', 'English', 'Español', 'Polski', 'Deutsch']);
  });
});

describe('public pages', () => {
  it('FAQ is an accordion of the company’s questions', async () => {
    const laf = await lookAndFeel('localhost', 'da');
    const p = await open({ locale: 'da-DK' });
    await p.page.goto(portal.url('localhost', '/faq'));
    await expect.poll(() => h1(p.page).textContent()).toBe(laf.siteFAQPage.heading);
    const triggers = p.page.locator('main h2 button');
    expect(await triggers.allTextContents()).toEqual(laf.siteFAQPage.faqs.map((f) => f.heading));
    const first = triggers.first();
    const answer = laf.siteFAQPage.faqs[0]!.paragraph;
    expect(await first.getAttribute('aria-expanded')).toBe('false');
    expect(await p.page.getByText(answer.split('\n')[0]!).count()).toBe(0);
    await first.click();
    expect(await first.getAttribute('aria-expanded')).toBe('true');
    await p.page.getByText(answer.split('\n')[0]!).waitFor();
    const region = p.page.getByRole('region', { name: laf.siteFAQPage.faqs[0]!.heading });
    expect(await region.evaluate((el) => el.textContent)).toBe(answer);
    await first.click();
    await expect.poll(() => first.getAttribute('aria-expanded')).toBe('false');
    // Keyboard: focus the second question and open it with Enter.
    await triggers.nth(1).focus();
    await p.page.keyboard.press('Enter');
    expect(await triggers.nth(1).getAttribute('aria-expanded')).toBe('true');
  });

  it('ask questions: the company’s contact settings, and defaults when they are empty', async () => {
    const laf = await lookAndFeel('localhost', 'da');
    const p = await open({ locale: 'da-DK' });
    await p.page.goto(portal.url('localhost', '/ask-questions'));
    await expect.poll(() => h1(p.page).textContent()).toBe(da['ask.title']);
    expect(await p.page.getByTestId('contact-phone').textContent()).toBe(laf.contactPhone);
    expect(await p.page.getByTestId('contact-phone').getAttribute('href')).toBe(`tel:${laf.contactPhone!.replace(/\s+/g, '')}`);
    expect(await p.page.getByTestId('contact-person').textContent()).toBe(laf.contactPerson);
    expect(await p.page.locator('main').textContent()).toContain(da['ask.phone.hours']);
    expect(da['ask.phone.hours']).toContain('08.00–17.00');
    expect(await p.page.getByRole('link', { name: da['ask.faq.link'] }).getAttribute('href')).toBe('/faq');
    expect(await p.page.getByRole('link', { name: da['ask.online.action'] }).getAttribute('href')).toBe('/online-form');

    const q = await open({ locale: 'da-DK' });
    await q.page.goto(portal.url('quiet.localhost', '/ask-questions'));
    await expect.poll(() => h1(q.page).textContent()).toBe(da['ask.title']);
    expect(await q.page.getByTestId('contact-phone').count()).toBe(0);
    expect(await q.page.locator('main').textContent()).toContain(da['ask.phone.none']);
    expect(await q.page.getByTestId('contact-person').textContent()).toBe(da['ask.person.default']);
    expect(await q.page.getByTestId('contact-details').textContent()).toBe(da['ask.details.default']);
    expect(await q.page.locator('main').textContent()).toContain(da['ask.phone.hours']);
  });

  it('an unknown path shows the not-found page with a link home', async () => {
    const p = await open({ locale: 'da-DK' });
    await p.page.goto(portal.url('localhost', '/no/such/page'));
    await expect.poll(() => h1(p.page).textContent()).toBe(da['notFound.title']);
    await p.page.getByRole('link', { name: da['notFound.home'] }).click();
    await expect.poll(() => new URL(p.page.url()).pathname).toBe('/');
    await p.page.locator('[data-card]').first().waitFor();
  });

  it('/something-went-wrong says so and links to /', async () => {
    const p = await open({ locale: 'en-GB' });
    await p.page.goto(portal.url('localhost', '/something-went-wrong'));
    await expect.poll(() => h1(p.page).textContent()).toBe(en['error.title']);
    expect(await p.page.locator('main').textContent()).toContain(en['error.text']);
    expect(await p.page.getByRole('link', { name: en['error.tryAgain'] }).getAttribute('href')).toBe('/');
  });
});

describe('report route guards', () => {
  it('oral report and book meeting open when their option is on', async () => {
    const p = await open({ locale: 'da-DK' });
    await p.page.goto(portal.url('localhost', '/oral-report'));
    await expect.poll(() => new URL(p.page.url()).pathname).toBe('/oral-report');
    await p.page.goto(portal.url('localhost'));
    await p.page.locator('[data-card="meeting"]').click();
    await expect.poll(() => new URL(p.page.url()).pathname).toBe('/book-meeting');
  });

  it('when an option is off, navigation goes back where it came from (or / on entry)', async () => {
    const p = await open({ locale: 'da-DK' });
    await p.page.goto(portal.url('quiet.localhost', '/oral-report'));
    await expect.poll(() => new URL(p.page.url()).pathname).toBe('/');
    await p.page.locator('[data-card]').first().waitFor();

    await p.page.goto(portal.url('quiet.localhost', '/how-to-report'));
    await h1(p.page).waitFor();
    for (const target of ['/book-meeting', '/oral-report']) {
      // An in-app navigation (as a link would make), not a page load.
      await p.page.evaluate((to) => {
        history.pushState({ __TSR_index: (history.state?.__TSR_index ?? 0) + 1 }, '', to);
        dispatchEvent(new PopStateEvent('popstate', { state: history.state }));
      }, target);
      await expect.poll(() => new URL(p.page.url()).pathname).toBe('/how-to-report');
      expect(await h1(p.page).isVisible()).toBe(true);
    }
  });
});

describe('spec §8: the server failing on purpose', () => {
  it('look and feel 500 (a damaged company row): built-in defaults — Danish, both options, default colours', async () => {
    const p = await open({ locale: 'en-GB' });
    await p.page.goto(portal.url('broken.localhost'));
    await p.page.locator('[data-card]').first().waitFor();
    expect(await h1(p.page).textContent()).toBe(da['landing.heading.default']);
    expect(await p.page.locator('main').textContent()).toContain(da['landing.subHeading.default']);
    const cards = await p.page.locator('[data-card]').evaluateAll((els) => els.map((e) => e.getAttribute('data-card')));
    expect(cards).toEqual(['online', 'oral', 'meeting', 'ask', 'case']);
    expect(await p.page.evaluate(() => document.documentElement.lang)).toBe('da');
    const primary = await p.page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--wb-color-primary').trim());
    expect(primary).toBe('#172a55');
    expect(new URL(p.page.url()).pathname).toBe('/');
    expect(p.requests.some((r) => new URL(r.url).pathname.endsWith('/language/en'))).toBe(true);
  });

  it("a browser language the company does not offer: the company's default language, with its own settings (spec §1)", async () => {
    const p = await open({ locale: 'de-DE' });
    await p.page.goto(portal.url('quiet.localhost'));
    await p.page.locator('[data-card]').first().waitFor();
    // Not the built-in defaults (da, both options on): the company's default, en, and its settings.
    await expect.poll(() => p.page.evaluate(() => document.documentElement.lang)).toBe('en');
    const cards = await p.page.locator('[data-card]').evaluateAll((els) => els.map((e) => e.getAttribute('data-card')));
    expect(cards).toEqual(['online', 'ask', 'case']);
  });

  it('company info 500 goes to /something-went-wrong', async () => {
    const p = await open({ locale: 'da-DK' });
    await p.page.goto(portal.url('noinfo.localhost', '/faq'));
    await expect.poll(() => new URL(p.page.url()).pathname).toBe('/something-went-wrong');
    await expect.poll(() => h1(p.page).textContent()).toBe(da['error.title']);
  });

  it('an unknown host (look and feel and company info 404) goes to /something-went-wrong', async () => {
    const p = await open({ locale: 'da-DK' });
    await p.page.goto(portal.url('nobody.localhost'));
    await expect.poll(() => new URL(p.page.url()).pathname).toBe('/something-went-wrong');
    await expect.poll(() => h1(p.page).textContent()).toBe(da['error.title']);
  });

  it('no HTTP status (the server stopped) goes to /something-went-wrong', async () => {
    const own = await startPortal();
    let stopping: Promise<void> | undefined;
    try {
      const p = await open({ locale: 'da-DK' });
      await p.page.goto(own.url('localhost'));
      await p.page.locator('[data-card]').first().waitFor();
      // The server stops listening at once; closing its database may take longer.
      stopping = own.server.stop();
      await expect.poll(() => fetch(own.url('localhost', '/healthz')).then(() => 'up', () => 'down')).toBe('down');
      await p.page.getByRole('combobox', { name: da['frame.language'] }).selectOption('en');
      await expect.poll(() => new URL(p.page.url()).pathname, { timeout: 20_000 }).toBe('/something-went-wrong');
      await expect.poll(() => h1(p.page).textContent()).toBe(da['error.title']);
    } finally {
      await stopping;
      await own.server.cleanup();
    }
  });
});

describe('accessibility (axe, WCAG 2.1 A and AA) and privacy', () => {
  it('the harness sees a planted violation and a request to another host', async () => {
    const p = await open({ locale: 'da-DK' });
    await p.page.goto(portal.url('localhost'));
    await h1(p.page).waitFor();
    expect(await axeViolations(p.page)).toEqual([]);
    await p.page.evaluate(() => {
      const img = document.createElement('img');
      img.src = 'http://third-party.invalid/pixel.png';
      document.querySelector('main')!.append(img);
    });
    const found = await axeViolations(p.page);
    expect(found.some((v) => v.startsWith('image-alt'))).toBe(true);
    await expect.poll(() => p.foreignRequests(origins()).map((r) => new URL(r.url).host)).toEqual(['third-party.invalid']);
  });

  const ROUTES = [
    '/',
    '/ask-questions',
    '/faq',
    '/how-to-report',
    '/about-whistleblowing/personal-data',
    '/about-whistleblowing/anonymity',
    '/about-whistleblowing/case-process',
    '/something-went-wrong',
    '/online-form',
    '/oral-report',
    '/book-meeting',
    '/this/path/does/not/exist',
  ];

  // The languages split between the companies (SWEEP_LANGUAGES); the second company's
  // pages are also loaded in all seven languages by the narrow-width sweep (mobile.test.ts).
  it('the sweeps below take every language and both companies', () => {
    expect(new Set(DEMO_HOSTS.flatMap((h) => SWEEP_LANGUAGES[h]))).toEqual(new Set(LANGUAGES));
    expect(Object.keys(SWEEP_LANGUAGES).sort()).toEqual([...DEMO_HOSTS].sort());
  });

  for (const host of DEMO_HOSTS) {
    it(`${host}: every public route in ${SWEEP_LANGUAGES[host].join(', ')} has no axe violation and no foreign request`, { timeout: 900_000 }, async () => {
      const failures: string[] = [];
      for (const lang of SWEEP_LANGUAGES[host]) {
        const p = await openPage(browser, { locale: 'da-DK' });
        await p.context.addInitScript((l) => localStorage.setItem('wb.language', l), lang);
        for (const route of ROUTES) {
          await p.page.goto(portal.url(host, route));
          await h1(p.page).waitFor();
          await p.page.waitForFunction((l) => document.documentElement.lang === (l === 'se' ? 'sv' : l), lang);
          if (route === '/faq') await p.page.locator('main h2 button').first().click();
          for (const v of await axeViolations(p.page)) failures.push(`${lang} ${route}: ${v}`);
        }
        // The drawer, open, at a narrow width.
        await p.page.setViewportSize({ width: 375, height: 800 });
        await p.page.goto(portal.url(host, '/'));
        await h1(p.page).waitFor();
        await p.page.locator('header button[aria-haspopup="dialog"]').click();
        await p.page.getByRole('dialog').waitFor();
        await p.page.getByRole('dialog').locator('button[aria-expanded]').first().click();
        for (const v of await axeViolations(p.page)) failures.push(`${lang} drawer: ${v}`);
        expect(p.foreignRequests([new URL(portal.url(host)).origin])).toEqual([]);
        await p.close();
      }
      expect(failures).toEqual([]);
    });
  }
});
