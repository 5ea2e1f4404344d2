/**
 * A browser without the JavaScript JIT and without WebAssembly (issue 42 item 7):
 * Tor Browser's "Safer" level, played by Debian's Chromium started with
 * `--js-flags=--jitless`. At the real work factors (18 bits for a submission, the
 * default for the burst sign-in), against the real server with the built SPA, three
 * journeys: the online form sent with a file, the sign-in while the company sees a
 * burst of failed sign-ins (the page solves its proof-of-work), and the private area
 * (a message with a file to the handler, who reads it). The proofs are solved with
 * WebCrypto's native SHA-256 (core/pow.ts), which costs the same without the JIT; how
 * long they take is a figure of `npm run bench -- pow`, never asserted here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, chromiumPath, openPage, startPortal, type OpenedPage, type Portal, recordSigninBurst } from './harness.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { DEFAULT_THROTTLE } from '../../server/idp/throttle.ts';
import { formatCaseNumber } from '../../machines/schema.ts';
import { createOnlineCase, firstOfficerId } from './reporter.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as Record<string, string>;
const forms = { ...read('src/i18n/common/en.json'), ...read('src/i18n/forms/en.json') };
const priv = read('src/i18n/private/en.json');
const MOUNT = '/idp/realms/whistleblower';
const THRESHOLD = 3;
const SUBMISSION_BITS = 18;

let browser: Browser;
let portal: Portal;
let handlerToken: string;
const opened: OpenedPage[] = [];
/** Uncaught errors of any page (a worker that cannot start, a module needing WebAssembly). */
const pageErrors: string[] = [];
const DESCRIPTION = 'Pallets are sold off the books on Fridays.';
/** The case the online-form journey filed, for the next two. */
let filed: { caseNumber: string; password: string } | undefined;
/** That case, or (when that journey failed) one filed through the API, so each journey stands alone. */
async function account(): Promise<{ caseNumber: string; password: string }> {
  filed ??= { caseNumber: await createOnlineCase(portal, { officerId: await firstOfficerId(portal), password: 'no jit here please', description: DESCRIPTION }), password: 'no jit here please' };
  return filed;
}

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: chromiumPath(), args: [...CHROMIUM_ARGS, '--js-flags=--jitless'], headless: true });
  // The real work factors: the submission's production default, the sign-in's default.
  portal = await startPortal({ powDifficulty: SUBMISSION_BITS, identity: { throttle: { burstThreshold: THRESHOLD } } });
  const identity = portal.server.app.identity;
  expect(identity.settings.throttle.powDifficulty).toBe(DEFAULT_THROTTLE.powDifficulty);
  handlerToken = (await createHandlerAccount(portal.server.ctx.db, 'nordlys-energi', 'Jitless handler')).token;
  await recordSigninBurst(portal, THRESHOLD);
});
afterAll(async () => {
  for (const p of opened) await p.close().catch(() => undefined);
  await browser?.close();
  await portal?.server.cleanup();
});

async function open(): Promise<OpenedPage> {
  const p = await openPage(browser, { locale: 'en-GB' });
  opened.push(p);
  p.page.on('pageerror', (e) => pageErrors.push(`${p.page.url()}: ${e.message}`));
  return p;
}

/** What a "Safer" browser is: no WebAssembly; still a secure context on the portal's origin. */
async function expectSaferBrowser(page: Page) {
  expect(await page.evaluate(() => ({ wasm: typeof WebAssembly, secure: isSecureContext, subtle: typeof crypto.subtle }))).toEqual({
    wasm: 'undefined',
    secure: true,
    subtle: 'object',
  });
}

async function handlerCase(caseNumber: string): Promise<any> {
  const res = await fetch(`${portal.server.url}/api/handler/cases/${caseNumber}`, { headers: { authorization: `Bearer ${handlerToken}` } });
  expect(res.status).toBe(200);
  return res.json();
}

const escape = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const field = (page: Page, key: string) => page.getByLabel(new RegExp(`^${escape(forms[key]!)}\\*?$`));

