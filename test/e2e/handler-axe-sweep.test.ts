/**
 * axe on every route of the handlers' workspace in all seven languages (issue 38 "Done
 * when"; docs/decisions/handler-accessibility.md), in real Chromium against the real
 * server with SEALED_CASES=browser. Each route of src/handler/main.tsx's router has an
 * entry here, and the last test reads the router's paths from that file: a new route
 * without a sweep entry fails it.
 *
 * Cheap by design: each person signs in once (Ada, an administrator who handles cases
 * of the `localhost` company; Olga, the operator), moves between pages by the
 * workspace's own links (a full load would lock the keys), and changes the language
 * with the top bar's switcher, which swaps the catalogues without a reload. The cases
 * come through the server's API: two server-keyed ones made before the company has keys
 * (an online case, where Ada writes a message and a note, and a phone case with its
 * record), then, once Ada has made the
 * recovery key in her page, a sealed online case with files and a reporter's message
 * (Ada answers and writes an internal note in the page) and a sealed phone case whose
 * record she writes. Every screen is checked in each language, the main dialogs in one;
 * every violation is collected and named with its screen and language, so one run
 * shows them all. No fixed sleeps: each check waits for the page's own busy markers.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { axeViolations } from './harness.ts';
import { createOnlineCase, createPhoneCase, writeRecord } from './reporter.ts';
import { call } from '../server/api.ts';
import { Browser as ReporterBrowser, signIn as reporterSignIn } from '../server/identity-flow.ts';
import { followedAccount, publicKeyLog, sealCase, sendFollowedSealedCase } from '../helpers/sealed-case.ts';
import { browserSuite, caseLinkName, completeEnrolment, english, signInHandler, totp, NO_THROTTLE, SEALED, type PageHandler } from '../helpers/sealed-e2e.ts';
import { createHandlerAccount, enrolmentLink } from '../../server/handlers/accounts.ts';
import { companyByHost } from '../../server/companies/service.ts';
import { sealFileForUpload, sealMessage, concat } from '../../core/crypto/index.ts';
import { toBcp47 } from '../../src/i18n/message.ts';
import type { Language } from '../../machines/languages.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The top bar's name of the workspace in `lang`: it shows once that language's catalogues are in. */
const barTitle = (lang: Language) => (JSON.parse(readFileSync(path.join(ROOT, `src/i18n/handler/${lang}.json`), 'utf8')) as Record<string, string>)['handler.title']!;
/** English last: the steps between the sweeps find their controls by the English names. */
const LANGS: readonly Language[] = ['da', 'no', 'se', 'es', 'pl', 'de', 'en'];
const { msg } = english('common', 'handler', 'keys', 'sealed', 'notes', 'export', 'admin', 'statistics', 'templates', 'entry', 'record', 'company');

const HOST = 'localhost';
const OPERATOR_HOST = 'admin.localhost';
const PASSWORD = 'ada long passphrase 2026';
const REPORTER_PASSWORD = 'a long reporter password';

const s = browserSuite({ ...SEALED, ...NO_THROTTLE, operatorHost: OPERATOR_HOST });

/** Every violation of the file, `screen [language]: rule …`; each test asserts its own are none. */
let found: string[] = [];
/** The router paths the sweeps below have covered. */
const covered = new Set<string>();

/** Until the page is done loading: a heading, no busy region. */
async function settled(page: Page) {
  await page.locator('main h1, main h2').first().waitFor();
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
}

/** The top bar's language switcher (no reload: the catalogues are swapped in the page). */
async function switchTo(page: Page, lang: Language) {
  // force: behind an open modal dialog the bar is inert to the pointer, not to the switch.
  await page.locator('header select').selectOption(lang, { force: true });
  await page.waitForFunction((l) => document.documentElement.lang === l, toBcp47(lang));
  await page.locator('header a').first().getByText(barTitle(lang), { exact: true }).waitFor();
  await settled(page);
}

