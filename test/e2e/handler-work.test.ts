/**
 * The handlers' everyday work in real Chromium against the real server (issue 38):
 * two handlers on one case (assign, hand over, share, stop sharing, and a hand-over to
 * a handler of another officer refused by the server with nothing stored); the inbox's
 * filters and sort surviving a visit to a case and back; the category and the reporter's
 * language in words; no composer for a case whose reporter does not follow; closing a
 * case whose confirmation of receipt is owed asks with the reason; axe on inbox and case
 * in English and German; 390 px wide without sideways scrolling.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import * as OTPAuth from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { solveChallenge } from '../server/api.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const HOST = 'group.localhost';
const cat = (area: string, lang: string) => JSON.parse(readFileSync(path.join(ROOT, `src/i18n/${area}/${lang}.json`), 'utf8')) as Record<string, string>;
const en = { ...cat('handler', 'en'), ...cat('work', 'en') };
const de = { ...cat('handler', 'de'), ...cat('work', 'de') };
const msg = (key: string, values: Record<string, string | number> = {}, c: Record<string, string> = en) => c[key]!.replace(/\{(\w+)\}/g, (_m, k: string) => String(values[k]));

const PASSWORD = 'a long handler passphrase';
let browser: Browser;
let portal: Portal;
const opened: OpenedPage[] = [];
let officerA: string;
let officerB: string;

interface Handler {
  name: string;
  email: string;
  secret: string;
  step: number;
  recoveryCodes: string[];
}

async function cli(...args: string[]) {
  return run(path.join(ROOT, 'node_modules/.bin/tsx'), ['server/cli/handler.ts', '--url', portal.server.url, ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: portal.server.dataDir, DATABASE_URL: portal.server.config.databaseUrl ?? '' },
  });
}

const totp = (secret: string, step: number) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + step * 30_000 });

async function open(opts: { locale?: string; width?: number } = {}) {
  const p = await openPage(browser, { locale: opts.locale ?? 'en-GB', width: opts.width });
  p.page.setDefaultTimeout(15_000);
  opened.push(p);
  return p;
}

async function enrol(page: Page, name: string, officers: string[]): Promise<Handler> {
  const email = `${name}@example.org`;
  const { stdout } = await cli('create-account', '--company', HOST, '--name', name, '--email', email, ...officers.flatMap((o) => ['--officer', o]));
  const link = stdout.trim().split('\n')[1]!;
  await page.goto(link);
  const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
  await page.getByLabel(msg('handler.enrol.password', { min: 12 })).fill(PASSWORD);
  await page.getByLabel(msg('handler.enrol.repeat')).fill(PASSWORD);
  await page.getByLabel(msg('handler.enrol.totp')).fill(totp(secret, 0));
  await page.getByRole('button', { name: msg('handler.enrol.submit') }).click();
  await page.getByText(msg('handler.enrol.done')).waitFor();
  const recoveryCodes = (await page.getByRole('list', { name: msg('handler.enrol.recoveryTitle') }).getByRole('listitem').allTextContents()).map((c) => c.trim());
  return { name, email, secret, step: 0, recoveryCodes };
}

/** The first sign-in with the app's next code; later ones with a recovery code each (one TOTP step signs in once). */
async function signIn(page: Page, h: Handler) {
  h.step++;
  const code = h.step === 1 ? totp(h.secret, 1) : h.recoveryCodes[h.step]!;
  await page.goto(portal.url(HOST, '/handler'));
  await page.getByLabel(msg('handler.signIn.email')).fill(h.email);
  await page.getByLabel(msg('handler.signIn.password')).fill(PASSWORD);
  await page.getByLabel(msg('handler.signIn.code')).fill(code);
  await page.getByRole('button', { name: msg('handler.signIn.submit') }).click();
  await page.waitForURL((u) => u.pathname === '/handler/cases');
}

