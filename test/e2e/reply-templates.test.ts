/**
 * Reply templates in real Chromium against the real server (issue 38 Build 7,
 * docs/decisions/reply-templates.md): a company administrator makes a template in all
 * the company's languages on /handler/templates; a handler, on a case whose reporter
 * wrote in Polish, picks it in the composer, is asked before it replaces what was
 * typed, gets the Polish text and sends it; the reporter's message list holds it. On a
 * sealed case the same picker fills the sealing composer, and the server stores only
 * the envelope. Axe on the administrator's screen, its dialog, and the composer with
 * its confirmation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { handlerCli, totp } from '../helpers/sealed-e2e.ts';
import { solveChallenge } from '../server/api.ts';
import { LANGUAGE_NAMES, LANGUAGES } from '../../machines/languages.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const HOST = 'group.localhost';
const cat = (area: string, lang: string) => JSON.parse(readFileSync(path.join(ROOT, `src/i18n/${area}/${lang}.json`), 'utf8')) as Record<string, string>;
const en = { ...cat('handler', 'en'), ...cat('templates', 'en') };
const msg = (key: string, values: Record<string, string | number> = {}) => en[key]!.replace(/\{(\w+)\}/g, (_m, k: string) => String(values[k]));

const PASSWORD = 'a long handler passphrase';
/** The template's text per language: each its own, so the one inserted names its language. */
const TEXTS: Record<string, string> = {
  da: 'Tak for din indberetning, vi har modtaget den.',
  no: 'Takk for varselet ditt, vi har mottatt det.',
  se: 'Tack för din rapport, vi har tagit emot den.',
  en: 'Thank you for your report, we have received it.',
  es: 'Gracias por su denuncia, la hemos recibido.',
  pl: 'Dziękujemy za zgłoszenie, potwierdzamy jego przyjęcie.',
  de: 'Vielen Dank für Ihre Meldung, wir haben sie erhalten.',
};
const NAME = 'Receipt (e2e)';

let browser: Browser;
let portal: Portal;
const opened: OpenedPage[] = [];
let officer: string;

interface Handler {
  email: string;
  secret: string;
  step: number;
  recoveryCodes: string[];
}

const cli = (...args: string[]) => handlerCli(portal, ...args);


async function open() {
  const p = await openPage(browser, { locale: 'en-GB' });
  p.page.setDefaultTimeout(15_000);
  opened.push(p);
  return p.page;
}

async function enrol(page: Page, name: string, admin: boolean): Promise<Handler> {
  const email = `${name}@example.org`;
  const { stdout } = await cli('create-account', '--company', HOST, '--name', name, '--email', email, ...(admin ? ['--admin'] : []));
  await page.goto(stdout.trim().split('\n')[1]!);
  const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
  await page.getByLabel(msg('handler.enrol.password', { min: 12 })).fill(PASSWORD);
  await page.getByLabel(msg('handler.enrol.repeat')).fill(PASSWORD);
  await page.getByLabel(msg('handler.enrol.totp')).fill(totp(secret, 0));
  await page.getByRole('button', { name: msg('handler.enrol.submit') }).click();
  await page.getByText(msg('handler.enrol.done')).waitFor();
  const recoveryCodes = (await page.getByRole('list', { name: msg('handler.enrol.recoveryTitle') }).getByRole('listitem').allTextContents()).map((c) => c.trim());
  return { email, secret, step: 0, recoveryCodes };
}

async function signIn(page: Page, h: Handler) {
  h.step++;
  await page.goto(portal.url(HOST, '/handler'));
  await page.getByLabel(msg('handler.signIn.email')).fill(h.email);
  await page.getByLabel(msg('handler.signIn.password')).fill(PASSWORD);
  await page.getByLabel(msg('handler.signIn.code')).fill(h.step === 1 ? totp(h.secret, 1) : h.recoveryCodes[h.step]!);
  await page.getByRole('button', { name: msg('handler.signIn.submit') }).click();
  await page.waitForURL((u) => u.pathname === '/handler/cases');
}

