/**
 * The administration in real Chromium against the real server, its build and a real
 * SMTP server (issue 39; docs/decisions/administration.md). The operator (made with the
 * real CLI, `npm run handler -- create-operator`) enrols and logs in on OPERATOR_HOST,
 * creates a company from its company file with its first administrator and is shown
 * the administrator's link once; the administrator enrols, logs in to the company's
 * accounts, invites a handler (the link arrives by mail); the handler enrols and logs
 * in; the administrator disables them (their open page and their API token stop at the
 * next request), enables them again, resets their second factor (a new link by mail,
 * the token revoked), and the handler enrols again. The trail shows every act. axe on
 * every new screen in all seven languages; the invitation by keyboard alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import * as OTPAuth from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { TestSmtp } from '../helpers/smtp.ts';
import { companyFixture } from '../server/fixtures/company.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const LANGS = ['da', 'no', 'se', 'en', 'es', 'pl', 'de'] as const;
const cat = (area: string, lang: string) => JSON.parse(readFileSync(path.join(ROOT, `src/i18n/${area}/${lang}.json`), 'utf8')) as Record<string, string>;
const en = { ...cat('handler', 'en'), ...cat('admin', 'en') };
const msg = (key: string, values: Record<string, string | number> = {}) => en[key]!.replace(/\{(\w+)\}/g, (_m, k: string) => String(values[k]));
const keysMsg = (key: string) => cat('keys', 'en')[key]!;

const OPERATOR_HOST = 'admin.localhost';
const COMPANY_HOST = 'beta.localhost';
const PASSWORD = 'a long handler passphrase';
let browser: Browser;
let portal: Portal;
let smtp: TestSmtp;
const opened: OpenedPage[] = [];

async function open() {
  const p = await openPage(browser, { locale: 'en-GB' });
  p.page.setDefaultTimeout(15_000);
  opened.push(p);
  return p;
}

function totp(secret: string, offsetSteps = 0) {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });
}

interface Person {
  email: string;
  secret: string;
  step: number;
}

/** The enrolment page as its person sees it: password twice and the first code; the browser makes the keys and shows their recovery code once. */
async function enrol(page: Page, link: string, email: string): Promise<Person> {
  await page.goto(link);
  await page.getByRole('heading', { level: 1, name: msg('handler.enrol.title') }).waitFor();
  const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
  await page.getByLabel(msg('handler.enrol.password', { min: 12 })).fill(PASSWORD);
  await page.getByLabel(msg('handler.enrol.repeat')).fill(PASSWORD);
  await page.getByLabel(msg('handler.enrol.totp')).fill(totp(secret));
  await page.getByRole('button', { name: msg('handler.enrol.submit') }).click();
  await page.getByText(msg('handler.enrol.done')).waitFor();
  await page.getByText(keysMsg('keys.enrol.loss')).waitFor();
  expect((await page.getByTestId('key-recovery-code').textContent())!.trim()).toMatch(/^([0-9A-Z]{4}-){6}[0-9A-Z]{4}$/);
  return { email, secret, step: 0 };
}

async function logIn(page: Page, host: string, p: Person, lands: (pathname: string) => boolean) {
  p.step++;
  await page.goto(portal.url(host, '/handler'));
  await page.getByLabel(msg('handler.signIn.email')).fill(p.email);
  await page.getByLabel(msg('handler.signIn.password')).fill(PASSWORD);
  await page.getByLabel(msg('handler.signIn.code')).fill(totp(p.secret, p.step));
  await page.getByRole('button', { name: msg('handler.signIn.submit') }).click();
  await page.waitForURL((u) => lands(u.pathname));
}