async function newCase(officerId: string, follow: boolean, language = 'de'): Promise<string> {
  const fd = new FormData();
  const caseAccount = follow ? { follow: true, password: 'reporter-pass-1' } : { follow: false };
  fd.append('caseDto', new Blob([JSON.stringify({ whistleblowerRelation: 'Employee', protectionOfficer: { id: officerId }, description: 'Fuel cards used privately.', violation: 'OTHER_OFFENCE', repeatedViolations: true, reportedUnit: 'Fleet', caseAccount })], { type: 'application/json' }));
  const r = await fetch(`${portal.server.url}/api/public/case/new/by-form`, { method: 'POST', body: fd, headers: { 'x-company-host': HOST, 'accept-language': language, ...(await solveChallenge(portal.server, { 'x-company-host': HOST })) } });
  const body = (await r.json()) as { caseDto: { caseNumber: string } };
  expect(r.status, JSON.stringify(body)).toBe(201);
  return body.caseDto.caseNumber;
}

const row = (page: Page, n: string) => page.locator(`tr[data-case="${n}"]`);
// Every busy part done, not just one: a case page's parts load side by side.
const settled = (page: Page) => page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));

let anna: Handler;
let bo: Handler;
let carl: Handler;
let annaPage: Page;
let boPage: Page;
let shared: string;

beforeAll(async () => {
  browser = await launchBrowser();
  portal = await startPortal({ identity: { throttle: { freeFailures: 100, delayBaseMs: 0 } } });
  const info = (await (await fetch(`${portal.server.url}/api/public/case/company-info`, { headers: { 'x-company-host': HOST } })).json()) as { protectionOfficers: { id: string }[] };
  [officerA, officerB] = info.protectionOfficers.map((o) => o.id) as [string, string];
}, 60_000);

afterAll(async () => {
  for (const p of opened) await p.close().catch(() => undefined);
  await browser?.close();
  await portal?.server.cleanup();
});