/** axe on what `page` shows, in every language (English last); `route`: the router path it covers. */
async function sweep(page: Page, screen: string, route?: string) {
  if (route) covered.add(route);
  for (const lang of LANGS) {
    await switchTo(page, lang);
    for (const v of await axeViolations(page)) found.push(`${screen} [${lang}]: ${v}`);
  }
}

/** axe once on the confirmation `open` raises; Escape cancels it. */
async function dialog(page: Page, screen: string, open: () => Promise<void>, role: 'alertdialog' | 'dialog' = 'alertdialog') {
  await open();
  const d = page.getByRole(role);
  await d.waitFor();
  for (const v of await axeViolations(page)) found.push(`${screen} [en]: ${v}`);
  await page.keyboard.press('Escape');
  await d.waitFor({ state: 'detached' });
}

function expectNone() {
  const mine = found;
  found = [];
  expect(mine).toEqual([]);
}

/** An in-app link by its target (a full load would lock the keys). */
async function follow(page: Page, href: string) {
  await page.locator(`a[href="${href}"]`).first().click();
  await page.waitForURL((u) => u.pathname === href);
  await settled(page);
}

let ada: PageHandler;
let companyId: string;
const cases = { serverOnline: '', serverPhone: '', sealedOnline: '', sealedPhone: '' };

