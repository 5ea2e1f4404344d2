/**
 * A report that came by letter, entered by a handler on a company that seals (issue 38
 * Build 8; docs/decisions/handler-entered-reports.md), in real Chromium against the real
 * server with SEALED_CASES=browser.
 *
 * Hanne enrols in her browser, makes the company's recovery key (which certifies her key)
 * and enters a letter received two days ago, the reporter wanting to follow the case: the
 * form refuses a received day in the future first, then her browser seals the report and
 * the slip shows the case number and the password once (printed; closing it asks first).
 * The case page and the inbox say "Letter". A reporter's browser signs in with the slip's
 * number and password on the provider's page, sees the report opened in her browser and
 * the clocks from the received day. No marker is in any request or response either
 * browser saw, nor in any row; axe finds nothing on the form, its refusal, the slip and
 * the confirmation; the form is sent from the keyboard.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { axeViolations } from './harness.ts';
import { signInThroughProvider } from './reporter.ts';
import { browserSuite, caseLinkName, databaseText, english, enrolHandler, makeRecoveryKey, markersIn, signInHandler, NO_THROTTLE, SEALED } from '../helpers/sealed-e2e.ts';
import { companyByHost } from '../../server/companies/service.ts';

const { msg, en } = english('handler', 'keys', 'entry', 'private', 'work');

const HOST = 'group.localhost';
const MARKERS = { description: 'MARKER-entry-description-7d2f', name: 'MARKER-entry-name-a41c', unit: 'MARKER-entry-unit-93be' };
const HANNE = 'hanne long passphrase 1';
const DAY = 24 * 3600 * 1000;
const pad = (n: number) => String(n).padStart(2, '0');
/** DD/MM/YYYY in this machine's time zone, as the pages write dates (src/i18n/dates.ts formatReceiptDate). */
const receipt = (d: Date) => `${pad(d.getDate())}/${pad(d.getMonth() + 1)}/${d.getFullYear()}`;

const LANGS = ['da', 'no', 'se', 'en', 'es', 'pl', 'de'] as const;
const cat = (area: string, lang: string) => JSON.parse(readFileSync(path.resolve(import.meta.dirname, `../../src/i18n/${area}/${lang}.json`), 'utf8')) as Record<string, string>;

const s = browserSuite({ ...SEALED, ...NO_THROTTLE });