/** The enrolment link of the last mail to `to`, waiting for it to arrive. */
async function mailedLink(to: string, count: number): Promise<string> {
  for (let i = 0; i < 150; i++) {
    const mails = smtp.mails.filter((m) => m.to.includes(to));
    if (mails.length >= count) {
      const m = /https?:\/\/\S+\/handler\/enrol#[\w-]+/.exec(mails[count - 1]!.text);
      expect(m, mails[count - 1]!.text).not.toBeNull();
      return m![0];
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no mail to ${to}`);
}

function row(page: Page, email: string) {
  return page.locator(`tr[data-email="${email}"]`);
}

async function act(page: Page, email: string, act: string) {
  await row(page, email).locator(`button[data-act="${act}"]`).click();
  const dialog = page.getByRole('alertdialog');
  await dialog.waitFor();
  await dialog.getByRole('button', { name: msg(`admin.act.${act}`), exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
}

beforeAll(async () => {
  smtp = new TestSmtp();
  await smtp.start();
  browser = await launchBrowser();
  portal = await startPortal({ smtpUrl: smtp.url, mailFrom: 'Portal <no-reply@portal.test>', operatorHost: OPERATOR_HOST, identity: { throttle: { freeFailures: 100, delayBaseMs: 0 } } });
}, 60_000);

afterAll(async () => {
  for (const p of opened) await p.close().catch(() => undefined);
  await browser?.close();
  await portal?.server.cleanup();
  await smtp?.stop();
});

let adminPage: Page;
let admin: Person;
let hans: Person;
let hansPage: Page;
let hansToken: string;

describe('administration in the browser', () => {
  it('the operator creates a company from its file and its first administrator, shown the link once', async () => {
    const { stdout } = await run(path.join(ROOT, 'node_modules/.bin/tsx'), ['server/cli/handler.ts', '--url', portal.server.url, 'create-operator', '--name', 'Olga Operator', '--email', 'olga@portal.test'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: portal.server.dataDir, DATABASE_URL: portal.server.config.databaseUrl ?? '' },
    });
    const code = stdout.trim().split('#')[1]!;
    const o = await open();
    const olga = await enrol(o.page, portal.url(OPERATOR_HOST, `/handler/enrol#${code}`), 'olga@portal.test');
    await logIn(o.page, OPERATOR_HOST, olga, (p) => p === '/handler/operator');
    await o.page.getByRole('heading', { level: 1, name: msg('admin.operator.title') }).waitFor();

    await o.page.getByRole('button', { name: msg('admin.operator.open') }).click();
    const f = companyFixture({ id: 'beta', hosts: [COMPANY_HOST], languages: ['en', 'da'], officers: 1 });
    await o.page.getByLabel(msg('admin.operator.file')).setInputFiles({ name: 'beta.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(f.file)) });
    await o.page.getByText(msg('admin.operator.fileChosen', { name: 'beta.json' })).waitFor();
    await o.page.getByLabel(msg('admin.operator.assets')).setInputFiles(Object.entries(f.assets).map(([name, a]) => ({ name, mimeType: a.contentType, buffer: a.bytes })));
    await o.page.getByLabel(msg('admin.operator.adminName')).fill('Ada Admin');
    await o.page.getByLabel(msg('admin.operator.adminEmail')).fill('ada@beta.test');
    await o.page.getByRole('button', { name: msg('admin.operator.submit') }).click();
    await o.page.getByRole('heading', { level: 1, name: msg('admin.operator.created', { company: 'beta' }) }).waitFor();
    const link = (await o.page.getByTestId('enrolment-link').textContent())!.trim();
    expect(link).toMatch(new RegExp(`^http://beta\\.localhost:${portal.server.port}/handler/enrol#[\\w-]{43}$`));
    // Shown once: gone after "Done", and the company is listed.
    await o.page.getByRole('button', { name: msg('admin.done') }).click();
    await o.page.getByTestId('companies').getByText('beta Ltd').waitFor();
    expect(await o.page.getByTestId('enrolment-link').count()).toBe(0);

    const a = await open();
    adminPage = a.page;
    admin = await enrol(a.page, link, 'ada@beta.test');
    await logIn(a.page, COMPANY_HOST, admin, (p) => p === '/handler/admin/beta');
    await row(a.page, 'ada@beta.test').waitFor();
  });

  it('the administrator invites a handler by keyboard; the link comes by mail; the handler enrols and logs in, told of a failed attempt', async () => {
    const page = adminPage;
    await page.getByRole('button', { name: msg('admin.invite.open') }).focus();
    await page.keyboard.press('Enter');
    // The form takes the focus where it opens.
    await page.getByLabel(msg('admin.invite.name')).waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('id'))).toBe(await page.getByLabel(msg('admin.invite.name')).getAttribute('id'));
    await page.keyboard.type('Hans Handler');
    await page.keyboard.press('Tab');
    await page.keyboard.type('hans@beta.test');
    await page.keyboard.press('Enter');
    await page.getByText(msg('admin.link.mailed', { email: 'hans@beta.test' })).waitFor();
    expect(await page.getByTestId('enrolment-link').count()).toBe(0);
    await page.getByRole('button', { name: msg('admin.done') }).click();
    await row(page, 'hans@beta.test').locator('[data-state="invited"]').waitFor();

    const link = await mailedLink('hans@beta.test', 1);
    expect(link).toMatch(new RegExp(`^http://beta\\.localhost:${portal.server.port}/handler/enrol#`));
    const h = await open();
    hansPage = h.page;
    hans = await enrol(h.page, link, 'hans@beta.test');
    // Somebody else tries the address once (a verifier from a guessed password, as far as the server can tell).
    const stranger = await fetch(`${portal.server.url}/api/handler/session`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-company-host': COMPANY_HOST }, body: JSON.stringify({ email: 'hans@beta.test', verifier: randomBytes(32).toString('base64url'), code: '123456' }) });
    expect(stranger.status).toBe(401);
    await logIn(h.page, COMPANY_HOST, hans, (p) => p === '/handler/cases');
    await h.page.getByTestId('failed-signins').getByText(msg('admin.failedSignIns', { count: 1 })).waitFor();

    // A token for automation, made by the operator (admin token), works.
    const accounts = await (await fetch(`${portal.server.url}/api/admin/companies/beta/accounts`, { headers: { authorization: `Bearer ${portal.server.ctx.adminToken}` } })).json();
    const hansId = accounts.accounts.find((x: { email: string }) => x.email === 'hans@beta.test').id as string;
    const made = await (await fetch(`${portal.server.url}/api/admin/companies/beta/accounts/${hansId}/tokens`, { method: 'POST', headers: { authorization: `Bearer ${portal.server.ctx.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ label: 'export' }) })).json();
    hansToken = made.token;
    expect((await fetch(`${portal.server.url}/api/handler/cases`, { headers: { authorization: `Bearer ${hansToken}` } })).status).toBe(200);
  });

  it('disabled: the open page and the token stop at the next request; enabled and reset: a new link by mail, the handler enrols again', async () => {
    const page = adminPage;
    await page.reload();
    await row(page, 'hans@beta.test').locator('[data-state="active"]').waitFor();
    await act(page, 'hans@beta.test', 'disable');
    await row(page, 'hans@beta.test').locator('[data-state="disabled"]').waitFor();

    // The handler's next request: the page is sent to the login.
    await hansPage.getByRole('button', { name: msg('handler.inbox.reload') }).click();
    await hansPage.waitForURL((u) => u.pathname === '/handler');
    expect((await fetch(`${portal.server.url}/api/handler/cases`, { headers: { authorization: `Bearer ${hansToken}` } })).status).toBe(401);

    await act(page, 'hans@beta.test', 'enable');
    await row(page, 'hans@beta.test').locator('[data-state="active"]').waitFor();
    expect((await fetch(`${portal.server.url}/api/handler/cases`, { headers: { authorization: `Bearer ${hansToken}` } })).status).toBe(200);

    // Tokens: listed, made by the operator.
    await row(page, 'hans@beta.test').locator('button[data-act="tokens"]').click();
    await page.getByRole('heading', { level: 1, name: msg('admin.tokens.title', { name: 'Hans Handler' }) }).waitFor();
    await page.getByText(msg('admin.madeBy.operator')).waitFor();
    expect(await axeViolations(page), 'tokens').toEqual([]);
    await page.getByRole('button', { name: msg('admin.back') }).click();

    await act(page, 'hans@beta.test', 'reset');
    await page.getByText(msg('admin.link.mailed', { email: 'hans@beta.test' })).waitFor();
    await page.getByRole('button', { name: msg('admin.done') }).click();
    await row(page, 'hans@beta.test').locator('[data-state="invited"]').waitFor();
    expect((await fetch(`${portal.server.url}/api/handler/cases`, { headers: { authorization: `Bearer ${hansToken}` } })).status).toBe(401);
    const again = await mailedLink('hans@beta.test', 2);
    hans = await enrol(hansPage, again, 'hans@beta.test');
    await logIn(hansPage, COMPANY_HOST, hans, (p) => p === '/handler/cases');
    await hansPage.getByRole('heading', { level: 1, name: msg('handler.inbox.title') }).waitFor();

    // The trail names every act, newest first.
    await page.getByRole('button', { name: msg('admin.trail.open') }).click();
    await page.getByTestId('admin-trail').waitFor();
    const actions = await page.getByTestId('admin-trail').locator('td[data-action]').evaluateAll((tds) => tds.map((td) => td.getAttribute('data-action')));
    expect(actions).toEqual(['ACCOUNT_RESET', 'ACCOUNT_ENABLED', 'ACCOUNT_DISABLED', 'TOKEN_CREATED', 'ACCOUNT_INVITED', 'ACCOUNT_INVITED', 'COMPANY_CREATED']);
    await page.getByRole('button', { name: msg('admin.back') }).click();
  });

  it('axe finds nothing on the invitation, confirmation, trail and new-company screens in all seven languages (the accounts and companies screens: handler-axe-sweep.test.ts)', async () => {
    const page = adminPage;
    for (const lang of LANGS) {
      const t = cat('admin', lang);
      await page.goto(portal.url(COMPANY_HOST, '/handler/admin/beta'));
      await page.locator('header select').selectOption(lang);
      await page.getByRole('heading', { level: 1, name: t['admin.accounts.title']!.replace('{company}', 'beta Ltd') }).waitFor();
      await row(page, 'hans@beta.test').waitFor();
      await page.getByRole('button', { name: t['admin.invite.open'] }).click();
      await page.getByLabel(t['admin.invite.name']!).waitFor();
      expect(await axeViolations(page), `invite ${lang}`).toEqual([]);
      await page.getByRole('button', { name: t['admin.cancel'] }).click();
      await row(page, 'hans@beta.test').locator('button[data-act="endSessions"]').click();
      await page.getByRole('alertdialog').waitFor();
      expect(await axeViolations(page), `confirm ${lang}`).toEqual([]);
      await page.getByRole('alertdialog').getByRole('button', { name: t['admin.cancel'] }).click();
      await page.getByRole('button', { name: t['admin.trail.open'] }).click();
      await page.getByTestId('admin-trail').waitFor();
      expect(await axeViolations(page), `trail ${lang}`).toEqual([]);
    }
    await page.locator('header select').selectOption('en');

    const o = await open();
    const { stdout } = await run(path.join(ROOT, 'node_modules/.bin/tsx'), ['server/cli/handler.ts', '--url', portal.server.url, 'create-operator', '--name', 'Otto Operator', '--email', 'otto@portal.test'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: portal.server.dataDir, DATABASE_URL: portal.server.config.databaseUrl ?? '' },
    });
    // An operator logs in on a company's host too.
    const otto = await enrol(o.page, portal.url('localhost', `/handler/enrol#${stdout.trim().split('#')[1]}`), 'otto@portal.test');
    await logIn(o.page, 'localhost', otto, (p) => p === '/handler/operator');
    for (const lang of LANGS) {
      const t = cat('admin', lang);
      await o.page.goto(portal.url('localhost', '/handler/operator'));
      await o.page.locator('header select').selectOption(lang);
      await o.page.getByRole('heading', { level: 1, name: t['admin.operator.title'] }).waitFor();
      await o.page.getByTestId('companies').waitFor();
      await o.page.getByRole('button', { name: t['admin.operator.open'] }).click();
      await o.page.getByLabel(t['admin.operator.adminName']!).waitFor();
      expect(await axeViolations(o.page), `new company ${lang}`).toEqual([]);
    }
  });
});
