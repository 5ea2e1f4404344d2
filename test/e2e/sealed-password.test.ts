/**
 * The reporter's password change on a sealed case (spec §4, issue 37; docs/decisions/
 * sealed-reporter-pages.md "Password change"), in real Chromium against the real server started
 * with SEALED_CASES=browser: the reporter of a followed sealed case asks for a new
 * password in the private area, signs in with the old one, chooses the new one on the
 * provider's page (whose script re-wraps the case's data key), and the case opens. In a
 * fresh browser the new password opens it again; the old one is refused. Every request
 * and response is recorded: neither password nor either reporter key is in any of them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { axeViolations } from './harness.ts';
import { firstOfficerId } from './reporter.ts';
import { sendFollowedSealedCase } from '../helpers/sealed-case.ts';
import { browserSuite, english, recordedOf, sealingCompany, SEALED } from '../helpers/sealed-e2e.ts';
import { fromBase64, unwrapDataKey } from '../../core/crypto/index.ts';
import { REPORTER_KEY_HANDOVER } from '../../machines/config.ts';

const { en } = english('common', 'private', 'sealing');
const HOST = 'localhost';
const tag = () => randomBytes(5).toString('hex');
const MARKER = `Rewrap-${tag()}-marker`;
const OLD = `Old-${tag()}-pw`;
const NEW = `New-${tag()}-pw`;

const s = browserSuite(SEALED);
let officerId: string;

beforeAll(async () => {
  officerId = await firstOfficerId(s.portal);
  // The recovery key and a certified handler key for the officer, made here as a handler's browser would.
  await sealingCompany(s.portal, HOST, { name: 'Hanne Rewrap', officerId });
}, 60_000);

/** A followed sealed case, sealed as the report form seals it (core/crypto), under the old password. */
async function sealedCase() {
  const sealed = await sendFollowedSealedCase(s.portal.server, HOST, {
    password: OLD,
    officerId,
    details: { description: `Invoices forged: ${MARKER}`, whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: null },
    reservationHeader: true,
  });
  return { caseNumber: sealed.caseNumber, caseId: sealed.caseId, dataKey: sealed.dataKey };
}

async function signInOnPage(page: Page, caseNumber: string, password: string) {
  await page.waitForSelector('#caseNumber');
  await page.fill('#caseNumber', caseNumber);
  await page.fill('#password', password);
  await page.press('#password', 'Enter');
}

/** The report page of the private area shows the sealed details: the case opened in this browser. */
async function caseOpens(page: Page) {
  await page.getByRole('navigation', { name: en['private.nav.label'] }).waitFor();
  await page.getByRole('link', { name: en['private.nav.report'] }).first().click();
  await page.getByText(MARKER, { exact: false }).waitFor();
}

const handedKey = (page: Page) => page.evaluate((k) => (JSON.parse(sessionStorage.getItem(k) ?? 'null') as { k?: string } | null)?.k ?? null, REPORTER_KEY_HANDOVER);

describe('the password change of a sealed case', () => {
  it('asked for in the private area, chosen on the provider’s page: the case opens with the new password, the old one opens nothing; no password or key on the wire', async () => {
    const { caseNumber, caseId, dataKey } = await sealedCase();
    const { page, wire: traffic } = await s.open({ timeout: 60_000 });
    await page.goto(s.portal.url(HOST, '/private/status'));
    await signInOnPage(page, caseNumber, OLD);
    await caseOpens(page);
    const oldKey = await handedKey(page);
    expect(oldKey).toBeTruthy();

    // The private area's button is there for a sealed case; confirmed, the reporter is logged out and told what comes next.
    await page.getByRole('link', { name: en['private.nav.info'] }).first().click();
    const change = page.getByRole('button', { name: en['private.info.password.change'] });
    await expect.poll(() => change.isEnabled()).toBe(true);
    await change.click();
    await page.getByRole('alertdialog').getByRole('button', { name: en['private.info.password.confirm'] }).click();
    await page.getByRole('heading', { level: 1, name: en['private.password.requested.title'] }).waitFor();
    await page.getByRole('link', { name: en['private.password.requested.login'] }).click();

    // The old password leads to the new-password page, whose script re-wraps the case's key.
    await signInOnPage(page, caseNumber, OLD);
    await page.waitForSelector('#newPassword');
    expect(await axeViolations(page), 'new-password page of a sealed case').toEqual([]);
    await page.fill('#newPassword', NEW);
    await page.fill('#confirmPassword', NEW);
    await page.press('#confirmPassword', 'Enter');
    await page.waitForURL((u) => u.pathname.startsWith('/private/'));
    await caseOpens(page);
    const newKey = await handedKey(page);
    expect(newKey).toBeTruthy();
    expect(newKey).not.toBe(oldKey);
    // The old key stayed beside the new one only until the change was taken.
    expect(await page.evaluate((k) => Object.keys(JSON.parse(sessionStorage.getItem(k) ?? '{}')), REPORTER_KEY_HANDOVER)).toEqual(['k', 't']);

    // On the server: one reporter wrap, opened by the new key and not by the old one.
    const wraps = await s.portal.server.ctx.db.selectFrom('case_key_wrap').select(['wrap', 'epoch']).where('case_id', '=', caseId).where('kind', '=', 'reporter').execute();
    expect(wraps).toHaveLength(1);
    const aes = (b64: string) => crypto.subtle.importKey('raw', fromBase64(b64), 'AES-GCM', false, ['decrypt']);
    const at = { caseId, epoch: wraps[0]!.epoch };
    expect(Buffer.from(await unwrapDataKey(await aes(newKey!), wraps[0]!.wrap, at))).toEqual(Buffer.from(dataKey));
    await expect(unwrapDataKey(await aes(oldKey!), wraps[0]!.wrap, at)).rejects.toThrow();

    // A fresh browser: the new password opens the case; the old one is refused on the sign-in page.
    const again = await s.open({ timeout: 60_000 });
    await again.page.goto(s.portal.url(HOST, '/private/status'));
    await signInOnPage(again.page, caseNumber, NEW);
    await again.page.waitForURL((u) => u.pathname.startsWith('/private/'));
    await caseOpens(again.page);
    const other = await s.open({ timeout: 60_000 });
    await other.page.goto(s.portal.url(HOST, '/private/status'));
    await signInOnPage(other.page, caseNumber, OLD);
    await other.page.locator('#form-error, .alert[role="alert"]').first().waitFor();
    expect(other.page.url()).not.toContain('/private/');

    // Nothing of either password or either reporter key in any request or response.
    const recorded = await recordedOf(traffic, again.wire, other.wire);
    const secrets = [OLD, NEW, encodeURIComponent(OLD), encodeURIComponent(NEW), Buffer.from(OLD).toString('base64'), Buffer.from(NEW).toString('base64'), oldKey!, newKey!, encodeURIComponent(oldKey!), encodeURIComponent(newKey!)];
    const leaks = recorded.flatMap((r) => secrets.filter((s) => `${r.url}\n${JSON.stringify(r.headers)}\n${r.body}`.includes(s)).map((s) => `${s.slice(0, 8)}… in ${r.what} ${r.url}`));
    expect(leaks).toEqual([]);
    // The change went as the page's verifier and wraps.
    const change_ = recorded.find((r) => r.what === '→ POST' && /\/interaction\/[^/]+\/password/.test(r.url));
    expect(change_).toBeTruthy();
    expect(Object.keys(Object.fromEntries(new URLSearchParams(change_!.body))).sort()).toEqual(['kdf', 'salt', 'verifier', 'wraps']);
  }, 300_000);
});
