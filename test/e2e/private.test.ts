/**
 * The private area in real Chromium against the real server, its embedded OpenID
 * provider and the built SPA (DIST_DIR). The handler's side is played with the
 * handler CLI (`npm run handler`, server/cli/handler.ts) over the real handler API.
 *
 * Journeys: sign in with the case number and password of a fresh online report;
 * progress moving as the handler changes the status; the answer-wanted banner
 * appearing and clearing after the reply; messages and files both ways; comment on
 * and approve a phone report's record; add identity (invalid first: nothing sent);
 * change the password and sign in with the new one; a token that really expired
 * on the server refreshed while idle, unnoticed; a failed refresh that keeps the
 * draft; the language selector; the narrow layouts; axe on every private route in
 * the four private languages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { createOnlineCase, createPhoneCase, signInThroughProvider } from './reporter.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { sql } from 'kysely';
import { formatCaseNumber } from '../../machines/schema.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const en = JSON.parse(readFileSync(path.join(ROOT, 'src/i18n/private/en.json'), 'utf8')) as Record<string, string>;
const msg = (key: string, values: Record<string, string | number> = {}) =>
  en[key]!.replace(/\{(\w+)\}/g, (_m, k: string) => String(values[k]));

const ACCESS_TOKEN_TTL = 20; // seconds: short, so a token can really expire during a test
let browser: Browser;
let portal: Portal;
let handlerToken: string;
let officerId: string;
const opened: OpenedPage[] = [];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-private-e2e-'));

/** The handler CLI, as a case handler would run it. */
async function handler(...args: string[]): Promise<string> {
  const { stdout } = await run(path.join(ROOT, 'node_modules/.bin/tsx'), ['server/cli/handler.ts', '--url', portal.server.url, '--token', handlerToken, ...args], {
    cwd: ROOT,
    env: { ...process.env, HANDLER_TOKEN: '' },
  });
  return stdout;
}
async function handlerCase(caseNumber: string): Promise<any> {
  return JSON.parse(await handler('show', caseNumber, '--json'));
}

const newOnlineCase = (password: string) =>
  createOnlineCase(portal, { officerId, password, relation: 'Employee in accounting', description: 'Invoices from one supplier are paid twice.' });

const newPhoneCase = (password: string) => createPhoneCase(portal, { officerId, password });

async function open(opts: { width?: number; clock?: boolean } = {}) {
  const p = await openPage(browser, { locale: 'en-GB', width: opts.width });
  if (opts.clock) await p.page.clock.install();
  opened.push(p);
  return p;
}

/** From a private URL through the provider's sign-in page and back. */
async function signIn(page: Page, caseNumber: string, password: string, to = '/private/status') {
  await signInThroughProvider(portal, page, caseNumber, password, to);
  await page.getByRole('navigation', { name: msg('private.nav.label') }).waitFor();
}

async function heading(page: Page) {
  return (await page.getByRole('heading', { level: 1 }).textContent())?.trim();
}

async function progress(page: Page) {
  return Number(await page.getByRole('progressbar').getAttribute('aria-valuenow'));
}

async function go(page: Page, label: string) {
  try {
    await page.getByRole('navigation', { name: msg('private.nav.label') }).getByRole('link', { name: label }).click({ timeout: 10_000 });
  } catch (err) {
    // Say where the reporter ended up, to make a failure readable.
    console.log(`no "${label}" link at ${page.url()}:\n${(await page.locator('body').innerText()).slice(0, 2000)}`);
    throw err;
  }
}

beforeAll(async () => {
  browser = await launchBrowser();
  portal = await startPortal({ identity: { accessTokenTtl: ACCESS_TOKEN_TTL } });
  const info = await (await fetch(`${portal.server.url}/api/public/case/company-info`, { headers: { 'x-company-host': 'localhost' } })).json();
  officerId = (info as { protectionOfficers: { id: string }[] }).protectionOfficers[0]!.id;
  const company = await portal.server.ctx.db.selectFrom('company_host').select('company_id').where('host', '=', 'localhost').executeTakeFirstOrThrow();
  handlerToken = (await createHandlerAccount(portal.server.ctx.db, company.company_id, 'Hanne Handler')).token;
});

afterAll(async () => {
  for (const p of opened) await p.close().catch(() => undefined);
  await browser?.close();
  await portal?.server.cleanup();
});