describe('without the JIT and WebAssembly (Tor Browser "Safer")', () => {
  it('the online form: sent with a file at the 18-bit proof-of-work, the case holds what was typed', async () => {
    const { page, requests } = await open();
    const challenges: string[] = [];
    page.on('response', async (r) => {
      if (r.url().endsWith('/api/public/pow/challenge')) challenges.push(String(((await r.json()) as { difficulty: number }).difficulty));
    });
    await page.goto(portal.url('localhost', '/online-form'));
    await page.getByRole('heading', { level: 2 }).first().waitFor();
    await expectSaferBrowser(page);
    await field(page, 'forms.relation.label').fill('Warehouse worker');
    await field(page, 'forms.describe.violation').selectOption('FRAUD');
    await field(page, 'forms.describe.description').fill(DESCRIPTION);
    await page.locator('section', { has: page.getByRole('heading', { name: forms['forms.step.describeProblem.title'] }) }).getByRole('radio', { name: forms['forms.yes'] }).check();
    await page.getByRole('radio', { name: forms['forms.related.company'] }).check();
    await field(page, 'forms.related.unit').fill('Warehouse');
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: forms['forms.documents.choose'] }).click()]);
    await chooser.setFiles({ name: 'pallets.txt', mimeType: 'text/plain', buffer: Buffer.from('Friday 14:00, 12 pallets, no invoice.\n') });
    await expect.poll(() => page.getByText('pallets.txt').count()).toBeGreaterThan(0);
    await page.getByRole('radio', { name: forms['forms.identity.anonymous'] }).check();
    await page.getByRole('radio', { name: forms['forms.follow.follow'] }).check();
    await field(page, 'forms.follow.password').fill('no jit here please');
    await field(page, 'forms.follow.confirm').fill('no jit here please');
    await page.getByRole('checkbox', { name: new RegExp(forms['forms.terms.accept']!) }).check();
    const sendButton = page.getByRole('button', { name: forms['forms.send.online'] });
    await expect.poll(() => sendButton.isEnabled()).toBe(true);
    await sendButton.click();
    const dialog = page.getByRole('dialog', { name: forms['forms.success.online.title'] });
    await dialog.waitFor();
    const caseNumber = (await dialog.getByTestId('case-number').textContent())!.replace(/\s/g, '');
    expect(caseNumber).toMatch(/^\d{16}$/);
    expect(challenges.length).toBeGreaterThan(0);
    expect(challenges.every((d) => d === String(SUBMISSION_BITS))).toBe(true);
    const seen = await handlerCase(caseNumber);
    expect(seen).toMatchObject({ submission: { type: 'ONLINE_FORM' }, description: DESCRIPTION, reportedUnit: 'Warehouse' });
    expect(seen.files.map((f: any) => f.name)).toEqual(['pallets.txt']);
    expect(requests.filter((r) => !/^(blob|data):/.test(r.url) && new URL(r.url).origin !== new URL(portal.url('localhost')).origin)).toEqual([]);
    filed = { caseNumber, password: 'no jit here please' };
  });

  it('the sign-in during a burst: the page solves its proof-of-work and the reporter gets in', async () => {
    const { caseNumber, password } = await account();
    const { page, requests } = await open();
    await page.goto(portal.url('localhost', '/private/status'));
    await page.waitForSelector('#caseNumber');
    expect(new URL(page.url()).pathname.startsWith(`${MOUNT}/`)).toBe(true);
    expect(await page.locator('form[data-pow-challenge]').count()).toBe(1);
    await expectSaferBrowser(page);
    // Typed and sent at once: the page waits for its proof if it is not ready.
    await page.fill('#caseNumber', formatCaseNumber(caseNumber));
    await page.fill('#password', password);
    await page.press('#password', 'Enter');
    await page.waitForURL((u) => u.pathname === '/private/status');
    await page.getByRole('navigation', { name: priv['private.nav.label'] }).waitFor();
    expect(requests.some((r) => r.url.endsWith(`${MOUNT}/assets/signin-pow.worker.js`))).toBe(true);
  });

  it('the private area: reads the report, sends the handler a message with a file', async () => {
    const { caseNumber, password } = await account();
    const { page } = await open();
    await page.goto(portal.url('localhost', '/private/messages'));
    await page.waitForSelector('#caseNumber');
    await page.fill('#caseNumber', formatCaseNumber(caseNumber));
    await page.fill('#password', password);
    await page.press('#password', 'Enter');
    await page.waitForURL((u) => u.pathname === '/private/messages');
    const nav = page.getByRole('navigation', { name: priv['private.nav.label'] });
    await nav.waitFor();
    await expectSaferBrowser(page);
    const box = page.getByLabel(priv['private.messages.label']!);
    await page.getByLabel(/^Attach files/).setInputFiles({ name: 'rota.csv', mimeType: 'text/csv', buffer: Buffer.from('day;shift\nFriday;late\n') });
    await box.fill('The Friday late shift loads the van.');
    await box.press('Enter');
    await page.locator('[data-own="true"]', { hasText: 'The Friday late shift loads the van.' }).waitFor();
    const seen = await handlerCase(caseNumber);
    const mine = seen.messages.find((m: any) => m.createdByUserId === caseNumber);
    expect(mine.message).toBe('The Friday late shift loads the van.');
    expect(mine.files.map((f: any) => f.name)).toEqual(['rota.csv']);
    await nav.getByRole('link', { name: priv['private.nav.report'] }).click();
    await page.getByText(DESCRIPTION).waitFor();
  });

  it('no page had an uncaught error', () => {
    expect(pageErrors).toEqual([]);
  });
});
