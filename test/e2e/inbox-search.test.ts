/**
 * The inbox's search over content the handler's browser opens (issue 38 Build 3;
 * docs/decisions/inbox-search.md), in real Chromium against the real server with
 * SEALED_CASES=browser. Hanne enrols, makes the recovery key; three cases are sealed as
 * the reporter's browser seals them, to her key and the recovery key; only one has the
 * word "fuel", in its description.
 *
 * The category (in words) and the reporter's language show for sealed cases, opened in
 * her browser; "fuel" typed into the search shows that case alone, and the word never
 * reaches a URL; filters and sort survive a visit to the case and back, and so does the
 * search (in memory). axe finds nothing, 390 px never scrolls sideways, and no content
 * marker is in any request or response.
 */
import { describe, expect, it } from 'vitest';
import { axeViolations } from './harness.ts';
import { sendFollowedSealedCase } from '../helpers/sealed-case.ts';
import { browserSuite, caseLinkName, english, enrolHandler, makeRecoveryKey, markersIn, signInHandler, NO_THROTTLE, SEALED } from '../helpers/sealed-e2e.ts';
import { companyByHost } from '../../server/companies/service.ts';

const { msg } = english('handler', 'work', 'search');

const HOST = 'group.localhost';
const MARKERS = { fuel: 'MARKER-fuelcard-51c3', depot: 'MARKER-depot-8e20', invoice: 'MARKER-invoice-0b7d' };
const s = browserSuite({ ...SEALED, ...NO_THROTTLE });

describe('the inbox searches sealed cases in the browser', () => {
  it('shows category and language, finds "fuel" in one sealed case only, and keeps filters, sort and search through a visit to the case', async () => {
    const { portal } = s;
    const company = (await companyByHost(portal.server.ctx.db, HOST))!;
    const officer = company.settings.protectionOfficers[0]!.id;
    const hanne = await enrolHandler(s, HOST, { name: 'hanne', password: 'hanne long passphrase 1', officers: [officer] });
    await signInHandler(portal, HOST, hanne);
    await makeRecoveryKey(hanne.page);

    const send = (description: string, violation: string, language: string) =>
      sendFollowedSealedCase(portal.server, HOST, { password: 'a long reporter password', officerId: officer, details: { description, violation, repeatedViolations: false, whistleblowerRelation: 'Employee', reportedPersons: [{ name: 'Per Olsen' }], reportedUnit: 'Garage', language } });
    const fuel = await send(`The fuel card was used for private trips ${MARKERS.fuel}`, 'FRAUD', 'de');
    const depot = await send(`Stock missing from the depot ${MARKERS.depot}`, 'THEFT', 'da');
    const invoice = await send(`Invoices were forged ${MARKERS.invoice}`, 'FORGERY', 'en');

    // The inbox by its in-app link (a full navigation would lock the keys): category and language opened here.
    const page = hanne.page;
    await page.getByRole('link', { name: msg('handler.title'), exact: true }).click();
    const row = (n: string) => page.locator(`tr[data-case="${n}"]`);
    await row(fuel.caseNumber).locator('td[data-category="FRAUD"]').getByText(msg('work.violation.FRAUD'), { exact: true }).waitFor();
    await row(fuel.caseNumber).locator('td[data-language="de"]').getByText(msg('work.languageName.de'), { exact: true }).waitFor();
    await row(depot.caseNumber).locator('td[data-category="THEFT"]').waitFor();
    await row(invoice.caseNumber).locator('td[data-language="en"]').waitFor();
    expect(await axeViolations(page)).toEqual([]);

    // "fuel": that case alone.
    const box = page.getByLabel(msg('search.label'), { exact: true });
    await box.fill('fuel');
    await page.locator('[data-search-progress="done"]').waitFor({ state: 'attached' });
    await expect.poll(() => page.locator('tr[data-case]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-case')))).toEqual([fuel.caseNumber]);
    // In capitals and with a person's name too; a word no case has shows none.
    await box.fill('FUEL olsen');
    await expect.poll(() => page.locator('tr[data-case]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-case')))).toEqual([fuel.caseNumber]);
    await box.fill('forged');
    await expect.poll(() => page.locator('tr[data-case]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-case')))).toEqual([invoice.caseNumber]);
    await box.fill('nothinglikethis');
    await page.getByText(msg('handler.inbox.empty')).waitFor();
    await box.fill('fuel');
    await expect.poll(() => page.locator('tr[data-case]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-case')))).toEqual([fuel.caseNumber]);
    expect(await axeViolations(page)).toEqual([]);

    // A filter and a sort: all cases (not only open ones), by category, descending.
    await page.getByLabel(msg('work.inbox.openOnly')).uncheck();
    await page.getByLabel(msg('work.inbox.sort'), { exact: true }).selectOption('category:desc');
    await page.waitForURL((u) => u.searchParams.get('sort') === 'category' && u.searchParams.get('dir') === 'desc' && u.searchParams.get('open') === 'all');
    expect(page.url()).not.toContain('fuel');

    // To the case and back by its "back" link: the filters, the sort and the search are as they were.
    await row(fuel.caseNumber).getByRole('link', { name: caseLinkName(fuel.caseNumber) }).click();
    await page.getByTestId('sealed-details').getByText(MARKERS.fuel, { exact: false }).waitFor();
    await page.getByRole('link', { name: msg('handler.case.back') }).click();
    await page.waitForURL((u) => u.pathname === '/handler/cases');
    const url = new URL(page.url());
    expect([url.searchParams.get('sort'), url.searchParams.get('dir'), url.searchParams.get('open')]).toEqual(['category', 'desc', 'all']);
    expect(await page.getByLabel(msg('work.inbox.openOnly')).isChecked()).toBe(false);
    expect(await page.getByLabel(msg('work.inbox.sort'), { exact: true }).inputValue()).toBe('category:desc');
    expect(await box.inputValue()).toBe('fuel');
    await expect.poll(() => page.locator('tr[data-case]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-case')))).toEqual([fuel.caseNumber]);

    // Without the search, the order is by category in words' codes, descending: THEFT, FRAUD, FORGERY.
    await box.fill('');
    await expect.poll(() => page.locator('tr[data-case]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-case')))).toEqual([depot.caseNumber, fuel.caseNumber, invoice.caseNumber]);

    // 390 px: no sideways scrolling, the search and the new columns included.
    await page.setViewportSize({ width: 390, height: 844 });
    await box.fill('fuel');
    await expect.poll(() => page.locator('tr[data-case]').count()).toBe(1);
    const w = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    expect(w.scroll).toBeLessThanOrEqual(w.client);
    expect(await axeViolations(page)).toEqual([]);

    // The word and the contents stayed in the browser: no marker anywhere on the wire, "fuel" in no URL.
    const wire = await s.recorded();
    expect(wire.some((r) => r.url.includes('/api/handler/cases/summaries'))).toBe(true);
    expect(wire.filter((r) => /fuel/i.test(r.url))).toEqual([]);
    expect(markersIn(wire, Object.values(MARKERS), { base64: false })).toEqual([]);
  }, 300_000);
});
