/**
 * The private area's failure exits in real Chromium against the real server, its
 * embedded OpenID provider and the built SPA (DIST_DIR). Nothing is mocked: every
 * failure is made by the server itself (spec §4 Session, §6, §8).
 *
 * - A 401 on a private call mid-session (the case's follow account removed on the
 *   server) sends the reporter to `/`, forgets the tokens and leaves no private data
 *   on screen: on moving between private pages (case reload) and on sending a message.
 * - Token verification on entering the private area (the case read, spec §4
 *   Session: "the case endpoint is called to verify the token"): a 401 there is a 401 "anywhere"
 *   (§6, §8 "Status 401 or 403 → /"), so `/` with the tokens forgotten; any other
 *   non-200 (here: the server gone, no status) goes to /something-went-wrong.
 * - A login failure goes to `/`: the provider's answer comes back to a tab that never
 *   started that sign-in (the sign-in page opened in another tab), so the callback
 *   cannot be completed.
 *
 * Every test checks with the harness's request recorder that nothing went to another host.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page, Request } from 'playwright-core';
import { launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { createOnlineCase, firstOfficerId, signInThroughProvider } from './reporter.ts';
import { formatCaseNumber } from '../../machines/schema.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const en = JSON.parse(readFileSync(path.join(ROOT, 'src/i18n/private/en.json'), 'utf8')) as Record<string, string>;
const common = JSON.parse(readFileSync(path.join(ROOT, 'src/i18n/common/en.json'), 'utf8')) as Record<string, string>;
const msg = (key: string, values: Record<string, string | number> = {}) =>
  en[key]!.replace(/\{(\w+)\}/g, (_m, k: string) => String(values[k]));

const DESCRIPTION = 'Invoices from one supplier are paid twice.';
let browser: Browser;
const opened: OpenedPage[] = [];

async function newOnlineCase(portal: Portal, password: string): Promise<string> {
  return createOnlineCase(portal, { officerId: await firstOfficerId(portal), password, description: DESCRIPTION });
}

async function open() {
  const p = await openPage(browser, { locale: 'en-GB' });
  opened.push(p);
  return p;
}

const nav = (page: Page) => page.getByRole('navigation', { name: msg('private.nav.label') });

/** From a private URL through the provider's sign-in page and back. */
async function signIn(portal: Portal, page: Page, caseNumber: string, password: string, to = '/private/status') {
  await signInThroughProvider(portal, page, caseNumber, password, to);
  await nav(page).waitFor();
}

/**
 * The page's case loads (`GET my-case`), started and still waiting for the server.
 * A test that breaks the session on the server must first let every load in flight
 * be answered: a follow account removed while one is pending makes *that* load the
 * 401, and the reporter is thrown out before the step under test (each private page
 * reloads the case when it mounts).
 */
function trackCaseLoads(page: Page) {
  const isLoad = (r: Request) => r.method() === 'GET' && r.url().endsWith('/api/private/case/my-case');
  const pending = new Set<Request>();
  let started = 0;
  page.on('request', (r) => {
    if (!isLoad(r)) return;
    started += 1;
    pending.add(r);
  });
  page.on('requestfinished', (r) => void pending.delete(r));
  page.on('requestfailed', (r) => void pending.delete(r));
  return {
    get started() {
      return started;
    },
    /** Until at least `count` loads have started and none has been pending for a quiet 300 ms. */
    async settle(count: number) {
      let quietSince = 0;
      await expect
        .poll(
          () => {
            if (started < count || pending.size > 0) quietSince = 0;
            else quietSince ||= Date.now();
            return quietSince > 0 && Date.now() - quietSince >= 300;
          },
          { timeout: 15_000, interval: 50 },
        )
        .toBe(true);
    },
  };
}

/** The case's follow account removed on the server: its still-valid tokens now answer 401. */
async function removeFollowAccount(portal: Portal, caseNumber: string) {
  const db = portal.server.ctx.db;
  const row = await db.selectFrom('report_case').select('id').where('case_number', '=', caseNumber).executeTakeFirstOrThrow();
  await db.deleteFrom('case_account').where('case_id', '=', row.id).execute();
}

