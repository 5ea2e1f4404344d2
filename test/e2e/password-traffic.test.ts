/**
 * The reporter's password never leaves Chromium (issue 37): a real recording of every
 * request the browser makes, URL, every header and the body, while a reporter makes
 * an oral report through the SPA's form, signs in on the embedded provider's page,
 * asks for a new password and sets it there. Neither password appears anywhere, in
 * clear, URL-encoded or JSON-escaped; what went instead is the reservation, the
 * salt/kdf look-up and a verifier. The reporter key the sign-in page handed to the
 * SPA (this tab's sessionStorage) is the one core/crypto derives for the case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { Browser, Request } from 'playwright-core';
import { launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { deriveReporterKeys, type Kdf } from '../../core/crypto/index.ts';
import { REPORTER_KEY_HANDOVER } from '../../machines/config.ts';

const read = (area: string) => JSON.parse(readFileSync(path.resolve(import.meta.dirname, `../../src/i18n/${area}/en.json`), 'utf8')) as Record<string, string>;
const en = { ...read('common'), ...read('forms'), ...read('private') };
const HOST = 'group.localhost';
const escape = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A text field by its whole label (required fields add an asterisk). */
const label = (key: string) => new RegExp(`^${escape(en[key]!)}\\*?$`);

let browser: Browser;
let portal: Portal;
let opened: OpenedPage | undefined;
beforeAll(async () => {
  [browser, portal] = await Promise.all([launchBrowser(), startPortal()]);
});
afterAll(async () => {
  await opened?.close().catch(() => {});
  await browser?.close();
  await portal?.server.cleanup();
});

