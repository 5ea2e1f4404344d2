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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as OTPAuth from 'otpauth';
import type { Browser, Page, Request, Response } from 'playwright-core';
import { axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { firstOfficerId } from './reporter.ts';
import { createHandlerAccount, enrolmentLink } from '../../server/handlers/accounts.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const cat = (area: string) => JSON.parse(readFileSync(path.join(ROOT, `src/i18n/${area}/en.json`), 'utf8')) as Record<string, string>;
const en = { ...cat('common'), ...cat('forms'), ...cat('handler'), ...cat('keys'), ...cat('statistics') };
const msg = (key: string, values: Record<string, string | number> = {}) => en[key]!.replace(/\{(\w+)\}/g, (_m, k: string) => String(values[k]));
const escape = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const label = (key: string) => new RegExp(`^${escape(en[key]!)}\\*?$`);

const HOST = 'localhost';
const COMPANY = 'nordlys-energi';
const CATEGORY = 'FORGERY';
const PASSWORD = 'hanne statistics passphrase';

let browser: Browser;
let portal: Portal;
const opened: OpenedPage[] = [];
/** Every request and response to /api/ any page saw, with URL, headers and body. */
const wire: string[] = [];
const pending: Promise<unknown>[] = [];

async function open() {
  const p = await openPage(browser, { locale: 'en-GB' });
  p.page.setDefaultTimeout(30_000);
  const api = (url: string) => new URL(url).pathname.startsWith('/api/');
  p.page.on('request', (r: Request) => {
    if (api(r.url())) wire.push(`${r.method()} ${r.url()}\n${JSON.stringify(r.headers())}\n${r.postDataBuffer()?.toString('latin1') ?? ''}`);
  });
  p.page.on('response', (r: Response) => {
    if (!api(r.url()) || (r.status() >= 300 && r.status() < 400)) return;
    pending.push(
      r
        .body()
        .then((b) => wire.push(`${r.status()} ${r.url()}\n${JSON.stringify(r.headers())}\n${b.toString('latin1')}`))
        .catch(() => undefined),
    );
  });
  opened.push(p);
  return p.page;
}

const totp = (secret: string, step: number) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + step * 30_000 });

/** Every row of every table, bytes as latin1 and base64: what a copy of the database would hold. */
async function databaseText(): Promise<string> {
  const db = portal.server.ctx.db;
  const { sql } = await import('kysely');
  const tables = (await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)).rows;
  const out: string[] = [];
  for (const { table_name } of tables) {
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table_name)}`.execute(db)).rows;
    for (const row of rows) {
      for (const v of Object.values(row)) out.push(v instanceof Uint8Array ? `${Buffer.from(v).toString('latin1')}\n${Buffer.from(v).toString('base64')}` : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
    }
  }
  return out.join('\n');
}

beforeAll(async () => {
  browser = await launchBrowser();
  portal = await startPortal({ sealedCases: 'browser', identity: { throttle: { freeFailures: 100, delayBaseMs: 0 } } });
}, 60_000);

afterAll(async () => {
  for (const p of opened) await p.close().catch(() => undefined);
  await browser?.close();
  await portal?.server.cleanup();
});

describe('the statistics key', () => {
  it('is made on the statistics page, a report from the form seals its category to it, and the page counts it; no category in clear', async () => {
    const officerId = await firstOfficerId(portal);
    const account = await createHandlerAccount(portal.server.ctx.db, COMPANY, 'Hanne', { email: 'hanne.stats@example.org', officers: [officerId], token: false });
    const page = await open();
    await page.goto(enrolmentLink(portal.url(HOST, ''), account.enrolmentCode!));
    await page.getByRole('heading', { level: 1, name: msg('handler.enrol.title') }).waitFor();
    const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
    await page.getByLabel(msg('handler.enrol.password', { min: 12 })).fill(PASSWORD);
    await page.getByLabel(msg('handler.enrol.repeat')).fill(PASSWORD);
    await page.getByLabel(msg('handler.enrol.totp')).fill(totp(secret, 0));
    await page.getByRole('button', { name: msg('handler.enrol.submit') }).click();
    await page.getByText(msg('handler.enrol.done')).waitFor();
    await page.goto(portal.url(HOST, '/handler'));
    await page.getByLabel(msg('handler.signIn.email')).fill('hanne.stats@example.org');
    await page.getByLabel(msg('handler.signIn.password')).fill(PASSWORD);
    await page.getByLabel(msg('handler.signIn.code')).fill(totp(secret, 1));
    await page.getByRole('button', { name: msg('handler.signIn.submit') }).click();
    await page.waitForURL((u) => u.pathname === '/handler/cases');

    // The recovery key first (it certifies Hanne), then the statistics page by its in-app link.
    await page.getByRole('link', { name: msg('keys.nav') }).click();
    await page.getByRole('button', { name: msg('keys.anchor.make') }).click();
    await page.getByRole('button', { name: msg('keys.anchor.printed') }).click();
    await page.getByText(msg('keys.page.certified')).waitFor();
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
    const reporter = await open();
    await reporter.goto(portal.url(HOST, '/online-form'));
    await reporter.getByRole('heading', { level: 2 }).first().waitFor();
    await reporter.getByLabel(label('forms.relation.label')).fill('Supplier');
    await reporter.getByLabel(label('forms.describe.violation')).selectOption(CATEGORY);
    await reporter.getByLabel(label('forms.describe.description')).fill('Delivery notes signed by someone else.');
    const step = reporter.locator('section', { has: reporter.getByRole('heading', { name: en['forms.step.describeProblem.title'] }) });
    await step.getByRole('radio', { name: en['forms.no'] }).check();
    await reporter.getByRole('radio', { name: en['forms.related.company'] }).check();
    await reporter.getByLabel(label('forms.related.unit')).fill('Warehouse');
    await reporter.getByRole('radio', { name: en['forms.identity.anonymous'] }).check();
    await reporter.getByRole('radio', { name: en['forms.follow.follow'] }).check();
    await reporter.getByLabel(label('forms.follow.password')).fill('a long reporter password');
    await reporter.getByLabel(label('forms.follow.confirm')).fill('a long reporter password');
    await reporter.getByRole('checkbox', { name: new RegExp(en['forms.terms.accept']!) }).check();
    const send = reporter.getByRole('button', { name: en['forms.send.online'] });
    await expect.poll(() => send.isEnabled()).toBe(true);
    await send.click();
    const success = reporter.getByRole('dialog', { name: en['forms.success.online.title'] });
    await success.waitFor({ timeout: 60_000 });
    const caseNumber = (await success.getByTestId('case-number').textContent())!.replace(/ /g, '');
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
    await Promise.all(pending);
    expect(wire.some((w) => w.includes('/api/public/case/new/sealed'))).toBe(true);
    expect(wire.some((w) => w.includes('/api/handler/statistics'))).toBe(true);
    const forms = [CATEGORY, Buffer.from(CATEGORY).toString('base64')];
    expect(wire.filter((w) => forms.some((f) => w.includes(f))).map((w) => w.slice(0, 120))).toEqual([]);
    const db = await databaseText();
    for (const f of forms) expect(db).not.toContain(f);
  });
});
