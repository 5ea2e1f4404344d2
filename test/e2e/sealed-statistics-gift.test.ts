/**
 * The statistics key for a handler certified after it was made, end to end in real
 * Chromium against the real server with SEALED_CASES=browser (docs/decisions/sealed-workspace.md
 * "The statistics key, published and counted"). Hanne makes the recovery key and the
 * statistics key; a reporter's form report seals its category to it. Bruno enrols later
 * and Hanne certifies him: his statistics page says plainly that he has no statistics key
 * yet and that Hanne can give it. Hanne gives it on her statistics page, through its
 * confirmation (the wrap sealed in her browser to Bruno's key from the verified log);
 * Bruno's page then counts the report. Bruno makes a new statistics key (rotation)
 * through its confirmation; the report stays counted. axe finds nothing on each new state.
 */
import { describe, expect, it } from 'vitest';
import { axeViolations } from './harness.ts';
import { firstOfficerId } from './reporter.ts';
import {
  browserSuite, certifyColleague, describeProblem, english, enrolHandler, fillIdentity, followAndAccept, keysPage, makeRecoveryKey, openReportForm, reportSent, sendReport, signInHandler, NO_THROTTLE, SEALED,
} from '../helpers/sealed-e2e.ts';
import { keyId } from '../../core/crypto/index.ts';

const { msg } = english('common', 'forms', 'handler', 'keys', 'statistics');

const HOST = 'localhost';
const CATEGORY = 'THEFT';

const s = browserSuite({ ...SEALED, ...NO_THROTTLE });

describe('the statistics key for a colleague certified later', () => {
  it('is missing on his page (which names who holds it), given by the holder through a confirmation, and then counts the report', async () => {
    const { portal } = s;
    const db = portal.server.ctx.db;
    const officerId = await firstOfficerId(portal);
    const hanne = await enrolHandler(s, HOST, { name: 'Hanne', password: 'hanne gives the statistics key', officers: [officerId] });
    await signInHandler(portal, HOST, hanne);
    await makeRecoveryKey(hanne.page);
    await hanne.page.getByRole('link', { name: msg('statistics.nav') }).click();
    await hanne.page.getByRole('button', { name: msg('statistics.key.make') }).click();
    await hanne.page.getByRole('alertdialog').getByRole('button', { name: msg('statistics.key.confirm') }).click();
    await hanne.page.getByTestId('statistics-total').getByText('0 reports counted').waitFor();

    // A report through the form, its category sealed to the key Hanne made.
    const { page: reporter } = await s.open();
    await openReportForm(portal, HOST, reporter);
    await describeProblem(reporter, { relation: 'Employee', violation: CATEGORY, description: 'Tools leave the depot at night.', unit: 'Depot' });
    await fillIdentity(reporter, 'anonymous');
    await followAndAccept(reporter, 'a long reporter password', { choose: true });
    await sendReport(reporter);
    await reportSent(reporter);
    expect((await db.selectFrom('case_categories').select('case_id').execute()).length).toBe(1);

    // Bruno enrols after the key was made, and Hanne certifies him.
    const bruno = await enrolHandler(s, HOST, { name: 'Bruno', password: 'bruno counts reports later', officers: [officerId] });
    await certifyColleague(hanne.page, 'Bruno');
    await signInHandler(portal, HOST, bruno);
    // The statistics page by its in-app link on the keys page.
    await keysPage(bruno.page);
    await bruno.page.getByRole('link', { name: msg('statistics.nav') }).click();
    await bruno.page.getByRole('heading', { level: 1, name: msg('statistics.title') }).waitFor();
    await bruno.page.getByTestId('statistics-state').getByText(msg('statistics.notHolder')).waitFor();
    // The English catalogue's plural, as ICU renders it for one holder.
    expect(await bruno.page.getByTestId('statistics-holders').textContent()).toBe('Hanne holds it and can give it to you on the statistics page.');
    expect(await bruno.page.getByTestId('statistics-total').count()).toBe(0);
    expect(await axeViolations(bruno.page)).toEqual([]);

    // Hanne's page offers Bruno; cancelling stores nothing, confirming gives it.
    const brunoAccount = await db.selectFrom('handler_account').select('ecdh_spki').where('email', '=', 'bruno@example.org').executeTakeFirstOrThrow();
    const brunoKeyId = await keyId(new Uint8Array(brunoAccount.ecdh_spki!));
    const brunoWraps = () => db.selectFrom('statistics_key_wrap').select('stats_key_id').where('recipient_key_id', '=', brunoKeyId).execute();
    await hanne.page.getByRole('link', { name: msg('statistics.nav') }).click();
    const giveButton = hanne.page.getByRole('button', { name: msg('statistics.give.button', { name: 'Bruno' }) });
    await giveButton.waitFor();
    expect(await axeViolations(hanne.page)).toEqual([]);
    await giveButton.click();
    const dialog = hanne.page.getByRole('alertdialog', { name: msg('statistics.give.confirmTitle', { name: 'Bruno' }) });
    await dialog.waitFor();
    expect(await axeViolations(hanne.page)).toEqual([]);
    await dialog.getByRole('button', { name: msg('statistics.give.cancel') }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await brunoWraps()).toEqual([]);
    await giveButton.click();
    await dialog.getByRole('button', { name: msg('statistics.give.confirm') }).click();
    await hanne.page.getByTestId('statistics-news').getByText(msg('statistics.give.done', { name: 'Bruno' })).waitFor();
    // Given: no longer offered.
    expect(await giveButton.count()).toBe(0);
    const key = await db.selectFrom('company_statistics_key').select('key_id').executeTakeFirstOrThrow();
    expect(await brunoWraps()).toEqual([{ stats_key_id: key.key_id }]);
    expect(await axeViolations(hanne.page)).toEqual([]);

    // Bruno's page counts the report now.
    await bruno.page.getByRole('button', { name: msg('statistics.retry') }).click();
    await bruno.page.getByTestId('statistics-total').getByText('1 report counted').waitFor();
    const violation = bruno.page.getByTestId('statistics-violation');
    expect(await violation.locator(`tr[data-category="${CATEGORY}"] td`).textContent()).toBe('1');
    expect(await axeViolations(bruno.page)).toEqual([]);

    // Bruno makes a new statistics key through its confirmation: sealed to both of them, the report still counted with the old one.
    await bruno.page.getByRole('button', { name: msg('statistics.rotate.make') }).click();
    const rotate = bruno.page.getByRole('alertdialog', { name: msg('statistics.rotate.confirmTitle') });
    await rotate.waitFor();
    expect(await axeViolations(bruno.page)).toEqual([]);
    await rotate.getByRole('button', { name: msg('statistics.rotate.confirm') }).click();
    await bruno.page.getByTestId('statistics-news').getByText(msg('statistics.rotate.done')).waitFor();
    const keys = await db.selectFrom('company_statistics_key').select(['key_id', 'replaces']).orderBy('seq').execute();
    expect(keys.map((k) => k.replaces)).toEqual([null, key.key_id]);
    expect((await db.selectFrom('statistics_key_wrap').select('recipient_key_id').where('stats_key_id', '=', keys[1]!.key_id).execute()).length).toBe(2);
    await bruno.page.getByTestId('statistics-total').getByText('1 report counted').waitFor();
    expect(await axeViolations(bruno.page)).toEqual([]);
  });
});