describe('two handlers on one case', () => {
  it('assign, hand over, share and stop sharing; a hand-over to another officer\'s handler is refused and stores nothing', async () => {
    const a = await open();
    const b = await open();
    const c = await open();
    annaPage = a.page;
    boPage = b.page;
    anna = await enrol(a.page, 'anna', []);
    bo = await enrol(b.page, 'bo', [officerA]);
    carl = await enrol(c.page, 'carl', [officerB]);
    shared = await newCase(officerA, true);

    await signIn(a.page, anna);
    await row(a.page, shared).getByRole('link').click();
    const panel = a.page.getByTestId('assignment');
    await panel.getByTestId('assignee').getByText(msg('work.inbox.nobody')).waitFor();
    // Carl is tied to officer B: never offered for officer A's case.
    const offered = await panel.getByLabel(msg('work.assign.colleague')).locator('option:not([disabled])').allInnerTexts();
    expect(offered).toEqual(['anna', 'bo']);
    await panel.getByLabel(msg('work.assign.colleague')).selectOption({ label: 'anna' });
    await panel.getByRole('button', { name: msg('work.assign.assign') }).click();
    await panel.getByTestId('assignee').getByText('anna').waitFor();
    await panel.getByLabel(msg('work.assign.colleague')).selectOption({ label: 'bo' });
    await panel.getByRole('button', { name: msg('work.assign.handOver') }).click();
    await panel.getByTestId('assignee').getByText('bo').waitFor();
    await panel.getByLabel(msg('work.assign.colleague')).selectOption({ label: 'anna' });
    await panel.getByRole('button', { name: msg('work.assign.share') }).click();
    await panel.getByTestId('shares').getByText('anna').waitFor();

    // Bo sees the case as his and stops the share.
    await signIn(b.page, bo);
    await b.page.getByLabel(msg('work.inbox.assigned')).selectOption('ME');
    await row(b.page, shared).getByText('bo').waitFor();
    await row(b.page, shared).getByRole('link').click();
    await b.page.getByRole('button', { name: msg('work.assign.unshare', { name: 'anna' }) }).click();
    await b.page.getByTestId('shares').getByText(msg('work.inbox.nobody')).waitFor();

    // A hand-over to Carl (another officer's handler), as a script or an older page would send it: refused, nothing changes.
    const before = await portal.server.ctx.db.selectFrom('case_audit').select('id').execute();
    const carlId = (await portal.server.ctx.db.selectFrom('handler_account').select('id').where('email', '=', carl.email).executeTakeFirstOrThrow()).id;
    const refused = await a.page.evaluate(
      async ([n, id]) => {
        const r = await fetch(`/api/handler/cases/${n}/assignee`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ handlerId: id }) });
        return { status: r.status, body: await r.json() };
      },
      [shared, carlId] as const,
    );
    expect(refused).toMatchObject({ status: 400, body: { error: { code: 'COLLEAGUE_NOT_ENTITLED', field: 'handlerId' } } });
    expect((await portal.server.ctx.db.selectFrom('case_audit').select('id').execute()).length).toBe(before.length);
    expect((await portal.server.ctx.db.selectFrom('report_case').select('assignee_id').where('case_number', '=', shared).executeTakeFirstOrThrow()).assignee_id).not.toBe(carlId);

    // In the page: Bo is tied to officer B meanwhile; handing the case back to him is refused and said so.
    const boId = (await portal.server.ctx.db.selectFrom('handler_account').select('id').where('email', '=', bo.email).executeTakeFirstOrThrow()).id;
    await a.page.reload();
    await panel.getByTestId('assignee').getByText('bo').waitFor();
    await panel.getByLabel(msg('work.assign.colleague')).selectOption({ label: 'anna' });
    await panel.getByRole('button', { name: msg('work.assign.handOver') }).click();
    await panel.getByTestId('assignee').getByText('anna').waitFor();
    await portal.server.ctx.db.deleteFrom('handler_officer').where('handler_id', '=', boId).execute();
    await portal.server.ctx.db.insertInto('handler_officer').values({ handler_id: boId, officer_id: officerB }).execute();
    await panel.getByLabel(msg('work.assign.colleague')).selectOption({ label: 'bo' });
    await panel.getByRole('button', { name: msg('work.assign.handOver') }).click();
    await panel.getByText(msg('work.assign.refused.COLLEAGUE_NOT_ENTITLED')).waitFor();
    await panel.getByTestId('assignee').getByText('anna').waitFor();
    await portal.server.ctx.db.deleteFrom('handler_officer').where('handler_id', '=', boId).execute();
    await portal.server.ctx.db.insertInto('handler_officer').values({ handler_id: boId, officer_id: officerA }).execute();

    // Each act in the trail with its details, once per act; opening once per sitting.
    await a.page.reload();
    await a.page.getByTestId('audit-trail').waitFor();
    const trail = a.page.getByTestId('audit-trail');
    const acts = await trail.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.children[1]!.textContent, tr.querySelector('[data-action]')!.getAttribute('data-action'), tr.querySelector('[data-detail]')!.textContent]));
    expect(acts).toEqual([
      ['anna', 'CASE_READ', ''],
      ['anna', 'ASSIGNED', msg('work.audit.to', { name: 'anna' })],
      ['anna', 'ASSIGNED', msg('work.audit.fromTo', { from: 'anna', to: 'bo' })],
      ['anna', 'SHARED', msg('work.audit.with', { name: 'anna' })],
      ['bo', 'CASE_READ', ''],
      ['bo', 'UNSHARED', msg('work.audit.with', { name: 'anna' })],
      ['anna', 'ASSIGNED', msg('work.audit.fromTo', { from: 'bo', to: 'anna' })],
    ]);
    await a.page.getByLabel(msg('work.audit.filter')).selectOption('ASSIGNED');
    expect(await trail.locator('tbody tr').count()).toBe(3);
  }, 240_000);
});

