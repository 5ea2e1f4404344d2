/**
 * The company in the browser (issue 39 item 5), in real Chromium against the real
 * server, database and builds: the company's administrator changes the front-page
 * heading in two languages and the primary colour (an unreadable colour is refused
 * with a message, in the form and by the server), previews the landing page of the
 * draft in each language, saves through the confirmation, and the public page shows
 * the change; the exported company file imported again is the same company. axe on
 * the editor with every group open and on the preview (the editor in every language:
 * handler-axe-sweep.test.ts); the keyboard opens and cancels the confirmation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as OTPAuth from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { contrastRatio, LIGHT_TEXT } from '../../machines/companyFile.ts';
import { keyBundle } from '../helpers/handler-keys.ts';

const ratio = (c: string) => (Math.floor(contrastRatio(c, LIGHT_TEXT) * 100) / 100).toFixed(2);

const ROOT = path.resolve(import.meta.dirname, '../..');
const cat = (area: string, lang: string) => JSON.parse(readFileSync(path.join(ROOT, `src/i18n/${area}/${lang}.json`), 'utf8')) as Record<string, string>;
const c = cat('company', 'en');
const h = cat('handler', 'en');
const msg = (key: string, values: Record<string, string | number> = {}) => (c[key] ?? h[key])!.replace(/\{(\w+)\}/g, (_m, k: string) => String(values[k]));

const PASSWORD = 'a long administrator passphrase';
const COMPANY = 'nordlys-energi';
let browser: Browser;
let portal: Portal;
let admin: Page;
const opened: OpenedPage[] = [];

async function open(locale = 'en-GB') {
  const p = await openPage(browser, { locale });
  p.page.setDefaultTimeout(15_000);
  opened.push(p);
  return p;
}

/** The company's administrator, made by the operator (admin API), enrolled by script (a key bundle as the browser makes it), and signed in in the browser. */
async function signInAdministrator(page: Page) {
  const email = 'ada@nordlys.example';
  const made = await fetch(`${portal.server.url}/api/admin/handlers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${portal.server.ctx.adminToken}` },
    body: JSON.stringify({ company: 'localhost', name: 'Ada', email, admin: true, token: false }),
  });
  expect(made.status).toBe(201);
  const { enrolmentCode } = (await made.json()) as { enrolmentCode: string };
  const post = async (p: string, body: unknown) =>
    (await fetch(`${portal.server.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-company-host': 'localhost' }, body: JSON.stringify(body) })).json() as Promise<Record<string, any>>;
  const start = await post('/api/handler/enrolment/start', { code: enrolmentCode });
  const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(start.secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
  const fin = await post('/api/handler/enrolment/finish', { code: enrolmentCode, keys: await keyBundle(PASSWORD), totpCode: code });
  await page.goto(portal.url('localhost', '/handler'));
  await page.getByLabel(h['handler.signIn.email']!).fill(email);
  await page.getByLabel(h['handler.signIn.password']!).fill(PASSWORD);
  await page.getByLabel(h['handler.signIn.code']!).fill(fin.recoveryCodes[0]);
  await page.getByRole('button', { name: h['handler.signIn.submit'] }).click();
  await page.waitForURL((u) => u.pathname === '/handler/cases');
  await page.getByRole('link', { name: msg('handler.bar.company') }).click();
  await page.waitForURL((u) => u.pathname === '/handler/company');
  await page.getByRole('heading', { level: 1, name: msg('editor.title') }).waitFor();
}

const textCell = (page: Page, row: string, lang: string) => page.locator(`tr[data-row="${row}"] td[data-language="${lang}"] [data-field]`);
const field = (page: Page, dotted: string) => page.locator(`[data-field="${dotted}"]`);
/** The editor's own read of the company: what a save must have written. */
const editorRead = (page: Page) => page.evaluate(async (id) => (await fetch(`/api/admin/companies/${id}/editor`)).json(), COMPANY);

async function publicLook(locale: string, lang: string) {
  const p = await open(locale);
  await p.page.goto(portal.url('localhost', '/'));
  await p.page.locator('#root h1').waitFor();
  const heading = await p.page.locator('#root h1').textContent();
  const primary = await p.page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--wb-color-primary').trim());
  expect(await p.page.evaluate(() => document.documentElement.lang)).toBe(lang);
  expect(p.foreignRequests([`http://localhost:${portal.server.port}`])).toEqual([]);
  await p.close();
  return { heading, primary };
}

beforeAll(async () => {
  browser = await launchBrowser();
  portal = await startPortal();
  admin = (await open()).page;
  await signInAdministrator(admin);
}, 90_000);

afterAll(async () => {
  for (const p of opened) await p.close().catch(() => undefined);
  await browser?.close();
  await portal?.server.cleanup();
});

describe('the company editor', () => {
  it('changes the front-page heading in two languages and the colour, refuses an unreadable one, previews, saves, and the public page shows it', async () => {
    const page = admin;
    const before = await publicLook('en-GB', 'en');
    await textCell(page, 'siteFrontPage.heading', 'da').fill('Sig det til os – trygt');
    await textCell(page, 'siteFrontPage.heading', 'en').fill('Speak up – safely');

    // An unreadable primary colour: the form says why at once, and neither save nor preview is offered.
    await field(page, 'siteColors.primaryColorCode').fill('#eeeeee');
    await page.getByText(msg('rule.contrast', { ratio: ratio('#eeeeee') })).waitFor();
    expect(await field(page, 'siteColors.primaryColorCode').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('button', { name: msg('action.save'), exact: true }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: msg('action.preview') }).isDisabled()).toBe(true);
    // The server applies the same rule to the same draft.
    const refused = await page.evaluate(async (id) => {
      const e = await (await fetch(`/api/admin/companies/${id}/editor`)).json();
      e.file.siteColors.primaryColorCode = '#eeeeee';
      const r = await fetch(`/api/admin/companies/${id}/settings`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ baseVersion: e.version, file: e.file, images: e.images }) });
      return { status: r.status, body: await r.json() };
    }, COMPANY);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'INVALID_COMPANY_FILE', field: 'siteColors.primaryColorCode' });

    await field(page, 'siteColors.primaryColorCode').fill('#5a1a1a');
    await page.getByText(msg('colour.primaryOnWhite', { ratio: ratio('#5a1a1a') })).waitFor();
    expect(await page.getByTestId('company-issues').count()).toBe(0);

    // The preview: the real landing page of the draft, in each language.
    await page.getByRole('button', { name: msg('action.preview') }).click();
    const frame = page.frameLocator('[data-testid="company-preview"]');
    await frame.locator('h1').getByText('Sig det til os – trygt').waitFor();
    await page.getByLabel(msg('preview.language')).selectOption('en');
    await frame.locator('h1').getByText('Speak up – safely').waitFor();
    const previewUrl = await page.getByTestId('company-preview').getAttribute('src');
    // Nothing is saved yet.
    expect((await publicLook('en-GB', 'en')).heading).toBe(before.heading);
    await page.getByRole('button', { name: msg('action.close') }).click();

    // Save through the confirmation.
    await page.getByRole('button', { name: msg('action.save'), exact: true }).click();
    const dialog = page.getByRole('alertdialog', { name: msg('save.title') });
    await dialog.getByRole('button', { name: msg('action.save') }).click();
    await page.getByTestId('company-note').getByText(msg('note.saved')).waitFor();

    const en = await publicLook('en-GB', 'en');
    expect(en).toEqual({ heading: 'Speak up – safely', primary: '#5a1a1a' });
    expect((await publicLook('da-DK', 'da')).heading).toBe('Sig det til os – trygt');

    // The preview page itself passes axe (it is a page of its own, opened in the frame).
    const p = await open();
    await p.context.addCookies(await admin.context().cookies());
    await p.page.goto(previewUrl!);
    await p.page.locator('h1').getByText('Speak up – safely').waitFor();
    expect(await axeViolations(p.page)).toEqual([]);
    await p.close();
  });

  it('exports the company file; imported again it is the same company', async () => {
    const page = admin;
    const before = await editorRead(page);
    const exported = await page.evaluate(async (id) => (await fetch(`/api/admin/companies/${id}/export`)).json(), COMPANY);
    expect(exported.file).toEqual(before.file);
    await page.locator('input[type="file"][accept^="application/json"]').setInputFiles({ name: 'nordlys.company.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(exported)) });
    await page.getByTestId('company-note').getByText(msg('note.saved')).waitFor();
    const after = await editorRead(page);
    expect(after.version).toBe(before.version + 1);
    expect(after.file).toEqual(before.file);
    expect(after.images).toEqual(before.images);
    const again = await page.evaluate(async (id) => (await fetch(`/api/admin/companies/${id}/export`)).json(), COMPANY);
    expect(again).toEqual(exported);
  });

  it('the keyboard opens the save confirmation and Escape cancels it', async () => {
    const page = admin;
    await textCell(page, 'siteFrontPage.subHeading', 'en').fill('Typed with the keyboard');
    await page.getByRole('button', { name: msg('action.save'), exact: true }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('alertdialog', { name: msg('save.title') });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: msg('action.discard') }).click();
    expect(await textCell(page, 'siteFrontPage.subHeading', 'en').inputValue()).not.toBe('Typed with the keyboard');
  });

  it('has no axe violations with every group of texts open (each language as it opens: handler-axe-sweep.test.ts)', async () => {
    const page = admin;
    // Every page's texts open at once (one language: the table's structure is the same in all).
    await page.getByRole('heading', { level: 1, name: msg('editor.title') }).waitFor();
    const closed = page.locator('details[data-group]:not([open]) summary');
    while ((await closed.count()) > 0) await closed.first().click();
    expect(await axeViolations(page)).toEqual([]);
  });
});