describe('private area', () => {
  it('calls the case once on entering the private area, and once more per page change', async () => {
    const caseNumber = await newOnlineCase('once-pass');
    const { page, requests } = await open();
    await signIn(page, caseNumber, 'once-pass');
    const caseCalls = () => requests.filter((r) => r.url.includes('/api/private/case/my-case')).length;
    await page.getByRole('progressbar').waitFor();
    await expect.poll(caseCalls).toBe(1);
    // A second call would follow the first at once: give it the time to show up.
    await page.waitForTimeout(1500);
    expect(caseCalls()).toBe(1);
    await go(page, msg('private.nav.messages'));
    await expect.poll(caseCalls).toBe(2);
    await page.waitForTimeout(1500);
    expect(caseCalls()).toBe(2);
  });

  it('signs in with the case number and password of a fresh online report, follows the progress, answers the handler and shares files both ways', async () => {
    const caseNumber = await newOnlineCase('first-pass');
    const { page, requests } = await open();
    await signIn(page, caseNumber, 'first-pass');
    expect(await heading(page)).toBe(msg('private.status.title', { caseNumber: formatCaseNumber(caseNumber) }));
    // The sign-in code never stays in the address bar.
    expect(page.url()).not.toContain('code=');
    // Tokens only in sessionStorage; nothing of the report in localStorage.
    const storage = await page.evaluate(() => ({ local: JSON.stringify(localStorage), session: JSON.stringify(sessionStorage) }));
    expect(storage.local).not.toMatch(/access_token|refresh_token|Invoices/);
    expect(storage.session).toMatch(/access_token/);

    // An online report starts received: 5 %, the confirmation block enabled, no banner.
    expect(await progress(page)).toBe(5);
    expect(await page.getByRole('button', { name: msg('private.status.confirmation.title') }).isEnabled()).toBe(true);
    expect(await page.getByRole('button', { name: msg('private.status.feedback.title') }).isDisabled()).toBe(true);
    expect(await page.getByText(msg('private.status.banner.text')).count()).toBe(0);
    await page.getByRole('button', { name: msg('private.status.confirmation.title') }).click();
    await expect.poll(() => page.getByText(/^Received on \d\d\/\d\d\/\d{4}$/).count()).toBe(1);

    // The handler moves the status: the reporter sees the progress move.
    await handler('status', caseNumber, 'BEING_INVESTIGATED');
    await page.reload();
    await page.getByRole('progressbar').waitFor();
    expect(await progress(page)).toBe(33);
    await handler('status', caseNumber, 'BEING_CLOSED');
    await go(page, msg('private.nav.messages'));
    await go(page, msg('private.nav.status'));
    await expect.poll(() => progress(page)).toBe(66);

    // The handler asks for an answer: the yellow banner appears and links to messages.
    const evidence = path.join(tmp, 'handler-note.txt');
    writeFileSync(evidence, 'Please compare with the ledger.\n');
    await handler('message', caseNumber, 'Which supplier is it?', '--answer-wanted', '--file', evidence);
    await handler('message', caseNumber, 'We have started the investigation.', '--type', 'FEEDBACK');
    await page.reload();
    await page.getByText(msg('private.status.banner.text')).waitFor();
    expect(await page.getByRole('button', { name: msg('private.status.feedback.title') }).isEnabled()).toBe(true);
    await page.getByRole('button', { name: msg('private.status.feedback.title') }).click();
    const feedbackList = page.getByRole('list', { name: msg('private.status.feedback.list') });
    await feedbackList.getByText('We have started the investigation.').waitFor();
    expect(await feedbackList.evaluate((el) => getComputedStyle(el).maxHeight)).toBe('290px');
    await page.getByRole('link', { name: msg('private.status.banner.link') }).click();
    await page.waitForURL('**/private/messages');
    await page.getByText('Which supplier is it?').waitFor();

    // The handler's file is in the shared-files drawer and downloads as an attachment.
    const files = page.getByRole('complementary', { name: msg('private.files.title') });
    await expect.poll(() => files.getByRole('button', { name: /^Documents/ }).textContent()).toMatch(/1 file/);
    const [download] = await Promise.all([page.waitForEvent('download'), files.getByRole('button', { name: /handler-note\.txt/ }).click()]);
    expect(download.suggestedFilename()).toBe('handler-note.txt');
    expect(readFileSync((await download.path())!, 'utf8')).toBe('Please compare with the ledger.\n');

    // Blank text alone cannot be sent; trimmed text with a file is, with Enter.
    const box = page.getByLabel(msg('private.messages.label'));
    await box.fill('   ');
    expect(await page.getByRole('button', { name: msg('private.messages.send') }).isDisabled()).toBe(true);
    await page.getByLabel(/^Attach files/).setInputFiles({ name: 'ledger.csv', mimeType: 'text/csv', buffer: Buffer.from('supplier;amount\nAcme;100\n') });
    await box.fill('  It is Acme Supplies.  ');
    expect(await page.getByText(msg('private.messages.counter', { count: 24, max: 200 })).count()).toBe(1);
    await box.press('Enter');
    await page.locator('[data-own="true"]', { hasText: 'It is Acme Supplies.' }).waitFor();
    expect(await box.inputValue()).toBe('');
    await expect.poll(() => files.getByRole('button', { name: /^All/ }).textContent()).toMatch(/2 files/);

    const seen = await handlerCase(caseNumber);
    const mine = seen.messages.find((m: any) => m.createdByUserId === caseNumber);
    expect(mine.message).toBe('It is Acme Supplies.');
    expect(mine.files.map((f: any) => f.name)).toEqual(['ledger.csv']);
    expect(seen.pendingWhistleblowerAction).toBe(false);

    // The banner cleared after the reply.
    await go(page, msg('private.nav.status'));
    await page.getByRole('progressbar').waitFor();
    expect(await page.getByText(msg('private.status.banner.text')).count()).toBe(0);

    // No request left the portal's origin.
    const origin = new URL(portal.url('localhost')).origin;
    expect(requests.filter((r) => !r.url.startsWith('blob:') && !r.url.startsWith('data:') && new URL(r.url).origin !== origin)).toEqual([]);

    // The report, read-only; an online-form report offers neither comments nor approval.
    await go(page, msg('private.nav.report'));
    await page.getByText('Invoices from one supplier are paid twice.').waitFor();
    await page.getByText('Accounts payable').waitFor();
    expect(await page.getByRole('button', { name: msg('private.report.approve.open'), exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: msg('private.report.comment.open') }).count()).toBe(0);
  });

  it('offers Dansk, Norsk, Svenska and English, and axe finds nothing on any private route in any of the seven languages', async () => {
    const caseNumber = await newOnlineCase('axe-pass');
    await handler('message', caseNumber, 'Thank you, we have received your report.', '--type', 'CONFIRMATION');
    const { page } = await open();
    await signIn(page, caseNumber, 'axe-pass');
    // The language selector offers exactly Dansk, Norsk, Svenska and English, and
    // switching keeps the reporter signed in on the same page.
    const select = page.getByRole('combobox', { name: 'Language' });
    expect(await select.locator('option').allTextContents()).toEqual(['Dansk', 'Norsk', 'Svenska', 'English']);
    await select.selectOption('da');
    await expect.poll(() => heading(page)).toBe(`Status på sag ${formatCaseNumber(caseNumber)}`);
    expect(new URL(page.url()).pathname).toBe('/private/status');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('combobox', { name: 'Sprog' }).selectOption('en');
    await expect.poll(() => heading(page)).toBe(msg('private.status.title', { caseNumber: formatCaseNumber(caseNumber) }));

    // axe on every private route.
    for (const [label, route] of [
      ['private.nav.status', '/private/status'],
      ['private.nav.messages', '/private/messages'],
      ['private.nav.report', '/private/report'],
      ['private.nav.info', '/private/info'],
    ] as const) {
      await go(page, msg(label));
      await page.waitForURL(`**${route}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      expect(await axeViolations(page), route).toEqual([]);
    }
    // ...and in the other private languages.
    for (const lang of ['da', 'no', 'se'] as const) {
      await page.locator('header select').selectOption(lang);
      await expect.poll(() => page.locator('html').getAttribute('lang')).toBe(lang === 'se' ? 'sv' : lang);
      for (const route of ['/private/status', '/private/messages', '/private/report', '/private/info']) {
        await page.locator(`nav a[href="${route}"]`).click();
        await page.waitForURL(`**${route}`);
        await page.getByRole('heading', { level: 1 }).waitFor();
        expect(await axeViolations(page), `${lang} ${route}`).toEqual([]);
      }
    }
    // Spanish, Polish or German, chosen on the public pages, stays in the private area
    // (shown in the selector, not offered there): every private route in those too.
    for (const lang of ['es', 'pl', 'de'] as const) {
      await page.evaluate((l) => localStorage.setItem('wb.language', l), lang);
      await page.reload();
      await expect.poll(() => page.locator('html').getAttribute('lang')).toBe(lang);
      expect(await page.locator('header select').inputValue()).toBe(lang);
      for (const route of ['/private/status', '/private/messages', '/private/report', '/private/info']) {
        await page.locator(`nav a[href="${route}"]`).click();
        await page.waitForURL(`**${route}`);
        await page.getByRole('heading', { level: 1 }).waitFor();
        expect(await axeViolations(page), `${lang} ${route}`).toEqual([]);
      }
    }
  });

  it('comments on and then approves the record of a phone report', async () => {
    const caseNumber = await newPhoneCase('phone-pass');
    const { page } = await open();
    await signIn(page, caseNumber, 'phone-pass');
    // A lone pending-contact event: the case will be initiated; progress 0.
    await page.getByText(msg('private.status.initiated')).waitFor();
    expect(await progress(page)).toBe(0);
    await handler('status', caseNumber, 'RECEIVED');
    // No record yet: comments are welcome, but there is nothing to approve.
    await go(page, msg('private.nav.report'));
    await page.getByText(msg('private.report.approve.waiting')).waitFor();
    expect(await page.getByRole('button', { name: msg('private.report.approve.open') }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: msg('private.report.comment.open') }).isEnabled()).toBe(true);
    await handler('report', caseNumber, 'The reporter called on Monday about double payments.');
    await page.goto(portal.url('localhost', '/private/report'));
    await page.getByText('The reporter called on Monday about double payments.').waitFor();

    // An empty comment shows the error and sends nothing.
    await page.getByRole('button', { name: msg('private.report.comment.open') }).click();
    const dialog = page.getByRole('dialog', { name: msg('private.report.comment.title') });
    await dialog.waitFor();
    expect((await dialog.boundingBox())!.width).toBeGreaterThan(1000);
    await dialog.getByRole('button', { name: msg('private.report.comment.submit') }).click();
    await dialog.getByText(msg('private.report.comment.required')).waitFor();
    expect(await dialog.getByLabel(/Comment/).getAttribute('aria-invalid')).toBe('true');
    expect((await handlerCase(caseNumber)).comments ?? []).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByLabel(/Comment/).fill('It was Tuesday, not Monday.');
    await dialog.getByRole('button', { name: msg('private.report.comment.submit') }).click();
    await page.getByText(msg('private.report.comment.sent')).waitFor();
    expect((await handlerCase(caseNumber)).comments.map((c: any) => c.comment)).toEqual(['It was Tuesday, not Monday.']);

    // Approve is a confirmation; confirming calls the server and reloads.
    await page.getByRole('button', { name: msg('private.report.approve.open') }).click();
    const confirm = page.getByRole('alertdialog', { name: msg('private.report.approve.title') });
    await confirm.waitFor();
    expect(Math.round((await confirm.boundingBox())!.width)).toBe(816);
    expect(await axeViolations(page)).toEqual([]);
    await confirm.getByRole('button', { name: msg('private.report.approve.confirm') }).click();
    await page.getByText(msg('private.report.approved')).waitFor();
    expect((await handlerCase(caseNumber)).approvedAt).toBeTruthy();
    await page.getByText(/^You approved the record on /).waitFor();
    expect(await page.getByRole('button', { name: msg('private.report.approve.open'), exact: true }).count()).toBe(0);
  });

  it('adds an identity (an invalid one is refused and nothing is sent), then changes the password and signs in with the new one', async () => {
    const caseNumber = await newOnlineCase('old-pass');
    const { page } = await open();
    await signIn(page, caseNumber, 'old-pass', '/private/info');
    await page.getByLabel(/First and last name/).fill('Ada Lovelace');
    await page.getByLabel(/^E-mail$/).fill('ada@');
    await page.getByRole('button', { name: msg('private.info.save') }).click();
    await page.getByText(msg('private.info.invalid')).waitFor();
    expect((await handlerCase(caseNumber)).whistleblower).toBeNull();
    await page.getByLabel(/^E-mail$/).fill('ada@example.com');
    // A phone that is too short is refused too (validity from the phone input).
    const phone = page.getByLabel(/^Phone$/);
    expect(await phone.inputValue()).toMatch(/^\+44/); // spec §5: the display language's country (English: GB)
    await phone.click();
    await phone.press('Control+A');
    // Pasted with its code: the input takes Denmark (a typed + cannot replace the selected country's code).
    await phone.evaluate((el: HTMLInputElement) => {
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(el, '+451234');
      el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromPaste', data: '+451234' }));
    });
    await page.getByRole('button', { name: msg('private.info.save') }).click();
    await page.getByText(msg('private.info.phoneInvalid')).waitFor();
    expect((await handlerCase(caseNumber)).whistleblower).toBeNull();
    await phone.press('End');
    await phone.pressSequentially('5678');
    await page.getByRole('button', { name: msg('private.info.save') }).click();
    await page.getByText(msg('private.info.saved')).waitFor();
    expect((await handlerCase(caseNumber)).whistleblower).toMatchObject({ name: 'Ada Lovelace', email: 'ada@example.com', phone: '+4512345678' });
    await page.reload();
    await page.getByLabel(/First and last name/).waitFor();
    expect(await page.getByLabel(/First and last name/).isDisabled()).toBe(true);
    expect(await page.getByLabel(/First and last name/).inputValue()).toBe('Ada Lovelace');

    // Change password: confirm, logged out with the next steps told, then the next sign-in asks for a new one.
    await page.getByRole('button', { name: msg('private.info.password.change') }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: msg('private.info.password.confirm') }).click();
    await page.getByRole('heading', { level: 1, name: msg('private.password.requested.title') }).waitFor();
    expect(await page.evaluate(() => JSON.stringify(sessionStorage))).not.toMatch(/access_token/);
    await page.getByRole('link', { name: msg('private.password.requested.login') }).click();
    await page.waitForSelector('#caseNumber');
    await page.fill('#caseNumber', caseNumber);
    await page.fill('#password', 'old-pass');
    await page.press('#password', 'Enter');
    await page.waitForSelector('#newPassword');
    await page.fill('#newPassword', 'new-pass');
    await page.fill('#confirmPassword', 'new-pass');
    await page.press('#confirmPassword', 'Enter');
    await page.waitForURL((u) => u.pathname === '/private/status');
    await page.getByRole('navigation', { name: msg('private.nav.label') }).waitFor();

    // Log out from the drawer, then sign in with the new password.
    await page.getByRole('navigation', { name: msg('private.nav.label') }).getByRole('button', { name: msg('private.nav.logout') }).click();
    await page.waitForURL((u) => u.pathname === '/');
    await signIn(page, caseNumber, 'new-pass');
    expect(await heading(page)).toBe(msg('private.status.title', { caseNumber: formatCaseNumber(caseNumber) }));
  });

  it('refreshes a token that expired while the reporter was idle, without them noticing', async () => {
    const caseNumber = await newOnlineCase('idle-pass');
    const { page, requests } = await open({ clock: true });
    await signIn(page, caseNumber, 'idle-pass', '/private/messages');
    const first = await page.evaluate(() => {
      const key = Object.keys(sessionStorage).find((k) => k.startsWith('oidc.user:'))!;
      return JSON.parse(sessionStorage.getItem(key)!).access_token as string;
    });
    await page.getByLabel(msg('private.messages.label')).fill('Half-written message');
    // The access token really expires on the server (asked until it says so, about
    // ACCESS_TOKEN_TTL after the sign-in; the limit is only a guard)...
    const verify = async () => (await fetch(`${portal.server.url}/api/private/case/token/verify`, { headers: { authorization: `Bearer ${first}` } })).status;
    await expect.poll(verify, { timeout: (ACCESS_TOKEN_TTL + 30) * 1000, interval: 500 }).toBe(401);
    // ...and the chart's 60 s tick refreshes it.
    const refreshesBefore = requests.filter((r) => r.method === 'POST' && r.url.includes('/idp/realms/whistleblower/') && r.url.includes('token')).length;
    await page.clock.fastForward(60_000);
    await expect
      .poll(() => page.evaluate(() => {
        const key = Object.keys(sessionStorage).find((k) => k.startsWith('oidc.user:'))!;
        return JSON.parse(sessionStorage.getItem(key)!).access_token as string;
      }))
      .not.toBe(first);
    expect(requests.filter((r) => r.method === 'POST' && r.url.includes('/idp/realms/whistleblower/') && r.url.includes('token')).length).toBeGreaterThan(refreshesBefore);
    // Nothing happened on screen: no dialog, the draft is intact, and sending works.
    expect(await page.getByRole('alertdialog').count()).toBe(0);
    const box = page.getByLabel(msg('private.messages.label'));
    expect(await box.inputValue()).toBe('Half-written message');
    await box.press('Enter');
    await page.locator('[data-own="true"]', { hasText: 'Half-written message' }).waitFor();
    expect((await handlerCase(caseNumber)).messages.some((m: any) => m.message === 'Half-written message')).toBe(true);
  });

  it('keeps the draft when a refresh fails, and sends it after signing in again in a popup', async () => {
    const caseNumber = await newOnlineCase('expiry-pass');
    const { page } = await open({ clock: true });
    await signIn(page, caseNumber, 'expiry-pass', '/private/messages');
    const box = page.getByLabel(msg('private.messages.label'));
    await box.fill('A draft that must survive');
    // The provider forgets the case's refresh tokens, so the next refresh fails.
    const row = await portal.server.ctx.db.selectFrom('report_case').select('id').where('case_number', '=', caseNumber).executeTakeFirstOrThrow();
    await sql`delete from oidc_payload where type = 'RefreshToken' and account_key = ${portal.server.app.identity.payloadCrypto.accountKey(row.id)}`.execute(portal.server.ctx.db);
    await page.clock.fastForward(60_000);
    const dialog = page.getByRole('alertdialog', { name: msg('private.session.expired.title') });
    await dialog.waitFor();
    // Not logged out: same page, the draft is still there under the dialog.
    expect(new URL(page.url()).pathname).toBe('/private/messages');
    expect(await box.inputValue()).toBe('A draft that must survive');
    expect(await axeViolations(page)).toEqual([]);
    const [popup] = await Promise.all([
      page.waitForEvent('popup'),
      dialog.getByRole('button', { name: msg('private.session.expired.signIn') }).click(),
    ]);
    // The provider may still know this browser (then the popup closes by itself at
    // once), or ask for the case number and password again.
    const asked = await popup.waitForSelector('#caseNumber', { timeout: 5000 }).then(
      () => true,
      () => false,
    );
    if (asked) {
      await popup.fill('#caseNumber', caseNumber);
      await popup.fill('#password', 'expiry-pass');
      await popup.press('#password', 'Enter');
    }
    await dialog.waitFor({ state: 'detached' });
    expect(await box.inputValue()).toBe('A draft that must survive');
    await box.press('Enter');
    await page.locator('[data-own="true"]', { hasText: 'A draft that must survive' }).waitFor();
    expect((await handlerCase(caseNumber)).messages.some((m: any) => m.message === 'A draft that must survive')).toBe(true);
  });

  it('collapses the drawer under 1000 px, stacks the progress under 740 px, keeps five files at most, and the logo leads home to status', async () => {
    const caseNumber = await newOnlineCase('narrow-pass');
    const { page } = await open({ width: 700 });
    await signIn(page, caseNumber, 'narrow-pass');
    const nav = page.getByRole('navigation', { name: msg('private.nav.label') });
    expect((await nav.boundingBox())!.width).toBeLessThan(100);
    // The labels stay for assistive technology.
    await nav.getByRole('link', { name: msg('private.nav.messages') }).waitFor();
    const steps = page.locator('[data-status]');
    const boxes = await Promise.all([0, 1].map(async (i) => (await steps.nth(i).boundingBox())!));
    expect(boxes[1]!.y).toBeGreaterThan(boxes[0]!.y);
    expect(await axeViolations(page)).toEqual([]);
    // At most five files per message: the sixth is ignored, and so is a type not allowed.
    await page.goto(portal.url('localhost', '/private/messages'));
    const pick = page.getByLabel(/^Attach files/);
    await pick.setInputFiles(
      ['a.pdf', 'b.png', 'c.txt', 'd.csv', 'e.jpg', 'f.pdf', 'g.exe'].map((name) => ({ name, mimeType: '', buffer: Buffer.from(name) })),
    );
    const attached = page.getByRole('list', { name: msg('private.messages.attached') });
    await expect.poll(() => attached.getByRole('listitem').count()).toBe(5);
    expect(await attached.textContent()).not.toMatch(/f\.pdf|g\.exe/);
    expect(await pick.isDisabled()).toBe(true);
    // The logo leads to the private landing page.
    await page.goto(portal.url('localhost', '/private/info'));
    await page.getByRole('heading', { level: 1 }).waitFor();
    const common = JSON.parse(readFileSync(path.join(ROOT, 'src/i18n/common/en.json'), 'utf8')) as Record<string, string>;
    await page.getByRole('banner').getByRole('link', { name: common['frame.logoPrivate'] }).click();
    await page.waitForURL((u) => u.pathname === '/private/status');
  });
});