/** A navigation inside the running app, as its own links make (history + popstate). */
async function spaNavigate(page: Page, to: string) {
  await page.evaluate((p) => {
    history.pushState(null, '', p);
    dispatchEvent(new PopStateEvent('popstate'));
  }, to);
}

async function storedTokens(page: Page) {
  return page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.startsWith('oidc.user:')).length);
}

async function accessToken(page: Page) {
  return page.evaluate(() => {
    const key = Object.keys(sessionStorage).find((k) => k.startsWith('oidc.user:'))!;
    return JSON.parse(sessionStorage.getItem(key)!).access_token as string;
  });
}

/** At `/`, the tokens forgotten, nothing of the case on screen. */
async function expectThrownOutHome(page: Page, caseNumber: string) {
  await page.waitForURL((u) => u.pathname === '/', { timeout: 15_000 });
  await page.getByRole('heading', { level: 1 }).waitFor();
  expect(await nav(page).count()).toBe(0);
  const body = await page.locator('body').innerText();
  expect(body).not.toContain(formatCaseNumber(caseNumber));
  expect(body).not.toContain(DESCRIPTION);
  expect(body).not.toContain('Half-written');
  await expect.poll(() => storedTokens(page)).toBe(0);
}

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  for (const p of opened) await p.close().catch(() => undefined);
  await browser?.close();
});