interface Recorded {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

/** What the reporter key seals (it is non-extractable in core): the same ciphertext means the same key. */
async function fingerprint(key: CryptoKey): Promise<string> {
  return Buffer.from(await crypto.subtle.encrypt({ name: 'AES-GCM', iv: new Uint8Array(12) }, key, new Uint8Array(32))).toString('base64');
}

async function accountOf(caseNumber: string) {
  return portal.server.ctx.db
    .selectFrom('case_account')
    .innerJoin('report_case', 'report_case.id', 'case_account.case_id')
    .select(['case_account.salt', 'case_account.kdf'])
    .where('report_case.case_number', '=', caseNumber)
    .executeTakeFirstOrThrow();
}

async function expectHandedOverKey(page: import('playwright-core').Page, caseNumber: string, password: string) {
  const item = await page.evaluate((k) => sessionStorage.getItem(k), REPORTER_KEY_HANDOVER);
  expect(item).toBeTruthy();
  const { k } = JSON.parse(item!) as { k: string };
  const account = await accountOf(caseNumber);
  const expected = await deriveReporterKeys({ caseNumber, password, salt: account.salt!, kdf: JSON.parse(account.kdf!) as Kdf });
  const handed = await crypto.subtle.importKey('raw', Buffer.from(k, 'base64'), 'AES-GCM', false, ['encrypt']);
  expect(await fingerprint(handed)).toBe(await fingerprint(expected.reporterKey));
  // Never in a cookie or the address.
  expect(page.url()).not.toContain(k);
  expect(JSON.stringify(await page.context().cookies())).not.toContain(k.slice(0, 20));
  return k;
}

describe('the password in the browser’s traffic', () => {
  it('an oral report, a sign-in and a password change send neither password in any URL, header or body', async () => {
    const oldPassword = `Old-${randomBytes(6).toString('hex')}-pw`;
    const newPassword = `New-${randomBytes(6).toString('hex')}-pw`;
    opened = await openPage(browser, { locale: 'en-GB' });
    const { page, context } = opened;
    const pending: Promise<Recorded>[] = [];
    context.on('request', (req: Request) => {
      pending.push(
        req.allHeaders().then((headers) => ({ url: req.url(), method: req.method(), headers, body: req.postDataBuffer()?.toString('latin1') ?? '' })),
      );
    });

    // The report, through the SPA's form.
    await page.goto(portal.url(HOST, '/oral-report'));
    await page.getByRole('heading', { level: 2 }).first().waitFor();
    const stepOf = (key: string) => page.locator('section', { has: page.getByRole('heading', { name: en[`forms.step.${key}.title`] }) });
    await page.getByLabel(label('forms.subsidiary.label')).selectOption('fjord-seafood');
    await stepOf('protectionOfficer').getByRole('radio').nth(1).check();
    await page.getByLabel(label('forms.relation.label')).fill('Deckhand');
    await page.getByRole('radio', { name: en['forms.identity.anonymous'] }).check();
    await page.getByLabel(label('forms.follow.password')).fill(oldPassword);
    await page.getByLabel(label('forms.follow.confirm')).fill(oldPassword);
    await page.getByRole('checkbox', { name: new RegExp(en['forms.terms.accept']!) }).check();
    const sendButton = page.getByRole('button', { name: en['forms.send.oral'] });
    await expect.poll(() => sendButton.isEnabled()).toBe(true);
    await sendButton.click();
    const dialog = page.getByRole('dialog', { name: en['forms.success.oral.title'] });
    await dialog.waitFor({ timeout: 60_000 });
    const caseNumber = (await dialog.getByTestId('case-number').textContent())!.replace(/ /g, '');

    // Sign-in on the provider's page (the number handed over by the success dialog).
    await dialog.getByRole('button', { name: en['forms.success.login'] }).click();
    await page.waitForSelector('#caseNumber');
    expect((await page.inputValue('#caseNumber')).replace(/ /g, '')).toBe(caseNumber);
    await page.fill('#password', oldPassword);
    await page.press('#password', 'Enter');
    await page.waitForURL((u) => u.pathname.startsWith('/private/'), { timeout: 60_000 });
    await page.getByRole('navigation', { name: en['private.nav.label'] }).waitFor();
    const firstKey = await expectHandedOverKey(page, caseNumber, oldPassword);

    // The password change (spec §4): asked for in the private area, set on the provider's page.
    await page.goto(portal.url(HOST, '/private/info'));
    await page.getByRole('button', { name: en['private.info.password.change'] }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: en['private.info.password.confirm'] }).click();
    await page.getByRole('heading', { level: 1, name: en['private.password.requested.title'] }).waitFor();
    await page.getByRole('link', { name: en['private.password.requested.login'] }).click();
    await page.waitForSelector('#caseNumber');
    await page.fill('#caseNumber', caseNumber);
    await page.fill('#password', oldPassword);
    await page.press('#password', 'Enter');
    await page.waitForSelector('#newPassword');
    await page.fill('#newPassword', newPassword);
    await page.fill('#confirmPassword', newPassword);
    await page.press('#confirmPassword', 'Enter');
    await page.waitForURL((u) => u.pathname === '/private/status', { timeout: 60_000 });
    await page.getByRole('navigation', { name: en['private.nav.label'] }).waitFor();
    const secondKey = await expectHandedOverKey(page, caseNumber, newPassword);
    expect(secondKey).not.toBe(firstKey);

    const traffic = await Promise.all(pending);
    const forms = (p: string) => [p, encodeURIComponent(p), JSON.stringify(p).slice(1, -1), Buffer.from(p).toString('base64')];
    const needles = [...forms(oldPassword), ...forms(newPassword)];
    for (const r of traffic) {
      const where = `${r.method} ${r.url}`;
      for (const n of needles) {
        expect(r.url, where).not.toContain(n);
        expect(JSON.stringify(r.headers), where).not.toContain(n);
        expect(r.body, where).not.toContain(n);
      }
    }
    // What went instead: the reservation, the salt look-ups, and verifiers.
    const posts = traffic.filter((r) => r.method === 'POST').map((r) => new URL(r.url).pathname);
    expect(posts).toContain('/api/public/case/reservation');
    expect(posts).toContain('/api/public/case/new/by-phone');
    expect(posts.filter((p) => p === '/idp/realms/whistleblower/signin/kdf').length).toBeGreaterThanOrEqual(2);
    const logins = traffic.filter((r) => r.method === 'POST' && /\/interaction\/[^/]+\/login/.test(r.url));
    expect(logins.length).toBe(2);
    for (const l of logins) expect(new URLSearchParams(l.body).get('verifier')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const change = traffic.find((r) => r.method === 'POST' && /\/interaction\/[^/]+\/password/.test(r.url))!;
    expect(new URLSearchParams(change.body).get('verifier')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const created = traffic.find((r) => r.url.endsWith('/api/public/case/new/by-phone'))!;
    expect(JSON.parse(created.body).caseAccount).toMatchObject({ follow: true, verifier: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
  });
});
