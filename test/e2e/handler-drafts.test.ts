/**
 * Drafts kept on the handler's device (issue 38 Build 5; docs/decisions/handler-drafts.md)
 * in real Chromium against the real server, on a server-keyed case (the company has no
 * recovery key, so its cases are not sealed; the draft is sealed on the device either way,
 * to the handler's own key, whatever the case's keying):
 * - a message draft survives a reload (the keys unlocked again, the draft back and said so);
 * - typing counts as activity, the idle notice takes no focus from the text, and the draft
 *   survives the idle sign-out (the page's clock fast-forwarded);
 * - the server ends the session, Send is pressed: nothing is lost, after signing in the
 *   text is there; sending it then deletes it;
 * - a draft of an oral report's record survives a reload too; saving it deletes it;
 * - a sign-out by choice discards the handler's drafts on this device;
 * - IndexedDB, read from the page, holds no plaintext of any draft, no case number and
 *   nothing of the session; localStorage holds none of the text either.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { handlerCli, totp } from '../helpers/sealed-e2e.ts';
import { solveChallenge } from '../server/api.ts';
import { expectNoPlaintext, storedDrafts } from '../helpers/drafts-e2e.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const HOST = 'group.localhost';
const cat = (area: string, lang: string) => JSON.parse(readFileSync(path.join(ROOT, `src/i18n/${area}/${lang}.json`), 'utf8')) as Record<string, string>;
const en = { ...cat('handler', 'en'), ...cat('keys', 'en'), ...cat('drafts', 'en') };
const msg = (key: string, values: Record<string, string | number> = {}) => en[key]!.replace(/\{(\w+)\}/g, (_m, k: string) => String(values[k]));

const PASSWORD = 'a long handler passphrase';
let browser: Browser;
let portal: Portal;
const opened: OpenedPage[] = [];

interface Handler {
  email: string;
  secret: string;
  step: number;
  recoveryCodes: string[];
}

const cli = (...args: string[]) => handlerCli(portal, ...args);


async function open() {
  const p = await openPage(browser, { locale: 'en-GB' });
  p.page.setDefaultTimeout(15_000);
  opened.push(p);
  return p;
}

async function enrol(page: Page, name: string): Promise<Handler> {
  const email = `${name}@example.org`;
  const { stdout } = await cli('create-account', '--company', HOST, '--name', name, '--email', email);
  await page.goto(stdout.trim().split('\n')[1]!);
  const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
  await page.getByLabel(msg('handler.enrol.password', { min: 12 })).fill(PASSWORD);
  await page.getByLabel(msg('handler.enrol.repeat')).fill(PASSWORD);
  await page.getByLabel(msg('handler.enrol.totp')).fill(totp(secret, 0));
  await page.getByRole('button', { name: msg('handler.enrol.submit') }).click();
  await page.getByText(msg('handler.enrol.done')).waitFor();
  const recoveryCodes = (await page.getByRole('list', { name: msg('handler.enrol.recoveryTitle') }).getByRole('listitem').allTextContents()).map((c) => c.trim());
  return { email, secret, step: 0, recoveryCodes };
}

/** The first sign-in with the app's next code; later ones with a recovery code each (one TOTP step signs in once). */
async function signIn(page: Page, h: Handler, opts: { goto?: boolean; back?: string } = {}) {
  h.step++;
  const code = h.step === 1 ? totp(h.secret, 1) : h.recoveryCodes[h.step]!;
  if (opts.goto !== false) await page.goto(portal.url(HOST, '/handler'));
  await page.getByLabel(msg('handler.signIn.email')).fill(h.email);
  await page.getByLabel(msg('handler.signIn.password')).fill(PASSWORD);
  await page.getByLabel(msg('handler.signIn.code')).fill(code);
  await page.getByRole('button', { name: msg('handler.signIn.submit') }).click();
  // After the idle or server-ended sign-out the workspace returns to the case (`back`), else the inbox.
  await page.waitForURL((u) => u.pathname === (opts.back ? `/handler/cases/${opts.back}` : '/handler/cases'));
}

async function newCase(officerId: string): Promise<string> {
  const fd = new FormData();
  fd.append('caseDto', new Blob([JSON.stringify({ whistleblowerRelation: 'Employee', protectionOfficer: { id: officerId }, description: 'Fuel cards used privately.', violation: 'OTHER_OFFENCE', repeatedViolations: true, reportedUnit: 'Fleet', caseAccount: { follow: true, password: 'reporter-pass-1' } })], { type: 'application/json' }));
  const r = await fetch(`${portal.server.url}/api/public/case/new/by-form`, { method: 'POST', body: fd, headers: { 'x-company-host': HOST, ...(await solveChallenge(portal.server, { 'x-company-host': HOST })) } });
  const body = (await r.json()) as { caseDto: { caseNumber: string } };
  expect(r.status, JSON.stringify(body)).toBe(201);
  return body.caseDto.caseNumber;
}

