/**
 * The enrolment-link budget as a handler meets it (server/security/abuse.ts,
 * docs/decisions/submission-abuse.md), in real Chromium against the real server: a
 * 429 while finishing keeps the form and says to wait; a 429 while opening the link
 * says to wait and offers a retry, and is never shown as a bad link.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { createHandlerAccount, enrolmentLink } from '../../server/handlers/accounts.ts';
import { companyByHost } from '../../server/companies/service.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const en = JSON.parse(readFileSync(path.join(ROOT, 'src/i18n/handler/en.json'), 'utf8')) as Record<string, string>;
const PASSWORD = 'a long handler passphrase';

let browser: Browser;
let portal: Portal;
const opened: OpenedPage[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  // One call per client: opening the link spends it.
  portal = await startPortal({ enrolRateLimit: { max: 1, windowSeconds: 600 } });
});
afterAll(async () => {
  for (const p of opened) await p.close().catch(() => undefined);
  await browser?.close();
  await portal?.server.cleanup();
});

describe('the enrolment page past the budget', () => {
  it('finishing: says to wait and keeps what was typed; opening again: says to wait, offers a retry, never "bad link"', async () => {
    const company = (await companyByHost(portal.server.ctx.db, 'localhost'))!;
    const account = await createHandlerAccount(portal.server.ctx.db, company.id, 'Limit', { email: 'limit@example.org', officers: [] });
    const link = enrolmentLink(portal.url('localhost', '/'), account.enrolmentCode!);
    const p = await openPage(browser, { locale: 'en-GB' });
    opened.push(p);
    const { page } = p;
    await page.goto(link);
    await page.getByRole('heading', { level: 1, name: en['handler.enrol.title'] }).waitFor();
    await page.getByTestId('totp-secret').waitFor();
    const password = page.getByLabel(en['handler.enrol.password']!.replace('{min}', '12'));
    await password.fill(PASSWORD);
    await page.getByLabel(en['handler.enrol.repeat']!).fill(PASSWORD);
    await page.getByLabel(en['handler.enrol.totp']!).fill('123456');
    await page.getByRole('button', { name: en['handler.enrol.submit'] }).click();
    await page.getByText(en['handler.enrol.rateLimited']!).waitFor();
    expect(await password.inputValue()).toBe(PASSWORD);
    expect(await axeViolations(page)).toEqual([]);

    // Opened afresh (a fragment change alone would not load the page again).
    await page.goto('about:blank');
    await page.goto(link);
    await page.getByRole('button', { name: en['handler.retry'] }).waitFor();
    expect(await page.getByRole('alert').innerText()).toBe(en['handler.enrol.rateLimited']);
    expect(await page.getByText(en['handler.enrol.invalid']!).count()).toBe(0);
    expect(await page.getByRole('button', { name: en['handler.retry'] }).count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
  });
});