describe('a report entered by a handler', () => {
  it('is sealed in the handler\'s browser, handed over on a slip, and the reporter signs in with it and sees the report and the clocks; the inbox says letter', async () => {
    const { portal } = s;
    const company = (await companyByHost(portal.server.ctx.db, HOST))!;
    const officerA = company.settings.protectionOfficers[0]!.id;

    const enrolled = await enrolHandler(s, HOST, { name: 'hanne', password: HANNE, officers: [officerA] });
    await signInHandler(portal, HOST, enrolled);
    await makeRecoveryKey(enrolled.page);
    const hanne = enrolled.page;

    // From the inbox, by its link.
    await hanne.getByRole('link', { name: msg('handler.title'), exact: true }).click();
    await hanne.getByRole('link', { name: msg('entry.open') }).click();
    await hanne.getByRole('heading', { level: 1, name: msg('entry.title') }).waitFor();
    expect(await axeViolations(hanne)).toEqual([]);

    const receivedOn = new Date(Date.now() - 2 * DAY).toISOString().slice(0, 10);
    const future = new Date(Date.now() + 3 * DAY).toISOString().slice(0, 10);
    await hanne.getByLabel(msg('entry.channel.label')).selectOption('LETTER');
    await hanne.getByLabel(new RegExp(`^${msg('entry.receivedOn')}`)).fill(future);
    await hanne.getByLabel(new RegExp(`^${msg('entry.relation')}`)).fill('Former driver');
    await hanne.getByLabel(msg('entry.violation')).selectOption('FRAUD');
    await hanne.getByLabel(new RegExp(`^${msg('entry.description')}`)).fill(`Fuel cards are shared. ${MARKERS.description}`);
    await hanne.getByRole('radio', { name: msg('entry.no') }).check();
    await hanne.getByLabel(msg('entry.unit')).fill(`Fleet ${MARKERS.unit}`);
    await hanne.getByRole('checkbox', { name: msg('entry.identified') }).check();
    await hanne.getByLabel(new RegExp(`^${msg('entry.name')}`)).fill(`Wanda ${MARKERS.name}`);
    expect(await hanne.getByRole('checkbox', { name: msg('entry.follow') }).isChecked()).toBe(true);

    // A day in the future is refused in the page, before anything is sent.
    const submit = hanne.getByRole('button', { name: msg('entry.submit') });
    await submit.focus();
    await hanne.keyboard.press('Enter');
    await hanne.getByText(msg('entry.receivedFuture')).waitFor();
    expect(await hanne.getByLabel(new RegExp(`^${msg('entry.receivedOn')}`)).getAttribute('aria-invalid')).toBe('true');
    expect(await axeViolations(hanne)).toEqual([]);
    expect(await portal.server.ctx.db.selectFrom('report_case').select('id').where('entry_channel', 'is not', null).execute()).toEqual([]);

    // The right day, sent from the keyboard: sealed here, the slip shows the number and the password once.
    await hanne.getByLabel(new RegExp(`^${msg('entry.receivedOn')}`)).fill(receivedOn);
    await submit.focus();
    await hanne.keyboard.press('Enter');
    const slip = hanne.getByTestId('entry-slip');
    await slip.waitFor({ timeout: 120_000 });
    const caseNumber = (await slip.getByTestId('slip-case-number').textContent())!.replace(/\s/g, '');
    const password = (await slip.getByTestId('slip-password').textContent())!.trim();
    expect(caseNumber).toMatch(/^\d{16}$/);
    expect(password).toMatch(/^[a-z2-9]{4}(-[a-z2-9]{4}){4}$/);
    await slip.getByText(msg('entry.slip.intro')).waitFor();
    expect(await axeViolations(hanne)).toEqual([]);

    // Stored sealed, with the channel; the password nowhere.
    const row = await portal.server.ctx.db.selectFrom('report_case').select(['id', 'sealed', 'wrapped_key', 'entry_channel']).where('case_number', '=', caseNumber).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ sealed: true, wrapped_key: null, entry_channel: 'LETTER' });

    // Printed; closing asks first, then the case opens.
    await hanne.evaluate(() => {
      (window as unknown as { printed: number }).printed = 0;
      window.print = () => void ((window as unknown as { printed: number }).printed += 1);
    });
    await slip.getByRole('button', { name: msg('entry.slip.print') }).click();
    expect(await hanne.evaluate(() => (window as unknown as { printed: number }).printed)).toBe(1);
    await slip.getByRole('button', { name: msg('entry.slip.close') }).click();
    const confirm = hanne.getByRole('alertdialog', { name: msg('entry.slip.confirm.title') });
    await confirm.waitFor();
    expect(await axeViolations(hanne)).toEqual([]);
    await confirm.getByRole('button', { name: msg('entry.slip.confirm.no') }).click();
    await slip.getByTestId('slip-password').waitFor();
    await slip.getByRole('button', { name: msg('entry.slip.close') }).click();
    await confirm.getByRole('button', { name: msg('entry.slip.confirm.yes') }).click();
    await hanne.waitForURL((u) => u.pathname === `/handler/cases/${caseNumber}`);
    await hanne.getByTestId('case-channel').getByText(msg('entry.channel.LETTER')).waitFor();
    await hanne.getByText(MARKERS.description, { exact: false }).first().waitFor({ timeout: 60_000 });
    await hanne.getByText(msg('entry.audit.action.CASE_ENTERED')).first().waitFor();

    // The inbox says "letter" in the case's row.
    await hanne.getByRole('link', { name: msg('handler.title'), exact: true }).click();
    const inboxRow = hanne.getByRole('row', { name: caseLinkName(caseNumber) });
    await inboxRow.waitFor();
    expect((await inboxRow.textContent())!.toLowerCase()).toContain('letter');

    // The reporter signs in with the slip on the provider's page; her browser opens the report.
    const { page: reporter } = await s.open();
    await signInThroughProvider(portal, reporter, caseNumber, password, '/private/status', { host: HOST, timeout: 120_000 });
    const received = new Date(`${receivedOn}T00:00:00.000Z`);
    await reporter.getByText(msg('private.status.clocks.title')).waitFor();
    await reporter.getByText(msg('private.status.clocks.due', { date: receipt(new Date(received.getTime() + 7 * DAY)) })).waitFor();
    expect(await axeViolations(reporter)).toEqual([]);
    await reporter.getByRole('link', { name: msg('private.nav.report') }).first().click();
    await reporter.getByText(MARKERS.description, { exact: false }).first().waitFor({ timeout: 60_000 });

    // Only envelopes went over the wire and into the database.
    const wire = await s.recorded();
    expect(markersIn(wire, Object.values(MARKERS))).toEqual([]);
    expect(markersIn(wire, [password], { base64: false })).toEqual([]);
    const db = await databaseText(portal, { base64: true });
    for (const m of [...Object.values(MARKERS), password]) expect(db).not.toContain(m);
    expect(en['entry.channel.LETTER']!.toLowerCase()).toBe('letter');
  });

  it('on a server-keyed company, in all seven languages: the form and the slip in words, axe finds nothing, every field reached by Tab, sent by Enter; the case stored server-keyed with its channel', async () => {
    const { portal } = s;
    // The demo company `localhost` has no recovery key: its cases are server-keyed.
    const company = (await companyByHost(portal.server.ctx.db, 'localhost'))!;
    const officer = company.settings.protectionOfficers[0]!.id;
    const enrolled = await enrolHandler(s, 'localhost', { name: 'petra', password: 'petra long passphrase 1', officers: [officer] });
    await signInHandler(portal, 'localhost', enrolled);
    const page = enrolled.page;
    const fields = ['entry-channel', 'entry-receivedOn', 'entry-officerId', 'entry-relation', 'entry-violation', 'entry-description', 'entry-personName', 'entry-personJobTitle', 'entry-personContact', 'entry-unit'];
    for (const [i, lang] of LANGS.entries()) {
      const te = cat('entry', lang);
      const th = cat('handler', lang);
      await page.locator('header select').first().selectOption(lang);
      await page.getByRole('link', { name: th['handler.title'], exact: true }).click();
      await page.getByRole('link', { name: te['entry.open'] }).click();
      await page.getByRole('heading', { level: 1, name: te['entry.title'] }).waitFor();
      expect(await page.locator('#entry-channel option').allTextContents(), lang).toEqual([te['entry.channel.LETTER'], te['entry.channel.EMAIL'], te['entry.channel.IN_PERSON']]);
      // axe on the form in every language: handler-axe-sweep.test.ts.
      if (i === 0) {
        // Every field is reached by Tab, in the order shown, and the send button after them.
        await page.locator('#entry-channel').focus();
        const reached: string[] = [];
        for (let n = 0; n < 40; n++) {
          const at = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.id || (document.activeElement as HTMLElement | null)?.textContent || '');
          reached.push(at);
          if (at === te['entry.submit']) break;
          await page.keyboard.press('Tab');
        }
        const order = fields.map((f) => reached.indexOf(f));
        expect(order.every((x) => x >= 0), reached.join(' | ')).toBe(true);
        expect([...order].sort((a, b) => a - b)).toEqual(order);
        expect(reached.at(-1)).toBe(te['entry.submit']);
      }
      await page.locator('#entry-channel').selectOption('EMAIL');
      await page.locator('#entry-relation').fill(`Supplier ${lang}`);
      await page.locator('#entry-description').fill(`An e-mail about invoices (${lang}).`);
      await page.locator('input[type=radio][value=yes]').check();
      await page.locator('#entry-personName').fill('Per Persson');
      await page.locator('#entry-personJobTitle').fill('Buyer');
      await page.locator('#entry-personContact').fill('per@example.org');
      await page.getByRole('button', { name: te['entry.submit'] }).focus();
      await page.keyboard.press('Enter');
      const slip = page.getByTestId('entry-slip');
      await slip.waitFor({ timeout: 60_000 });
      const caseNumber = (await slip.getByTestId('slip-case-number').textContent())!.replace(/\s/g, '');
      await slip.getByTestId('slip-password').waitFor();
      expect(await axeViolations(page), `slip ${lang}`).toEqual([]);
      await slip.getByRole('button', { name: te['entry.slip.close'] }).click();
      const confirm = page.getByRole('alertdialog', { name: te['entry.slip.confirm.title'] });
      await confirm.waitFor();
      expect(await axeViolations(page), `confirm ${lang}`).toEqual([]);
      await page.keyboard.press('Escape');
      await confirm.waitFor({ state: 'detached' });
      await slip.getByRole('button', { name: te['entry.slip.close'] }).click();
      await confirm.getByRole('button', { name: te['entry.slip.confirm.yes'] }).click();
      await page.waitForURL((u) => u.pathname === `/handler/cases/${caseNumber}`);
      await page.getByTestId('case-channel').getByText(te['entry.channel.EMAIL']!).waitFor();
      const row = await portal.server.ctx.db.selectFrom('report_case').select(['sealed', 'entry_channel']).where('case_number', '=', caseNumber).executeTakeFirstOrThrow();
      expect(row).toEqual({ sealed: false, entry_channel: 'EMAIL' });
    }
    await page.locator('header select').first().selectOption('en');
  }, 400_000);
});