async function newPhoneCase(officerId: string): Promise<string> {
  const r = await fetch(`${portal.server.url}/api/public/case/new/by-phone`, {
    method: 'POST',
    headers: { 'x-company-host': HOST, 'content-type': 'application/json', ...(await solveChallenge(portal.server, { 'x-company-host': HOST })) },
    body: JSON.stringify({ whistleblowerRelation: 'Former employee', protectionOfficer: { id: officerId }, caseAccount: { follow: true, password: 'reporter-pass-1' } }),
  });
  const body = (await r.json()) as { caseDto: { caseNumber: string } };
  expect(r.status, JSON.stringify(body)).toBe(201);
  return body.caseDto.caseNumber;
}

/**
 * The case from the inbox (a link, not a page load: a load locks the keys until the
 * password is typed again), and its composer's text field once the page is in.
 */
async function openCase(page: Page, caseNumber: string) {
  await page.waitForURL((u) => u.pathname === '/handler/cases');
  await page.locator(`tr[data-case="${caseNumber}"]`).getByRole('link').click();
  const text = page.getByLabel(msg('handler.composer.text'), { exact: true });
  await text.waitFor();
  return text;
}

let hanne: Handler;
let officerA: string;

beforeAll(async () => {
  browser = await launchBrowser();
  portal = await startPortal({ identity: { throttle: { freeFailures: 100, delayBaseMs: 0 } } });
  const info = (await (await fetch(`${portal.server.url}/api/public/case/company-info`, { headers: { 'x-company-host': HOST } })).json()) as { protectionOfficers: { id: string }[] };
  officerA = info.protectionOfficers[0]!.id;
  const p = await open();
  hanne = await enrol(p.page, 'hanne');
}, 90_000);

afterAll(async () => {
  for (const p of opened) await p.close().catch(() => undefined);
  await browser?.close();
  await portal?.server.cleanup();
});