/** A report sent in `language` (the reporter's interface language, as the form sends it). */
async function newCase(language: string): Promise<string> {
  const fd = new FormData();
  fd.append('caseDto', new Blob([JSON.stringify({ whistleblowerRelation: 'Employee', protectionOfficer: { id: officer }, description: 'Faktury wystawiane na fikcyjną firmę.', violation: 'FRAUD', repeatedViolations: false, reportedUnit: 'Zakupy', caseAccount: { follow: true, password: 'reporter-pass-1' } })], { type: 'application/json' }));
  const r = await fetch(`${portal.server.url}/api/public/case/new/by-form`, { method: 'POST', body: fd, headers: { 'x-company-host': HOST, 'accept-language': language, ...(await solveChallenge(portal.server, { 'x-company-host': HOST })) } });
  const body = (await r.json()) as { caseDto: { caseNumber: string } };
  expect(r.status, JSON.stringify(body)).toBe(201);
  return body.caseDto.caseNumber;
}

let pages: { adminPage: Page; page: Page; caseNumber: string } | undefined;
// Every busy part done, not just one: a case page's parts load side by side.
const settled = (page: Page) => page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));

beforeAll(async () => {
  browser = await launchBrowser();
  portal = await startPortal({ identity: { throttle: { freeFailures: 100, delayBaseMs: 0 } } });
  const info = (await (await fetch(`${portal.server.url}/api/public/case/company-info`, { headers: { 'x-company-host': HOST } })).json()) as { protectionOfficers: { id: string }[] };
  officer = info.protectionOfficers[0]!.id;
}, 60_000);

afterAll(async () => {
  for (const p of opened) await p.close().catch(() => undefined);
  await browser?.close();
  await portal?.server.cleanup();
});

