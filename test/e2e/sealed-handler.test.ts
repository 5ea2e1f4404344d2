/**
 * A sealed case in the handlers' workspace, in real Chromium against the real server
 * with SEALED_CASES=browser (issue 37; docs/decisions/blind-server.md "Handler pages and
 * grants"). Three handlers of one company enrol in their browsers: Hanne and Greta of
 * officer A, Otto of officer B. Hanne makes the recovery key and is certified; a
 * followed case for officer A is sealed as the reporter's browser seals it
 * (test/helpers/sealed-case.ts), so only Hanne and the recovery key hold its key. Greta
 * is certified afterwards and has no key for it.
 *
 * Hanne opens it in her browser (details, identity, the reporter's message), replies
 * sealed (the reply opens with the reporter key here), and after a reload opens it again
 * once her keys are unlocked. Greta sees the "no key" message; Hanne grants her the key
 * through the confirmation; Greta then opens it. Otto gets no case. axe finds nothing on
 * these states, and no marker is in any request or response any of the browsers saw.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as OTPAuth from 'otpauth';
import type { Browser, Page, Request, Response } from 'playwright-core';
import { axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { call } from '../server/api.ts';
import { sealCase, type PublicKeyLog } from '../helpers/sealed-case.ts';
import { deriveReporterKeys, fieldContext, keyId, openFieldText, sealMessage, unwrapDataKey, PBKDF2_DEFAULT, SEALED_COLUMNS } from '../../core/crypto/index.ts';
import { Browser as ReporterBrowser, signIn as reporterSignIn } from '../server/identity-flow.ts';
import { createHandlerAccount, enrolmentLink } from '../../server/handlers/accounts.ts';
import { companyByHost } from '../../server/companies/service.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const cat = (area: string) => JSON.parse(readFileSync(path.join(ROOT, `src/i18n/${area}/en.json`), 'utf8')) as Record<string, string>;
const en = { ...cat('handler'), ...cat('keys'), ...cat('sealed') };
const msg = (key: string, values: Record<string, string | number> = {}) => en[key]!.replace(/\{(\w+)\}/g, (_m, k: string) => String(values[k]));

const HOST = 'group.localhost';
const MARKERS = { details: 'MARKER-details-c41e', identity: 'MARKER-identity-9d02', fromReporter: 'MARKER-reporter-msg-77aa', reply: 'MARKER-reply-3be5' };
const PASSWORDS = { hanne: 'hanne long passphrase 1', greta: 'greta long passphrase 22', otto: 'otto long passphrase 333' };
type Name = keyof typeof PASSWORDS;

let browser: Browser;
let portal: Portal;
const opened: OpenedPage[] = [];
/** Every request and response body any page saw, with URLs and headers. */
const wire: string[] = [];
const pending: Promise<unknown>[] = [];

async function open() {
  const p = await openPage(browser, { locale: 'en-GB' });
  p.page.setDefaultTimeout(30_000);
  p.page.on('request', (r: Request) => wire.push(`${r.method()} ${r.url()}\n${JSON.stringify(r.headers())}\n${r.postData() ?? ''}`));
  p.page.on('response', (r: Response) => {
    pending.push(
      r
        .body()
        .then((b) => wire.push(`${r.status()} ${r.url()}\n${JSON.stringify(r.headers())}\n${b.toString('utf8')}`))
        .catch(() => undefined),
    );
  });
  opened.push(p);
  return p.page;
}

const totp = (secret: string, step: number) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + step * 30_000 });

interface Enrolled {
  name: Name;
  email: string;
  secret: string;
  step: number;
  page: Page;
}

async function enrol(name: Name, officer: string): Promise<Enrolled> {
  const company = (await companyByHost(portal.server.ctx.db, HOST))!;
  const email = `${name}@example.org`;
  const account = await createHandlerAccount(portal.server.ctx.db, company.id, name, { email, officers: [officer], token: false });
  const page = await open();
  await page.goto(enrolmentLink(portal.url(HOST, ''), account.enrolmentCode!));
  await page.getByRole('heading', { level: 1, name: msg('handler.enrol.title') }).waitFor();
  const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
  await page.getByLabel(msg('handler.enrol.password', { min: 12 })).fill(PASSWORDS[name]);
  await page.getByLabel(msg('handler.enrol.repeat')).fill(PASSWORDS[name]);
  await page.getByLabel(msg('handler.enrol.totp')).fill(totp(secret, 0));
  await page.getByRole('button', { name: msg('handler.enrol.submit') }).click();
  await page.getByText(msg('handler.enrol.done')).waitFor();
  return { name, email, secret, step: 0, page };
}

async function signIn(h: Enrolled) {
  h.step++;
  await h.page.goto(portal.url(HOST, '/handler'));
  await h.page.getByLabel(msg('handler.signIn.email')).fill(h.email);
  await h.page.getByLabel(msg('handler.signIn.password')).fill(PASSWORDS[h.name]);
  await h.page.getByLabel(msg('handler.signIn.code')).fill(totp(h.secret, h.step));
  await h.page.getByRole('button', { name: msg('handler.signIn.submit') }).click();
  await h.page.waitForURL((u) => u.pathname === '/handler/cases');
}