describe('drafts kept on the device, sealed', () => {
  it('a message draft survives a reload: the keys unlock again and the draft is back, said so; IndexedDB holds no plaintext', async () => {
    const caseNumber = await newCase(officerA);
    const { page } = await open();
    await signIn(page, hanne);
    const text = await openCase(page, caseNumber);
    const draft = 'Sehr geehrte Hinweisgeberin, wir prüfen die Tankkarten der Fuhrparkabteilung.';
    await page.getByLabel(msg('handler.composer.answerWanted')).check();
    await text.fill(draft);
    await page.getByTestId('draft-kept').waitFor();
    const stored = await storedDrafts(page);
    expect(stored).toHaveLength(1);
    expectNoPlaintext(stored, [draft, caseNumber]);
    expect(stored[0]!.id).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(await page.evaluate(() => ({ ...localStorage, ...sessionStorage })))).not.toContain('Tankkarten');

    await page.reload();
    // After a reload the keys are locked: nothing opens the draft until the password is typed.
    await page.getByRole('heading', { name: msg('keys.unlock.title') }).waitFor();
    await page.getByLabel(msg('handler.composer.text'), { exact: true }).waitFor();
    expect(await page.getByLabel(msg('handler.composer.text'), { exact: true }).inputValue()).toBe('');
    await page.getByLabel(msg('keys.unlock.secret')).fill(PASSWORD);
    await page.getByRole('button', { name: msg('keys.unlock.submit') }).click();
    await page.getByTestId('draft-restored').waitFor();
    expect(await page.getByTestId('draft-restored').textContent()).toBe(msg('drafts.restored'));
    expect(await page.getByLabel(msg('handler.composer.text'), { exact: true }).inputValue()).toBe(draft);
    expect(await page.getByLabel(msg('handler.composer.answerWanted')).isChecked()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('typing counts as activity, the idle notice leaves the focus in the text, and the draft survives the idle sign-out', async () => {
    const caseNumber = await newCase(officerA);
    const { page } = await open();
    await page.clock.install();
    await signIn(page, hanne);
    const text = await openCase(page, caseNumber);
    const first = 'Wir melden uns nach dem Gespräch mit der Buchhaltung.';
    await text.fill(first);
    await page.getByTestId('draft-kept').waitFor();
    const notice = page.getByRole('region', { name: msg('handler.idle.title') });
    // Twelve quiet minutes, then typing: within the minute the session is refreshed and the idle clock restarts.
    await page.clock.fastForward('12:00');
    await text.press('End');
    const refreshed = page.waitForResponse((r) => r.url().endsWith('/api/handler/session/refresh') && r.status() === 200);
    await page.keyboard.type(' Danke.');
    await page.clock.fastForward('01:05');
    await refreshed;
    // 26 minutes after signing in, 13 after typing: no notice (without typing as activity it came at 14).
    await page.clock.fastForward('13:00');
    expect(await notice.count()).toBe(0);
    await page.clock.fastForward('01:10');
    await notice.waitFor();
    // The notice is announced, not focused: the caret stays in the text being typed.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('TEXTAREA');
    expect(await page.getByRole('alertdialog').count()).toBe(0);
    expect(await notice.getByText(msg('drafts.idle.keep')).count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    await page.clock.fastForward('01:00');
    await page.waitForURL((u) => u.pathname === '/handler');
    await page.getByText(msg('handler.signIn.timedOut')).waitFor();
    expectNoPlaintext(await storedDrafts(page), [first]);

    await signIn(page, hanne, { goto: false, back: caseNumber });
    const back = page.getByLabel(msg('handler.composer.text'), { exact: true });
    await page.getByTestId('draft-restored').waitFor();
    expect(await back.inputValue()).toBe(`${first} Danke.`);
  });

  it('the server ends the session, Send is pressed: nothing is lost; after signing in the text is there, and sending it deletes it', async () => {
    const caseNumber = await newCase(officerA);
    const p = await open();
    const page = p.page;
    await signIn(page, hanne);
    const text = await openCase(page, caseNumber);
    // Ended server-side, behind the page's back: the session's cookie signed out from outside the browser.
    const cookie = (await p.context.cookies()).find((c) => c.name === 'wb_handler');
    expect(cookie).toBeDefined();
    const ended = await fetch(`${portal.server.url}/api/handler/session`, { method: 'DELETE', headers: { 'x-company-host': HOST, cookie: `wb_handler=${cookie!.value}` } });
    expect(ended.status).toBeLessThan(300);
    expect(await page.evaluate(async () => (await fetch('/api/handler/cases', { credentials: 'same-origin' })).status)).toBe(401);
    // Typed and sent at once, with no pause for the draft to be kept first.
    const draft = 'Bitte senden Sie uns die Belege vom Oktober zu.';
    await text.fill(draft);
    await page.getByRole('button', { name: msg('handler.composer.send') }).click();
    await page.waitForURL((u) => u.pathname === '/handler');
    await page.getByText(msg('handler.signIn.expired')).waitFor();
    await expect.poll(async () => (await storedDrafts(page)).length).toBe(1);
    expectNoPlaintext(await storedDrafts(page), [draft, caseNumber]);

    await signIn(page, hanne, { goto: false, back: caseNumber });
    const back = page.getByLabel(msg('handler.composer.text'), { exact: true });
    await page.getByTestId('draft-restored').waitFor();
    expect(await back.inputValue()).toBe(draft);
    await page.getByRole('button', { name: msg('handler.composer.send') }).click();
    await page.getByText(msg('handler.composer.sent')).waitFor();
    await page.getByText(draft).first().waitFor();
    await expect.poll(async () => (await storedDrafts(page)).length).toBe(0);
  });

  it('a draft of the record survives a reload and reopens the editor; saving it deletes it', async () => {
    const caseNumber = await newPhoneCase(officerA);
    const { page } = await open();
    await signIn(page, hanne);
    await openCase(page, caseNumber);
    await page.getByRole('button', { name: msg('handler.record.write') }).click();
    const record = 'Der Anrufer schilderte private Tankquittungen aus dem Oktober.';
    await page.getByLabel(msg('handler.record.text'), { exact: true }).fill(record);
    await page.getByTestId('draft-kept').waitFor();
    expectNoPlaintext(await storedDrafts(page), [record, caseNumber]);
    await page.reload();
    await page.getByLabel(msg('keys.unlock.secret')).fill(PASSWORD);
    await page.getByRole('button', { name: msg('keys.unlock.submit') }).click();
    await page.getByTestId('record-draft-restored').waitFor();
    expect(await page.getByLabel(msg('handler.record.text'), { exact: true }).inputValue()).toBe(record);
    await page.getByRole('button', { name: msg('handler.record.save') }).click();
    await page.getByText(msg('handler.record.saved')).waitFor();
    await expect.poll(async () => (await storedDrafts(page)).length).toBe(0);
  });

  it('a sign-out by choice discards the drafts on this device', async () => {
    const caseNumber = await newCase(officerA);
    const { page } = await open();
    await signIn(page, hanne);
    const text = await openCase(page, caseNumber);
    await text.fill('Dieser Entwurf soll beim Abmelden verschwinden.');
    await page.getByTestId('draft-kept').waitFor();
    expect(await storedDrafts(page)).toHaveLength(1);
    await page.getByRole('button', { name: msg('handler.bar.signOut') }).click();
    await page.waitForURL((u) => u.pathname === '/handler');
    await expect.poll(async () => (await storedDrafts(page)).length).toBe(0);
    await signIn(page, hanne, { goto: false });
    const back = await openCase(page, caseNumber);
    expect(await back.inputValue()).toBe('');
    expect(await page.getByTestId('draft-restored').count()).toBe(0);
  });
});