describe('the inbox', () => {
  it('keeps filters and sort through a visit to a case and back, and a reload', async () => {
    const page = boPage;
    const other = await newCase(officerA, true, 'pl');
    await page.goto(portal.url(HOST, '/handler/cases'));
    await row(page, other).waitFor();
    await page.getByLabel(msg('work.inbox.assigned')).selectOption('UNASSIGNED');
    await row(page, shared).waitFor({ state: 'detached' });
    await page.locator('th button[data-sort="received"]').click();
    await page.locator('th button[data-sort="received"]').click();
    await page.waitForURL((u) => u.searchParams.get('dir') === 'desc');
    expect(new URL(page.url()).search).toBe('?assigned=UNASSIGNED&sort=received&dir=desc');
    const order = await page.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-case')));
    await row(page, other).getByRole('link').click();
    await page.waitForURL((u) => u.pathname === `/handler/cases/${other}`);
    // The category and the reporter's language in words, never the enum.
    await page.getByTestId('case-violation').getByText(msg('work.violation.OTHER_OFFENCE')).waitFor();
    await page.getByTestId('reporter-language').getByText(msg('work.languageName.pl')).waitFor();
    expect(await page.getByText('OTHER_OFFENCE').count()).toBe(0);
    await page.getByRole('link', { name: msg('handler.case.back') }).click();
    await page.waitForURL((u) => u.pathname === '/handler/cases');
    expect(new URL(page.url()).search).toBe('?assigned=UNASSIGNED&sort=received&dir=desc');
    expect(await page.getByLabel(msg('work.inbox.assigned')).inputValue()).toBe('UNASSIGNED');
    await page.locator('th[aria-sort="descending"]').getByText(msg('handler.inbox.col.received')).waitFor();
    await row(page, other).waitFor();
    expect(await page.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-case')))).toEqual(order);
    await page.reload();
    expect(await page.getByLabel(msg('work.inbox.assigned')).inputValue()).toBe('UNASSIGNED');
    expect(await page.getByLabel(msg('work.inbox.openOnly')).isChecked()).toBe(true);
  }, 120_000);

  it('a case nobody follows has no composer; closing while the confirmation of receipt is owed asks with the reason', async () => {
    const page = annaPage;
    const silent = await newCase(officerA, false);
    await page.goto(portal.url(HOST, `/handler/cases/${silent}`));
    await page.getByTestId('not-following').getByText(msg('work.notFollowing')).waitFor();
    expect(await page.getByLabel(msg('handler.composer.text'), { exact: true }).count()).toBe(0);
    await page.getByLabel(msg('handler.case.newStatus')).selectOption('CLOSED');
    await page.getByRole('button', { name: msg('handler.case.changeStatus') }).click();
    const dialog = page.getByRole('alertdialog', { name: msg('handler.case.confirmStatusTitle') });
    await dialog.getByText(msg('work.close.ACK_MISSING')).waitFor();
    expect(await axeViolations(page), 'closing dialog').toEqual([]);
    await dialog.getByRole('button', { name: msg('handler.cancel') }).click();
    await dialog.waitFor({ state: 'detached' });
  }, 120_000);

  it('axe finds nothing on inbox and case in English and German; 390 px wide scrolls no sideways', async () => {
    for (const [lang, strings] of [['en', en], ['de', de]] as const) {
      const p = await open();
      await signIn(p.page, carl);
      await p.page.locator('header select').selectOption(lang);
      await p.page.getByRole('heading', { level: 1, name: strings['handler.inbox.title'] }).waitFor();
      await settled(p.page);
      expect(await axeViolations(p.page), `inbox ${lang}`).toEqual([]);
      const carlCase = await newCase(officerB, true);
      await p.page.goto(portal.url(HOST, `/handler/cases/${carlCase}`));
      await p.page.getByTestId('assignment').getByTestId('assignee').waitFor();
      await p.page.getByRole('heading', { level: 2, name: strings['work.assign.title'] }).waitFor();
      await settled(p.page);
      expect(await axeViolations(p.page), `case ${lang}`).toEqual([]);
    }
    const narrow = await open({ width: 390 });
    await signIn(narrow.page, anna);
    await narrow.page.getByRole('heading', { level: 1 }).waitFor();
    await narrow.page.getByLabel(msg('work.inbox.openOnly')).uncheck();
    await row(narrow.page, shared).waitFor();
    await settled(narrow.page);
    const widths = async () => narrow.page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    const inbox = await widths();
    expect(inbox.scroll).toBeLessThanOrEqual(inbox.client);
    // The deadline is on screen, not off to the right.
    const box = await row(narrow.page, shared).locator('td').last().boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    expect(await axeViolations(narrow.page), 'inbox 390 px').toEqual([]);
    await row(narrow.page, shared).getByRole('link').click();
    await narrow.page.getByTestId('audit-trail').waitFor();
    const c = await widths();
    expect(c.scroll).toBeLessThanOrEqual(c.client);
  }, 240_000);
});
