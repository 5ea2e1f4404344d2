/**
 * Drafts kept on the handler's device on a SEALED case (issue 38 Build 5;
 * docs/decisions/handler-drafts.md), in real Chromium against the real server with
 * SEALED_CASES=browser. Hanne enrols, makes the recovery key; a followed phone case is
 * sealed as a reporter's browser seals it. On it:
 * - a message draft and a draft of the record survive a reload (keys unlocked again, both
 *   back and said so);
 * - the server ends the session, Send is pressed: after signing in again Hanne is back on
 *   the case (not the inbox) and the message draft is there;
 * - IndexedDB, read from the page, holds no plaintext and no case number; the URL after
 *   the sign-in is the case route only, and localStorage holds none of the text.
 */
import { describe, expect, it } from 'vitest';
import { sendFollowedSealedCase } from '../helpers/sealed-case.ts';
import { browserSuite, english, enrolHandler, makeRecoveryKey, openCaseFromInbox, signInHandler, NO_THROTTLE, SEALED } from '../helpers/sealed-e2e.ts';
import { expectNoPlaintext, storedDrafts } from '../helpers/drafts-e2e.ts';
import { companyByHost } from '../../server/companies/service.ts';

const { msg } = english('handler', 'keys', 'sealed', 'drafts', 'record');
const HOST = 'group.localhost';
const HANNE = 'hanne long passphrase 1';
const s = browserSuite({ ...SEALED, ...NO_THROTTLE });

describe('drafts on a sealed case', () => {
  it('a message draft survives a reload and a server-ended session, a record draft a reload; the sign-in returns to the case; no plaintext stored', async () => {
    const { portal } = s;
    const company = (await companyByHost(portal.server.ctx.db, HOST))!;
    const officerA = company.settings.protectionOfficers[0]!.id;
    const hanne = await enrolHandler(s, HOST, { name: 'hanne', password: HANNE, officers: [officerA] });
    // One TOTP step signs in once: the second sign-in takes a recovery code the enrolment page showed.
    const recoveryCodes = (await hanne.page.getByRole('list', { name: msg('handler.enrol.recoveryTitle') }).getByRole('listitem').allTextContents()).map((c) => c.trim());
    await signInHandler(portal, HOST, hanne);
    await makeRecoveryKey(hanne.page);
    const page = hanne.page;
    const { caseNumber } = await sendFollowedSealedCase(portal.server, HOST, {
      password: 'a long phone reporter password',
      officerId: officerA,
      submissionType: 'PHONE',
      details: { whistleblowerRelation: 'Employee', reportedPersons: [] },
    });

    await openCaseFromInbox(page, caseNumber);
    await page.getByTestId('sealed-thread').waitFor({ state: 'attached' });
    const text = page.getByLabel(msg('handler.composer.text'), { exact: true });
    await text.waitFor();
    const message = 'Sehr geehrte Hinweisgeberin, wir prüfen die Kassenberichte der Filiale.';
    await text.fill(message);
    await page.getByTestId('draft-kept').waitFor();
    const record = page.getByTestId('sealed-record');
    await record.getByRole('button', { name: msg('handler.record.write') }).click();
    const recordText = 'Die Anruferin schilderte fehlende Beträge aus der Kasse im November.';
    await record.getByLabel(msg('handler.record.text'), { exact: true }).fill(recordText);
    await record.getByTestId('draft-kept').waitFor();
    await expect.poll(async () => (await storedDrafts(page)).length).toBe(2);
    expectNoPlaintext(await storedDrafts(page), [message, recordText, caseNumber]);
    expect(JSON.stringify(await page.evaluate(() => ({ ...localStorage, ...sessionStorage })))).not.toContain('Kassenberichte');

    // A reload locks the keys; unlocked, both drafts come back and say so.
    await page.reload();
    await page.getByLabel(msg('keys.unlock.secret')).fill(HANNE);
    await page.getByRole('button', { name: msg('keys.unlock.submit') }).click();
    await page.getByTestId('draft-restored').waitFor();
    expect(await page.getByTestId('draft-restored').textContent()).toBe(msg('drafts.restored'));
    expect(await text.inputValue()).toBe(message);
    await record.getByTestId('record-draft-restored').waitFor();
    expect(await record.getByLabel(msg('handler.record.text'), { exact: true }).inputValue()).toBe(recordText);

    // The server ends the session behind the page's back; typed and sent at once.
    const cookie = (await hanne.page.context().cookies()).find((c) => c.name === 'wb_handler');
    expect(cookie).toBeDefined();
    const ended = await fetch(`${portal.server.url}/api/handler/session`, { method: 'DELETE', headers: { 'x-company-host': HOST, cookie: `wb_handler=${cookie!.value}` } });
    expect(ended.status).toBeLessThan(300);
    const later = `${message} Bitte senden Sie uns die Belege.`;
    await text.fill(later);
    await page.getByRole('button', { name: msg('handler.composer.send'), exact: true }).click();
    await page.waitForURL((u) => u.pathname === '/handler');
    await page.getByText(msg('handler.signIn.expired')).waitFor();
    await expect.poll(async () => JSON.stringify(await storedDrafts(page)).length > 0).toBe(true);
    expectNoPlaintext(await storedDrafts(page), [later, recordText, caseNumber]);

    // Signing in again returns to the case, whose composer has the draft back.
    await page.getByLabel(msg('handler.signIn.email')).fill(hanne.email);
    await page.getByLabel(msg('handler.signIn.password')).fill(HANNE);
    await page.getByLabel(msg('handler.signIn.code')).fill(recoveryCodes[0]!);
    await page.getByRole('button', { name: msg('handler.signIn.submit') }).click();
    await page.waitForURL((u) => u.pathname !== '/handler');
    expect(new URL(page.url()).pathname).toBe(`/handler/cases/${caseNumber}`);
    const url = new URL(page.url());
    expect(url.search + url.hash).toBe('');
    await page.getByTestId('draft-restored').waitFor();
    expect(await text.inputValue()).toBe(later);
    expect(JSON.stringify(await page.evaluate(() => ({ ...localStorage, ...sessionStorage })))).not.toContain(caseNumber);
  });
});