describe('axe on every handler route in every language', () => {
  it('enrolment, sign-in and the keys pages', async () => {
    const { portal } = s;
    const db = portal.server.ctx.db;
    const company = (await companyByHost(db, HOST))!;
    companyId = company.id;
    const officer = company.settings.protectionOfficers[0]!.id;
    // Server-keyed: made before the company has a recovery key (afterwards the plain routes seal on arrival).
    cases.serverOnline = await createOnlineCase(portal, { officerId: officer, password: REPORTER_PASSWORD });
    cases.serverPhone = await createPhoneCase(portal, { officerId: officer, password: REPORTER_PASSWORD });
    await writeRecord(portal, cases.serverPhone, 'Phone call on Monday: the second payment was asked for.');

    const account = await createHandlerAccount(db, company.id, 'Ada', { email: 'ada@example.org', officers: [officer], roles: { admin: true, handler: true }, token: false });
    const { page } = await s.open();
    await page.goto(enrolmentLink(portal.url(HOST, ''), account.enrolmentCode!));
    await page.getByRole('heading', { level: 1, name: msg('handler.enrol.title') }).waitFor();
    await sweep(page, 'enrolment', '/handler/enrol');
    const secret = await completeEnrolment(page, PASSWORD);
    await sweep(page, 'enrolment, done');
    ada = { name: 'Ada', email: 'ada@example.org', password: PASSWORD, secret, step: 0, page };

    await page.goto(portal.url(HOST, '/handler'));
    await page.getByRole('heading', { level: 1, name: msg('handler.signIn.title') }).waitFor();
    await sweep(page, 'sign-in', '/handler');
    await signInHandler(portal, HOST, ada);
    // An enrolment link that is not (or no longer) valid, on a page of its own.
    const stale = await s.open();
    await stale.page.goto(portal.url(HOST, '/handler/enrol#not-a-valid-code-at-all-0000000000'));
    await stale.page.getByRole('alert').first().waitFor();
    await settled(stale.page);
    for (const v of await axeViolations(stale.page)) found.push(`enrolment, invalid link [en]: ${v}`);
    await stale.o.close();
    await settled(page);

    // The keys page before the company has a recovery key, the key shown once, then certified.
    await follow(page, '/handler/keys');
    await sweep(page, 'keys, no recovery key', '/handler/keys');
    await page.getByRole('button', { name: msg('keys.anchor.make') }).click();
    await page.getByRole('button', { name: msg('keys.anchor.printed') }).waitFor();
    await sweep(page, 'keys, recovery key shown once');
    await page.getByRole('button', { name: msg('keys.anchor.printed') }).click();
    await page.getByText(msg('keys.page.certified')).waitFor();
    await sweep(page, 'keys, certified');

    // After a reload the keys are locked: the unlock form above the page.
    await page.reload();
    await page.getByLabel(msg('keys.unlock.secret')).waitFor();
    await sweep(page, 'keys locked (unlock form)');
    await page.getByLabel(msg('keys.unlock.secret')).fill(PASSWORD);
    await page.getByRole('button', { name: msg('keys.unlock.submit') }).click();
    await page.getByLabel(msg('keys.unlock.secret')).waitFor({ state: 'detached' });
    expectNone();
  }, 240_000);

  it('sealed cases set up through the API, the inbox with rows, every case page, its dialogs and the export', async () => {
    const { portal } = s;
    const page = ada.page;
    const officer = (await companyByHost(portal.server.ctx.db, HOST))!.settings.protectionOfficers[0]!.id;

    // A sealed online case with an identity, two files and the reporter's message, sealed as her browser seals them.
    const account = await followedAccount(portal.server, HOST, REPORTER_PASSWORD);
    const sealed = await sealCase(await publicKeyLog(portal.server, HOST), {
      officerId: officer,
      details: { description: 'Invoices from one supplier are approved twice.', whistleblowerRelation: 'Employee in accounting', reportedPersons: [{ name: 'Jan Kowalski', jobTitle: 'Head of purchasing', phoneOrEmail: 'jan.k@example.com' }], reportedUnit: 'Purchasing' },
      whistleblower: { name: 'Ann Reporter', email: 'ann.reporter@example.com' },
      account,
    });
    const session = (await call(portal.server, 'POST', '/api/public/upload-sessions', { host: HOST, json: { sealed: true } })).data.uploadSession as string;
    const uploads: string[] = [];
    for (const [name, text] of [['ledger.txt', 'Invoice 4711 paid twice.\n'], ['minutes.txt', 'Minutes of the meeting.\n']] as const) {
      const file = await sealFileForUpload(sealed.dataKey, sealed.caseId, new Blob([text]), { name });
      const parts: Uint8Array[] = [];
      for await (const p of file.stream as unknown as AsyncIterable<Uint8Array>) parts.push(p);
      const headers = { 'tus-resumable': '1.0.0', 'x-upload-session': session };
      const meta = `fileId ${Buffer.from(file.fileId).toString('base64')},name ${Buffer.from(file.name).toString('base64')}`;
      expect((await call(portal.server, 'POST', '/api/public/uploads', { host: HOST, pow: false, headers: { ...headers, 'upload-length': String(file.size), 'upload-metadata': meta } })).status).toBe(201);
      expect((await call(portal.server, 'PATCH', `/api/public/uploads/${file.fileId}`, { host: HOST, pow: false, body: concat(...parts), headers: { ...headers, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' } })).status).toBe(204);
      uploads.push(file.fileId);
    }
    const created = await call(portal.server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: { ...sealed.body, uploads }, headers: { 'x-upload-session': session } });
    expect(created.status, JSON.stringify(created.data)).toBe(201);
    cases.sealedOnline = created.data.caseDto.caseNumber as string;
    const tokens = await reporterSignIn(new ReporterBrowser(portal.server, HOST), cases.sealedOnline, REPORTER_PASSWORD);
    expect((await call(portal.server, 'POST', '/api/private/case/messages/sealed', { host: HOST, token: tokens.access_token, json: await sealMessage(sealed.dataKey, sealed.caseId, 'The second invoice came from the same supplier.') })).status).toBe(201);
    cases.sealedPhone = (await sendFollowedSealedCase(portal.server, HOST, { password: REPORTER_PASSWORD, officerId: officer, submissionType: 'PHONE', details: { whistleblowerRelation: 'Employee', reportedPersons: [] } })).caseNumber;

    // The inbox with all four rows.
    await follow(page, '/handler/cases');
    for (const n of Object.values(cases)) await page.getByRole('link', { name: caseLinkName(n) }).waitFor();
    await sweep(page, 'inbox', '/handler/cases');

    // The server-keyed online case, with a message and a note from the handler; its status confirmation.
    await follow(page, `/handler/cases/${cases.serverOnline}`);
    await page.getByLabel(msg('handler.composer.text'), { exact: true }).fill('Thank you, we are looking into it.');
    await page.getByRole('button', { name: msg('handler.composer.send'), exact: true }).click();
    await page.getByText(msg('handler.composer.sent')).waitFor();
    await page.getByTestId('notes').getByLabel(msg('notes.new')).fill('Called the supplier back.');
    await page.getByTestId('notes').getByRole('button', { name: msg('notes.add') }).click();
    await page.getByTestId('notes').locator('[data-note]').first().waitFor();
    await settled(page);
    await sweep(page, 'server-keyed online case with a message and a note', '/handler/cases/$caseNumber');
    await dialog(page, 'server-keyed case, status confirmation', () => page.getByRole('button', { name: msg('handler.case.changeStatus') }).click());

    await follow(page, '/handler/cases');
    await follow(page, `/handler/cases/${cases.serverPhone}`);
    await page.getByText('the second payment was asked for', { exact: false }).first().waitFor();
    await sweep(page, 'server-keyed phone case with its record');

    // The sealed online case: opened in the browser, answered, an internal note written.
    await follow(page, '/handler/cases');
    await follow(page, `/handler/cases/${cases.sealedOnline}`);
    await page.getByTestId('sealed-files').getByText('ledger.txt', { exact: true }).waitFor();
    await page.getByLabel(msg('handler.composer.text'), { exact: true }).fill('Did the head of purchasing sign both?');
    await page.getByRole('button', { name: msg('handler.composer.send'), exact: true }).click();
    await page.getByText(msg('handler.composer.sent')).waitFor();
    const notes = page.getByTestId('notes');
    await notes.getByLabel(msg('notes.new')).fill('Interview planned with the head of accounting.');
    await notes.getByRole('button', { name: msg('notes.add') }).click();
    await notes.locator('[data-note]').first().waitFor();
    await settled(page);
    await sweep(page, 'sealed online case with files, messages and a note');
    await dialog(page, 'sealed case, status confirmation', () => page.getByRole('button', { name: msg('handler.case.changeStatus') }).click());
    // The export dialog, a term to black out in it.
    await page.getByRole('button', { name: msg('export.button') }).click();
    const exportDialog = page.getByRole('dialog', { name: msg('export.title') });
    await exportDialog.waitFor();
    await exportDialog.getByLabel(msg('export.term')).fill('Kowalski');
    await exportDialog.getByLabel(msg('export.term')).press('Enter');
    await exportDialog.getByRole('button', { name: msg('export.removeTerm', { term: 'Kowalski' }) }).waitFor();
    await sweep(page, 'export dialog');
    await page.keyboard.press('Escape');
    await exportDialog.waitFor({ state: 'detached' });

    // The sealed phone case, its record written in the page.
    await follow(page, '/handler/cases');
    await follow(page, `/handler/cases/${cases.sealedPhone}`);
    const record = page.getByTestId('sealed-record');
    await record.getByRole('button', { name: msg('handler.record.write') }).click();
    await record.getByLabel(msg('handler.record.text'), { exact: true }).fill('Phone call on Monday: the second payment was asked for.');
    await record.getByRole('button', { name: msg('handler.record.save') }).click();
    await record.getByTestId('record-check-1').getByText(msg('record.verified')).waitFor();
    await sweep(page, 'sealed phone case with its record');

    // A report that came another way.
    await follow(page, '/handler/cases');
    await follow(page, '/handler/cases/new');
    await sweep(page, 'case entry', '/handler/cases/new');
    expectNone();
  }, 400_000);

  it('statistics, accounts, company setup and templates, with their dialogs', async () => {
    const page = ada.page;
    await follow(page, '/handler/keys');
    await follow(page, '/handler/statistics');
    const makeKey = page.getByRole('button', { name: msg('statistics.key.make') });
    await makeKey.waitFor();
    await sweep(page, 'statistics, no key yet', '/handler/statistics');
    await dialog(page, 'statistics key, confirmation', () => makeKey.click());
    // The key made: the counts (none yet: the cases above came before it).
    await makeKey.click();
    await page.getByRole('alertdialog').getByRole('button', { name: msg('statistics.key.confirm') }).click();
    await page.getByTestId('statistics-total').waitFor();
    await sweep(page, 'statistics, counted');

    await follow(page, `/handler/admin/${encodeURIComponent(companyId)}`);
    await page.locator('tr[data-email="ada@example.org"]').waitFor();
    await sweep(page, 'accounts', '/handler/admin/$companyId');
    await page.getByRole('button', { name: msg('admin.invite.open') }).click();
    await settled(page);
    for (const v of await axeViolations(page)) found.push(`accounts, invitation form [en]: ${v}`);
    await page.getByRole('button', { name: msg('admin.cancel') }).click();
    const act = page.locator('tr[data-email] button[data-act]').first();
    await dialog(page, 'accounts, confirmation', () => act.click());

    await follow(page, '/handler/company');
    await sweep(page, 'company setup', '/handler/company');
    // Its save confirmation (a change first), then saved: the versions and the confirmation of restoring the first.
    await page.locator('tr[data-row="siteFrontPage.heading"] td[data-language="en"] [data-field]').fill('Speak up – safely');
    const save = page.getByRole('button', { name: msg('action.save'), exact: true });
    await dialog(page, 'company setup, save confirmation', () => save.click());
    await save.click();
    await page.getByRole('alertdialog').getByRole('button', { name: msg('action.save') }).click();
    await page.getByTestId('company-note').getByText(msg('note.saved')).waitFor();
    await page.getByRole('button', { name: msg('action.versions') }).click();
    const restore = page.getByRole('button', { name: msg('versions.restore', { version: 1 }) });
    await restore.waitFor();
    await settled(page);
    for (const v of await axeViolations(page)) found.push(`company setup, versions [en]: ${v}`);
    await dialog(page, 'company setup, restore confirmation', () => restore.click());

    await follow(page, '/handler/templates');
    await sweep(page, 'reply templates', '/handler/templates');
    expectNone();
  }, 300_000);

  it('the operator’s companies', async () => {
    const { portal } = s;
    const account = await createHandlerAccount(portal.server.ctx.db, null, 'Olga', { email: 'olga@example.org', token: false });
    const { page } = await s.open();
    await page.goto(enrolmentLink(portal.url(OPERATOR_HOST, ''), account.enrolmentCode!));
    const secret = await completeEnrolment(page, PASSWORD);
    await page.goto(portal.url(OPERATOR_HOST, '/handler'));
    await page.getByLabel(msg('handler.signIn.email')).fill('olga@example.org');
    await page.getByLabel(msg('handler.signIn.password')).fill(PASSWORD);
    await page.getByLabel(msg('handler.signIn.code')).fill(totp(secret, 1));
    await page.getByRole('button', { name: msg('handler.signIn.submit') }).click();
    await page.waitForURL((u) => u.pathname === '/handler/operator');
    await settled(page);
    await sweep(page, 'operator', '/handler/operator');
    expectNone();
  }, 120_000);

  // Reads what the tests above covered: run with the file, not alone.
  it('has a sweep for every route of the handler router', () => {
    const source = readFileSync(path.join(ROOT, 'src/handler/main.tsx'), 'utf8');
    const routes = [...source.matchAll(/createRoute\(\{[^}]*?path: ['"`]([^'"`]+)['"`]/g)].map((m) => m[1]!);
    // Every route read: one written so the pattern misses it fails here rather than going unswept.
    expect(routes.length).toBe(source.match(/createRoute\(/g)!.length);
    expect([...covered].sort()).toEqual([...routes].sort());
  });
});