describe('private area failure exits', () => {
  let portal: Portal;
  let origin: string;
  beforeAll(async () => {
    portal = await startPortal();
    origin = new URL(portal.url('localhost')).origin;
  });
  afterAll(async () => {
    // Close the tabs first: a kept-alive connection would hold the server's close up.
    for (const p of opened.splice(0)) await p.close().catch(() => undefined);
    await portal?.server.cleanup();
  });

  it('a 401 on the case reload while moving between private pages sends the reporter to /', async () => {
    const caseNumber = await newOnlineCase(portal, 'reload-pass');
    const { page, foreignRequests } = await open();
    const loads = trackCaseLoads(page);
    await signIn(portal, page, caseNumber, 'reload-pass');
    await loads.settle(1);
    const before = loads.started;
    await nav(page).getByRole('link', { name: msg('private.nav.report') }).click();
    await page.getByText(DESCRIPTION).waitFor();
    await loads.settle(before + 1);
    const token = await accessToken(page);

    await removeFollowAccount(portal, caseNumber);
    // The server really answers 401 to the still-unexpired token.
    const res = await fetch(`${portal.server.url}/api/private/case/my-case`, { headers: { authorization: `Bearer ${token}`, 'x-company-host': 'localhost' } });
    expect(res.status).toBe(401);

    await nav(page).getByRole('link', { name: msg('private.nav.status') }).click();
    await expectThrownOutHome(page, caseNumber);
    expect(foreignRequests([origin])).toEqual([]);
  });

  it('a 401 on sending a message sends the reporter to /', async () => {
    const caseNumber = await newOnlineCase(portal, 'message-pass');
    const { page, requests, foreignRequests } = await open();
    const loads = trackCaseLoads(page);
    await signIn(portal, page, caseNumber, 'message-pass', '/private/messages');
    await loads.settle(1);
    const box = page.getByLabel(msg('private.messages.label'));
    await box.fill('Half-written answer');

    await removeFollowAccount(portal, caseNumber);
    await box.press('Enter');
    await expectThrownOutHome(page, caseNumber);
    // The message really went out and was refused; nothing reached the case.
    expect(requests.some((r) => r.method === 'POST' && r.url.endsWith('/api/private/case/messages/new'))).toBe(true);
    const count = await portal.server.ctx.db
      .selectFrom('case_message')
      .innerJoin('report_case', 'report_case.id', 'case_message.case_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('report_case.case_number', '=', caseNumber)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
    expect(foreignRequests([origin])).toEqual([]);
  });

  it('a 401 from the case read that verifies the token on entering the private area sends the reporter to / (a 401 anywhere, §6)', async () => {
    const caseNumber = await newOnlineCase(portal, 'verify-pass');
    const { page, requests, foreignRequests } = await open();
    await signIn(portal, page, caseNumber, 'verify-pass');
    // Leave the app before breaking the session, so no load of the old page can be
    // the one that answers 401; the tab's sessionStorage (the tokens) stays.
    await page.goto('about:blank');
    await removeFollowAccount(portal, caseNumber);

    const before = requests.length;
    await page.goto(portal.url('localhost', '/private/status'));
    await expectThrownOutHome(page, caseNumber);
    // It was the verification (one case read) that answered 401, not a failed sign-in round trip.
    const after = requests.slice(before);
    expect(after.filter((r) => r.url.endsWith('/api/private/case/my-case'))).toHaveLength(1);
    expect(after.filter((r) => r.url.endsWith('/api/private/case/token/verify'))).toEqual([]);
    expect(after.filter((r) => r.url.includes('/idp/realms/'))).toEqual([]);
    expect(foreignRequests([origin])).toEqual([]);
  });

  it('a reloaded private page has its case read, which verifies the token, started by its head, once', async () => {
    const caseNumber = await newOnlineCase(portal, 'early-pass');
    const { page, requests, foreignRequests } = await open();
    const loads = trackCaseLoads(page);
    await signIn(portal, page, caseNumber, 'early-pass');
    await loads.settle(1);
    const calls = (from: number, suffix: string) => requests.slice(from).filter((r) => r.method === 'GET' && r.url.endsWith(suffix)).length;

    // Without the SPA's scripts only the page's head can ask.
    await page.route('**/assets/*.js', (route) => route.abort());
    let before = requests.length;
    await page.reload();
    await expect.poll(() => calls(before, '/api/private/case/my-case')).toBe(1);
    expect(calls(before, '/api/private/case/token/verify')).toBe(0);
    await page.unroute('**/assets/*.js');

    // With them, the SPA takes those answers instead of asking again.
    before = requests.length;
    await page.reload();
    await page.getByRole('progressbar').waitFor();
    const loaded = (name: string) => requests.slice(before).some((r) => new RegExp(`/assets/${name}-[\\w-]+\\.js$`).test(r.url));
    // The OpenID client was not needed to show the page; it follows a moment later.
    expect(loaded('oidc-client-ts')).toBe(false);
    expect((await page.getByRole('heading', { level: 1 }).textContent()) ?? '').toContain(formatCaseNumber(caseNumber));
    await page.waitForTimeout(1000);
    expect(calls(before, '/api/private/case/my-case')).toBe(1);
    expect(calls(before, '/api/private/case/token/verify')).toBe(0);
    await expect.poll(() => loaded('oidc-client-ts'), { timeout: 10_000 }).toBe(true);
    // So does the expired-session dialog, before a refresh could fail.
    await expect.poll(() => loaded('dialog'), { timeout: 10_000 }).toBe(true);
    expect(foreignRequests([origin])).toEqual([]);
  });

  it('a reloaded private page whose head already has the case shows it at once, without "checking" first', async () => {
    const caseNumber = await newOnlineCase(portal, 'in-hand-pass');
    const { page, requests } = await open();
    const loads = trackCaseLoads(page);
    await signIn(portal, page, caseNumber, 'in-hand-pass');
    await loads.settle(1);
    const calls = (from: number, suffix: string) => requests.slice(from).filter((r) => r.method === 'GET' && r.url.endsWith(suffix)).length;
    // Whether the private layout ever rendered its "checking" frame (aria-busy) on this page.
    await page.addInitScript(() => {
      const w = window as unknown as { sawChecking: boolean };
      w.sawChecking = false;
      new MutationObserver(() => {
        if (document.querySelector('[aria-busy="true"]')) w.sawChecking = true;
      }).observe(document, { subtree: true, childList: true, attributes: true });
    });
    const sawChecking = () => page.evaluate(() => (window as unknown as { sawChecking: boolean }).sawChecking);

    // The SPA's scripts arrive after the head's answers (a slow network for the scripts).
    await page.route('**/assets/*.js', async (route) => {
      await new Promise((r) => setTimeout(r, 400));
      await route.continue();
    });
    let before = requests.length;
    await page.reload();
    await page.getByRole('progressbar').waitFor();
    expect((await page.getByRole('heading', { level: 1 }).textContent()) ?? '').toContain(formatCaseNumber(caseNumber));
    expect(await sawChecking()).toBe(false);
    await page.waitForTimeout(1000);
    expect(calls(before, '/api/private/case/my-case')).toBe(1);
    expect(calls(before, '/api/private/case/token/verify')).toBe(0);
    await page.unroute('**/assets/*.js');

    // The case read is still on its way when the scripts have run: "checking", then the
    // case, still from the head's one read.
    await page.route('**/api/private/case/my-case', async (route) => {
      await new Promise((r) => setTimeout(r, 1500));
      await route.continue();
    });
    before = requests.length;
    await page.reload();
    await page.getByRole('progressbar').waitFor();
    expect(await sawChecking()).toBe(true);
    await page.waitForTimeout(1000);
    expect(calls(before, '/api/private/case/my-case')).toBe(1);
    expect(calls(before, '/api/private/case/token/verify')).toBe(0);
    await page.unroute('**/api/private/case/my-case');

    // The case in hand is the one the page shows: a change made since reaches the next page.
    before = requests.length;
    await page.getByRole('link', { name: /messages|beskeder/i }).first().click();
    await expect.poll(() => calls(before, '/api/private/case/my-case')).toBe(1);
  });

  it('a login failure (the provider answers a tab that never started the sign-in) sends the reporter to /', async () => {
    const caseNumber = await newOnlineCase(portal, 'login-pass');
    const first = await open();
    await first.page.goto(portal.url('localhost', '/private/status'));
    await first.page.waitForSelector('#caseNumber');
    const signInUrl = first.page.url();

    // The reporter opens the sign-in page in another tab (same browser, so the same
    // provider interaction) and signs in there: that tab holds no state of this sign-in.
    const other = await first.context.newPage();
    await other.goto(signInUrl);
    await other.fill('#caseNumber', formatCaseNumber(caseNumber));
    await other.fill('#password', 'login-pass');
    const callback = other.waitForURL((u) => u.pathname === '/private/callback' && u.searchParams.has('code'));
    await other.press('#password', 'Enter');
    await callback;
    await expectThrownOutHome(other, caseNumber);
    expect(new URL(other.url()).search).toBe('');
    expect(first.foreignRequests([origin])).toEqual([]);
  });
});

describe('token verification without an answer', () => {
  it('goes to /something-went-wrong when the server is gone on entering the private area', async () => {
    const portal = await startPortal();
    const origin = new URL(portal.url('localhost')).origin;
    try {
      const caseNumber = await newOnlineCase(portal, 'gone-pass');
      const { page, foreignRequests } = await open();
      await signIn(portal, page, caseNumber, 'gone-pass');
      // Load the error page's chunk while the server is up, then leave the private
      // area inside the app (no reload: the SPA stays in memory, its session ends).
      await spaNavigate(page, '/something-went-wrong');
      await page.getByRole('heading', { level: 1, name: common['error.title'] }).waitFor();
      await spaNavigate(page, '/');
      await expect.poll(() => page.getByRole('heading', { level: 1, name: common['error.title'] }).count()).toBe(0);
      expect(await nav(page).count()).toBe(0);

      // The server goes away: it stops listening and drops the browser's kept-alive
      // connections too (else closing would wait for them to time out).
      const stopping = portal.server.stop();
      portal.server.app.server.closeAllConnections();
      await stopping;
      const gone = await fetch(`${portal.server.url}/api/public/case/company-info`).then((r) => r.status, () => 0);
      expect(gone).toBe(0);
      // Back into the private area: the stored token is unexpired, so the session goes
      // straight to verification, which gets no answer.
      expect(await storedTokens(page)).toBe(1);
      await spaNavigate(page, '/private/status');
      await page.waitForURL((u) => u.pathname === '/something-went-wrong', { timeout: 15_000 });
      await page.getByRole('heading', { level: 1, name: common['error.title'] }).waitFor();
      expect(await nav(page).count()).toBe(0);
      expect(await page.locator('body').innerText()).not.toContain(formatCaseNumber(caseNumber));
      expect(foreignRequests([origin])).toEqual([]);
    } finally {
      await portal.server.cleanup();
    }
  });
});
