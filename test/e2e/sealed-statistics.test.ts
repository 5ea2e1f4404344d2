/**
 * The statistics key end to end, in real Chromium against the real server with
 * SEALED_CASES=browser (issue 37 Build 3; docs/decisions/sealed-cases.md "The statistics
 * key"). Hanne enrols in her browser, makes the company's recovery key (which certifies
 * her), then on the statistics page makes the statistics key through its confirmation.
 * A reporter sends an online report through the form in another browser: its category
 * is sealed to that key beside the case. Hanne's page counts it (opened in her browser).
 * axe finds nothing on the page's states; the category's code is in no request or
 * response to /api/ of either browser, and in no row of the database.
 */
import { describe, expect, it } from 'vitest';
import { axeViolations } from './harness.ts';
import { firstOfficerId } from './reporter.ts';
import {
  browserSuite, databaseText, describeProblem, english, enrolHandler, fillIdentity, followAndAccept, makeRecoveryKey, openReportForm, reportSent, sendReport, signInHandler, textOf, NO_THROTTLE, SEALED,
} from '../helpers/sealed-e2e.ts';

const { msg } = english('common', 'forms', 'handler', 'keys', 'statistics');

const HOST = 'localhost';
const COMPANY = 'nordlys-energi';
const CATEGORY = 'FORGERY';
const PASSWORD = 'hanne statistics passphrase';

const s = browserSuite({ ...SEALED, ...NO_THROTTLE });
/** Every request and response to /api/ any page saw, with URL, headers and body. */
const only = (url: string) => new URL(url).pathname.startsWith('/api/');

describe('the statistics key', () => {
  it('is made on the statistics page, a report from the form seals its category to it, and the page counts it; no category in clear', async () => {
    const { portal } = s;
    const officerId = await firstOfficerId(portal);
    const hanne = await enrolHandler(s, HOST, { name: 'Hanne', email: 'hanne.stats@example.org', password: PASSWORD, officers: [officerId] }, { only });
    await signInHandler(portal, HOST, hanne);
    const { page } = hanne;

    // The recovery key first (it certifies Hanne), then the statistics page by its in-app link.
    await makeRecoveryKey(page);
    await page.getByRole('link', { name: msg('statistics.nav') }).click();
    await page.getByRole('heading', { level: 1, name: msg('statistics.title') }).waitFor();
    const make = page.getByRole('button', { name: msg('statistics.key.make') });
    await make.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    // Cancel keeps nothing; confirm makes it.
    await make.click();
    const dialog = page.getByRole('alertdialog', { name: msg('statistics.key.confirmTitle') });
    await dialog.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: msg('statistics.key.cancel') }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await portal.server.ctx.db.selectFrom('company_statistics_key').selectAll().execute()).toEqual([]);
    await make.click();
    await dialog.getByRole('button', { name: msg('statistics.key.confirm') }).click();
    await page.getByTestId('statistics-total').getByText('0 reports counted').waitFor();
    const key = await portal.server.ctx.db.selectFrom('company_statistics_key').selectAll().executeTakeFirstOrThrow();
    expect(key.company_id).toBe(COMPANY);
    expect((await portal.server.ctx.db.selectFrom('statistics_key_wrap').select('recipient_key_id').execute()).length).toBe(1);

    // A report through the form, in another browser, with a category.
    const { page: reporter } = await s.open({ only });
    await openReportForm(portal, HOST, reporter);
    await describeProblem(reporter, { relation: 'Supplier', violation: CATEGORY, description: 'Delivery notes signed by someone else.', unit: 'Warehouse' });
    await fillIdentity(reporter, 'anonymous');
    await followAndAccept(reporter, 'a long reporter password', { choose: true });
    await sendReport(reporter);
    const { caseNumber } = await reportSent(reporter);
    const row = await portal.server.ctx.db.selectFrom('report_case').select(['id', 'sealed']).where('case_number', '=', caseNumber).executeTakeFirstOrThrow();
    expect(row.sealed).toBe(true);
    const boxes = await portal.server.ctx.db.selectFrom('case_categories').selectAll().execute();
    expect(boxes.map((b) => [b.case_id, b.stats_key_id])).toEqual([[row.id, key.key_id]]);

    // Hanne counts it in her browser.
    await page.getByRole('button', { name: msg('statistics.retry') }).click();
    await page.getByTestId('statistics-total').getByText('1 report counted').waitFor();
    const violation = page.getByTestId('statistics-violation');
    await expect.poll(() => violation.locator(`tr[data-category="${CATEGORY}"] td`).textContent()).toBe('1');
    expect(await violation.locator(`tr[data-category="${CATEGORY}"] th`).textContent()).toBe(msg(`statistics.violation.${CATEGORY}`));
    expect(await page.getByTestId('statistics-channel').locator('tr[data-category="ONLINE_FORM"] td').textContent()).toBe('1');
    expect(await axeViolations(page)).toEqual([]);

    // The category's code in no request or response to /api/, and in no row.
    const wire = (await s.recorded()).map(textOf);
    expect(wire.some((w) => w.includes('/api/public/case/new/sealed'))).toBe(true);
    expect(wire.some((w) => w.includes('/api/handler/statistics'))).toBe(true);
    const forms = [CATEGORY, Buffer.from(CATEGORY).toString('base64')];
    expect(wire.filter((w) => forms.some((f) => w.includes(f))).map((w) => w.slice(0, 120))).toEqual([]);
    const db = await databaseText(portal, { base64: true });
    for (const f of forms) expect(db).not.toContain(f);
  });
});