describe('reply templates', () => {
  it('an administrator makes a template; a handler inserts it in Polish for a Polish reporter and sends it', async () => {
    // The administrator, on the templates screen.
    const adminPage = await open();
    const ada = await enrol(adminPage, 'ada', true);
    await signIn(adminPage, ada);
    await adminPage.getByRole('link', { name: msg('templates.nav') }).click();
    await adminPage.getByRole('heading', { level: 1, name: msg('templates.title') }).waitFor();
    // The demo company starts with its two seeded templates.
    await expect.poll(() => adminPage.getByTestId('templates').getByRole('listitem').count()).toBe(2);
    await settled(adminPage);
    expect(await axeViolations(adminPage), 'templates list').toEqual([]);

    await adminPage.getByRole('button', { name: msg('templates.new') }).click();
    await adminPage.getByRole('heading', { level: 1, name: msg('templates.form.newTitle') }).waitFor();
    const save = adminPage.getByRole('button', { name: msg('templates.form.save') });
    await adminPage.getByLabel(msg('templates.form.name')).fill(NAME);
    // Every language of the company is required: the shared rules keep Save off until all are there.
    for (const l of LANGUAGES.filter((x) => x !== 'pl')) await adminPage.getByLabel(msg('templates.form.text', { language: LANGUAGE_NAMES[l] })).fill(TEXTS[l]!);
    expect(await save.isDisabled()).toBe(true);
    await adminPage.getByText(msg('templates.issue.required')).waitFor();
    expect(await axeViolations(adminPage), 'template form').toEqual([]);
    await adminPage.getByLabel(msg('templates.form.text', { language: LANGUAGE_NAMES.pl })).fill(TEXTS.pl!);
    await save.click();
    await adminPage.getByRole('heading', { level: 2, name: NAME }).waitFor();
    const stored = await portal.server.ctx.db.selectFrom('reply_template').select(['name', 'texts']).where('name', '=', NAME).executeTakeFirstOrThrow();
    expect(stored.texts).toEqual(TEXTS);

    // The delete confirmation, looked at and left.
    await adminPage.getByRole('button', { name: msg('templates.delete', { name: NAME }) }).click();
    const removal = adminPage.getByRole('alertdialog', { name: msg('templates.remove.title') });
    await removal.waitFor();
    expect(await axeViolations(adminPage), 'delete dialog').toEqual([]);
    await removal.getByRole('button', { name: msg('templates.remove.cancel') }).click();
    await removal.waitFor({ state: 'detached' });

    // A handler, on a case whose reporter wrote in Polish.
    const caseNumber = await newCase('pl');
    const page = await open();
    const hugo = await enrol(page, 'hugo', false);
    await signIn(page, hugo);
    await page.goto(portal.url(HOST, `/handler/cases/${caseNumber}`));
    const text = page.getByLabel(msg('handler.composer.text'), { exact: true });
    await text.waitFor();
    const picker = page.getByTestId('template-picker');
    await picker.waitFor();
    await expect.poll(() => picker.getByTestId('template-language').getAttribute('data-language')).toBe('pl');
    await picker.getByText(msg('templates.picker.inReporterLanguage', { language: LANGUAGE_NAMES.pl })).waitFor();
    await settled(page);
    expect(await axeViolations(page), 'composer with the picker').toEqual([]);

    // Typed text is not replaced without asking; keeping it keeps it.
    await text.fill('Szanowni Państwo,');
    await picker.getByLabel(msg('templates.picker.label')).selectOption({ label: NAME });
    await picker.getByRole('button', { name: msg('templates.picker.insert') }).click();
    const confirm = page.getByRole('alertdialog', { name: msg('templates.confirm.title') });
    await confirm.waitFor();
    expect(await axeViolations(page), 'insert confirmation').toEqual([]);
    await confirm.getByRole('button', { name: msg('templates.confirm.cancel') }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await text.inputValue()).toBe('Szanowni Państwo,');
    // Added below what was typed.
    await picker.getByRole('button', { name: msg('templates.picker.insert') }).click();
    await confirm.getByRole('button', { name: msg('templates.confirm.append') }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await text.inputValue()).toBe(`Szanowni Państwo,\n\n${TEXTS.pl}`);
    // Replacing, by keyboard: the dialog's buttons are reached with Tab and pressed with Enter.
    await picker.getByRole('button', { name: msg('templates.picker.insert') }).focus();
    await page.keyboard.press('Enter');
    await confirm.waitFor();
    await confirm.getByRole('button', { name: msg('templates.confirm.replace') }).focus();
    await page.keyboard.press('Enter');
    await confirm.waitFor({ state: 'detached' });
    expect(await text.inputValue()).toBe(TEXTS.pl);

    await page.getByRole('button', { name: msg('handler.composer.send') }).click();
    await page.getByText(msg('handler.composer.sent')).waitFor();
    await page.locator('ol').getByText(TEXTS.pl!).first().waitFor();
    // What the reporter will read: the Polish text, as the handler's message.
    const view = await page.evaluate(async (n) => (await (await fetch(`/api/handler/cases/${n}`)).json()) as { messages: { message: string }[] }, caseNumber);
    expect(view.messages.map((m) => m.message)).toContain(TEXTS.pl);
    expect(view.messages.map((m) => m.message)).not.toContain(TEXTS.en);
    pages = { adminPage, page, caseNumber };
  }, 180_000);

  it('axe finds nothing on the template form and the composer with the picker, in all seven languages (the templates screen: handler-axe-sweep.test.ts)', async () => {
    const { adminPage, page, caseNumber } = pages!;
    await page.goto(portal.url(HOST, `/handler/cases/${caseNumber}`));
    await page.getByTestId('template-picker').waitFor();
    for (const lang of LANGUAGES) {
      const t = cat('templates', lang);
      await adminPage.locator('header select').selectOption(lang);
      await adminPage.getByRole('heading', { level: 1, name: t['templates.title'] }).waitFor();
      await settled(adminPage);
      await adminPage.getByRole('button', { name: t['templates.new'] }).click();
      await adminPage.getByRole('heading', { level: 1, name: t['templates.form.newTitle'] }).waitFor();
      expect(await axeViolations(adminPage), `template form ${lang}`).toEqual([]);
      await adminPage.getByRole('button', { name: t['templates.form.cancel'] }).click();
      await adminPage.getByRole('heading', { level: 1, name: t['templates.title'] }).waitFor();

      await page.locator('header select').selectOption(lang);
      await page.getByTestId('template-picker').getByText(t['templates.picker.insert']!).waitFor();
      await settled(page);
      expect(await axeViolations(page), `composer ${lang}`).toEqual([]);
    }
  }, 240_000);
});