async function keysPage(page: Page) {
  await page.getByRole('link', { name: msg('keys.nav') }).click();
  await page.getByRole('heading', { level: 1, name: msg('keys.page.title') }).waitFor();
}

/** Hanne certifies a colleague's pending key on her keys page (the fingerprint shown in the dialog). */
async function certify(page: Page, name: Name) {
  await keysPage(page);
  const row = page.locator('li', { hasText: `${name}@example.org` });
  await row.getByRole('button', { name: msg('keys.pending.certify', { name }) }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: msg('keys.pending.confirm') }).click();
  await row.waitFor({ state: 'detached' });
}

/** The case from the inbox, by an in-app link (a full navigation would lock the keys). */
async function openCase(page: Page, caseNumber: string) {
  await page.getByRole('link', { name: msg('handler.title'), exact: true }).click();
  await page.getByRole('link', { name: new RegExp(caseNumber.replace(/(\d{4})(?=\d)/g, '$1 ')) }).click();
  await page.getByRole('heading', { level: 1 }).waitFor();
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

describe('a sealed case in the handlers\' workspace', () => {
  it('opens in the browser, replies sealed, grants a colleague of the same officer, and stays closed to another officer; no marker on the wire', async () => {
    const company = (await companyByHost(portal.server.ctx.db, HOST))!;
    const [officerA, officerB] = company.settings.protectionOfficers.map((o) => o.id);
    const hanne = await enrol('hanne', officerA!);
    const greta = await enrol('greta', officerA!);
    const otto = await enrol('otto', officerB!);

    // Hanne makes the company's recovery key; it certifies her key.
    await signIn(hanne);
    await keysPage(hanne.page);
    await hanne.page.getByRole('button', { name: msg('keys.anchor.make') }).click();
    await hanne.page.getByRole('button', { name: msg('keys.anchor.printed') }).click();
    await hanne.page.getByText(msg('keys.page.certified')).waitFor();

    // A followed case for officer A, sealed as the reporter's browser seals it: to Hanne, the recovery key and the reporter key.
    const reservation = await call(portal.server, 'POST', '/api/public/case/reservation', { host: HOST });
    expect(reservation.status).toBe(201);
    const reporter = await deriveReporterKeys({ caseNumber: reservation.data.caseNumber, password: 'a long reporter password', salt: Buffer.from(reservation.data.salt, 'base64url'), kdf: PBKDF2_DEFAULT });
    const log = (await call(portal.server, 'GET', '/api/public/key-log', { host: HOST })).data as PublicKeyLog;
    const sealed = await sealCase(log, {
      officerId: officerA!,
      details: { description: `The till was emptied ${MARKERS.details}`, whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: 'Shop' },
      whistleblower: { name: `Wanda ${MARKERS.identity}`, email: 'wanda@example.org' },
      account: { reporterKey: reporter.reporterKey, caseAccount: { follow: true, reservation: reservation.data.reservation, verifier: Buffer.from(reporter.verifier).toString('base64url'), kdf: PBKDF2_DEFAULT } },
    });
    const created = await call(portal.server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: sealed.body });
    expect(created.status, JSON.stringify(created.data)).toBe(201);
    const caseNumber = created.data.caseDto.caseNumber as string;
    // The reporter writes once (sealed, as the private area does).
    const tokens = await reporterSignIn(new ReporterBrowser(portal.server, HOST), caseNumber, 'a long reporter password');
    const fromReporter = await call(portal.server, 'POST', '/api/private/case/messages/sealed', { host: HOST, token: tokens.access_token, json: await sealMessage(sealed.dataKey, sealed.caseId, `More details ${MARKERS.fromReporter}`) });
    expect(fromReporter.status, JSON.stringify(fromReporter.data)).toBe(201);

    // Greta joins later: certified after the case was sealed, so no key for it is hers.
    await certify(hanne.page, 'greta');

    // Hanne opens it: details, identity and the reporter's message, opened in her browser.
    await openCase(hanne.page, caseNumber);
    await hanne.page.getByTestId('sealed-notice').waitFor();
    await hanne.page.getByTestId('sealed-details').getByText(MARKERS.details, { exact: false }).waitFor();
    await hanne.page.getByTestId('sealed-identity').getByText(MARKERS.identity, { exact: false }).waitFor();
    const thread = hanne.page.getByTestId('sealed-thread');
    await thread.getByText(MARKERS.fromReporter, { exact: false }).waitFor();
    await thread.getByText(msg('handler.case.fromReporter'), { exact: true }).waitFor();
    expect(await axeViolations(hanne.page)).toEqual([]);

    // She replies: sealed in her browser, shown in the thread as hers.
    await hanne.page.getByLabel(msg('handler.composer.text'), { exact: true }).fill(`Thank you ${MARKERS.reply}`);
    await hanne.page.getByRole('button', { name: msg('handler.composer.send'), exact: true }).click();
    await hanne.page.getByText(msg('handler.composer.sent')).waitFor();
    await thread.locator('li', { hasText: MARKERS.reply }).getByText(msg('sealed.from.you'), { exact: true }).waitFor();
    // The reply opens with the reporter key (the reporter's wrap, the reply's row id).
    const reporterWrap = await portal.server.ctx.db.selectFrom('case_key_wrap').select('wrap').where('case_id', '=', sealed.caseId).where('kind', '=', 'reporter').executeTakeFirstOrThrow();
    const reporterDk = await unwrapDataKey(reporter.reporterKey, new Uint8Array(reporterWrap.wrap), { caseId: sealed.caseId, epoch: 1 });
    const rows = await portal.server.ctx.db.selectFrom('case_message').select(['id', 'body_enc', 'created_by']).where('case_id', '=', sealed.caseId).execute();
    const texts = await Promise.all(rows.map((r) => openFieldText(reporterDk, fieldContext(sealed.caseId, SEALED_COLUMNS.messageBody, r.id), new Uint8Array(r.body_enc))));
    expect(texts).toContain(`Thank you ${MARKERS.reply}`);

    // A reload locks her keys: the page asks for them, and opens the case once they are unlocked.
    await hanne.page.reload();
    await hanne.page.getByTestId('sealed-locked').waitFor();
    expect(await axeViolations(hanne.page)).toEqual([]);
    await hanne.page.getByLabel(msg('keys.unlock.secret')).fill(PASSWORDS.hanne);
    await hanne.page.getByRole('button', { name: msg('keys.unlock.submit') }).click();
    await thread.getByText(MARKERS.reply, { exact: false }).waitFor();

    // Greta: the same officer, no key yet: a plain message, no crash.
    await signIn(greta);
    await openCase(greta.page, caseNumber);
    await greta.page.getByText(msg('sealed.noKey')).waitFor();
    expect(await greta.page.getByText(MARKERS.details, { exact: false }).count()).toBe(0);
    expect(await axeViolations(greta.page)).toEqual([]);

    // Hanne gives her access, through the confirmation.
    const grants = hanne.page.getByTestId('sealed-grants');
    await grants.getByRole('button', { name: msg('sealed.grants.give', { name: 'greta' }) }).click();
    const dialog = hanne.page.getByRole('alertdialog');
    await dialog.getByText(msg('sealed.grants.confirmTitle', { name: 'greta' })).waitFor();
    expect(await axeViolations(hanne.page)).toEqual([]);
    await dialog.getByRole('button', { name: msg('sealed.grants.confirm') }).click();
    await grants.getByText(msg('sealed.grants.granted', { name: 'greta' })).waitFor();
    await grants.getByText(msg('sealed.grants.none')).waitFor();

    // Greta tries again and opens it with her own key; the reply is named as Hanne's.
    await greta.page.getByRole('button', { name: msg('handler.retry') }).click();
    await greta.page.getByTestId('sealed-details').getByText(MARKERS.details, { exact: false }).waitFor();
    await greta.page.getByTestId('sealed-thread').locator('li', { hasText: MARKERS.reply }).getByText('hanne', { exact: true }).waitFor();

    // Otto (officer B) has no case and no key: the inbox does not list it, its address says it does not exist.
    await signIn(otto);
    await otto.page.locator(`[data-case], :text("${msg('handler.inbox.empty')}")`).first().waitFor();
    expect(await otto.page.getByRole('link', { name: new RegExp(caseNumber.replace(/(\d{4})(?=\d)/g, '$1 ')) }).count()).toBe(0);
    await otto.page.goto(portal.url(HOST, `/handler/cases/${caseNumber}`));
    await otto.page.getByText(msg('handler.case.notFound')).waitFor();
    const ottoAccount = await portal.server.ctx.db.selectFrom('handler_account').select('ecdh_spki').where('email', '=', otto.email).executeTakeFirstOrThrow();
    const ottoKeyId = await keyId(new Uint8Array(ottoAccount.ecdh_spki!));
    expect(await portal.server.ctx.db.selectFrom('case_key_wrap').select('recipient_key_id').where('case_id', '=', sealed.caseId).where('recipient_key_id', '=', ottoKeyId).executeTakeFirst()).toBeUndefined();

    // No marker in any request or response body, header or URL of the three browsers.
    await Promise.all(pending);
    expect(wire.length).toBeGreaterThan(50);
    const recorded = wire.join('\n');
    expect(recorded).toContain('/api/handler/cases/');
    // The recording holds the bodies both ways: the sealed view's envelope came back, the sealed reply went out.
    expect(recorded).toContain(sealed.body.envelopes.details);
    expect(recorded).toMatch(/"body":"[A-Za-z0-9+/]{40,}/);
    for (const m of Object.values(MARKERS)) {
      expect(recorded).not.toContain(m);
      expect(recorded).not.toContain(encodeURIComponent(m));
    }
  }, 300_000);
});
