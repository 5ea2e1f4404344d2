/**
 * Revoking a colleague's access to a sealed case, in real Chromium against the real
 * server with SEALED_CASES=browser (issue 37; docs/decisions/sealed-cases.md
 * "Revocation and key epochs"). Hanne and Greta of one officer both hold a followed
 * case's key (Greta is certified before it is sealed). Hanne revokes Greta's access
 * through the confirmation (axe on the dialog): her browser makes the next epoch's key
 * and wraps it to herself and the recovery key. The case is opened again, her reply is
 * sealed under the new epoch; Greta's page says her access was revoked (axe); the
 * server holds no wrap of Greta's key, the reply does not open with the first epoch's
 * key Greta had; the reporter's page reaches the new key through her forward link,
 * shows the reply and wraps the new key under her reporter key (the server then keeps
 * no forward link). No marker in any request or response.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as OTPAuth from 'otpauth';
import type { Browser, Page, Request, Response } from 'playwright-core';
import { axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { call } from '../server/api.ts';
import { sealCase, type PublicKeyLog } from '../helpers/sealed-case.ts';
import { deriveReporterKeys, fieldContext, keyId, openCaseKeys, openCaseParts, openFieldText, PBKDF2_DEFAULT, SEALED_COLUMNS } from '../../core/crypto/index.ts';
import { Browser as ReporterBrowser, signIn as reporterSignIn } from '../server/identity-flow.ts';
import { createHandlerAccount, enrolmentLink } from '../../server/handlers/accounts.ts';
import { companyByHost } from '../../server/companies/service.ts';
import { formatCaseNumber } from '../../machines/schema.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const cat = (area: string) => JSON.parse(readFileSync(path.join(ROOT, `src/i18n/${area}/en.json`), 'utf8')) as Record<string, string>;
const en = { ...cat('handler'), ...cat('keys'), ...cat('sealed'), ...cat('revoke'), ...cat('sealedwork') };
const msg = (key: string, values: Record<string, string | number> = {}) => en[key]!.replace(/\{(\w+)\}/g, (_m, k: string) => String(values[k]));

const HOST = 'group.localhost';
const MARKERS = { details: 'MARKER-details-5e0a', identity: 'MARKER-identity-61c3', reply: 'MARKER-after-revoke-2f7d' };
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

describe('revoking access to a sealed case in the workspace', () => {
  it('revokes a colleague with a new key epoch through the confirmation; later content is sealed under it and the revoked colleague is refused', async () => {
    const company = (await companyByHost(portal.server.ctx.db, HOST))!;
    const [officerA] = company.settings.protectionOfficers.map((o) => o.id);
    const hanne = await enrol('hanne', officerA!);
    const greta = await enrol('greta', officerA!);
    await signIn(hanne);
    await keysPage(hanne.page);
    await hanne.page.getByRole('button', { name: msg('keys.anchor.make') }).click();
    await hanne.page.getByRole('button', { name: msg('keys.anchor.printed') }).click();
    await hanne.page.getByText(msg('keys.page.certified')).waitFor();
    await certify(hanne.page, 'greta');

    const reservation = await call(portal.server, 'POST', '/api/public/case/reservation', { host: HOST });
    expect(reservation.status).toBe(201);
    const reporter = await deriveReporterKeys({ caseNumber: reservation.data.caseNumber, password: 'a long reporter password', salt: Buffer.from(reservation.data.salt, 'base64url'), kdf: PBKDF2_DEFAULT });
    const log = (await call(portal.server, 'GET', '/api/public/key-log', { host: HOST })).data as PublicKeyLog;
    const sealed = await sealCase(log, {
      officerId: officerA!,
      details: { description: `Stock went missing ${MARKERS.details}`, whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: 'Store' },
      whistleblower: { name: `Wanda ${MARKERS.identity}` },
      account: { reporterKey: reporter.reporterKey, caseAccount: { follow: true, reservation: reservation.data.reservation, verifier: Buffer.from(reporter.verifier).toString('base64url'), kdf: PBKDF2_DEFAULT } },
    });
    const created = await call(portal.server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: sealed.body });
    expect(created.status, JSON.stringify(created.data)).toBe(201);
    const caseNumber = created.data.caseDto.caseNumber as string;
    const gretaAccount = await portal.server.ctx.db.selectFrom('handler_account').select('ecdh_spki').where('email', '=', greta.email).executeTakeFirstOrThrow();
    const gretaKeyId = await keyId(new Uint8Array(gretaAccount.ecdh_spki!));
    expect(await portal.server.ctx.db.selectFrom('case_key_wrap').select('epoch').where('case_id', '=', sealed.caseId).where('recipient_key_id', '=', gretaKeyId).executeTakeFirst()).toEqual({ epoch: 1 });

    // Greta opens it with her own key first.
    await signIn(greta);
    await openCase(greta.page, caseNumber);
    await greta.page.getByTestId('sealed-details').getByText(MARKERS.details, { exact: false }).waitFor();

    // Hanne revokes Greta's access through the confirmation.
    await openCase(hanne.page, caseNumber);
    await hanne.page.getByTestId('sealed-details').getByText(MARKERS.details, { exact: false }).waitFor();
    const holders = hanne.page.getByTestId('sealed-holders');
    await holders.getByRole('button', { name: msg('revoke.give', { name: 'greta' }) }).click();
    const dialog = hanne.page.getByRole('alertdialog');
    await dialog.getByText(msg('revoke.confirmTitle', { name: 'greta' })).waitFor();
    expect(await axeViolations(hanne.page)).toEqual([]);
    await dialog.getByRole('button', { name: msg('revoke.confirm') }).click();
    await holders.getByText(msg('revoke.done', { name: 'greta' })).waitFor();
    await holders.getByText(msg('revoke.none')).waitFor();
    // The case was opened again under the new epoch: the report still shows.
    await hanne.page.getByTestId('sealed-details').getByText(MARKERS.details, { exact: false }).waitFor();
    // The audit view names the revocation: whose key, and the new key's epoch.
    const revokedRow = hanne.page.getByTestId('audit-trail').locator('tr', { has: hanne.page.locator('[data-action="ACCESS_REVOKED"]') });
    await revokedRow.getByText(msg('sealedwork.audit.detail.revoke', { name: 'greta', epoch: 2 })).waitFor();
    expect(await revokedRow.count()).toBe(1);
    expect(await portal.server.ctx.db.selectFrom('case_key_wrap').select('epoch').where('case_id', '=', sealed.caseId).where('recipient_key_id', '=', gretaKeyId).execute()).toEqual([]);

    // Hanne's reply is sealed under the second epoch.
    await hanne.page.getByLabel(msg('handler.composer.text'), { exact: true }).fill(`After the revocation ${MARKERS.reply}`);
    await hanne.page.getByRole('button', { name: msg('handler.composer.send'), exact: true }).click();
    await hanne.page.getByText(msg('handler.composer.sent')).waitFor();
    const reply = await portal.server.ctx.db.selectFrom('case_message').select(['id', 'epoch', 'body_enc']).where('case_id', '=', sealed.caseId).executeTakeFirstOrThrow();
    expect(reply.epoch).toBe(2);
    // The first epoch's key, which Greta's browser had, does not open it.
    await expect(openFieldText(sealed.dataKey, fieldContext(sealed.caseId, SEALED_COLUMNS.messageBody, reply.id), new Uint8Array(reply.body_enc))).rejects.toThrow();

    // Greta's page: her access was revoked, nothing of the case is fetched.
    await openCase(greta.page, caseNumber);
    await greta.page.getByTestId('sealed-revoked').getByText(msg('revoke.revoked')).waitFor();
    expect(await greta.page.getByText(MARKERS.reply, { exact: false }).count()).toBe(0);
    expect(await axeViolations(greta.page)).toEqual([]);

    // The reporter's page, in Chromium: it walks forward from her first-epoch wrap, shows the reply, and wraps the new key under her reporter key.
    expect(await portal.server.ctx.db.selectFrom('case_key_wrap').select('epoch').where('case_id', '=', sealed.caseId).where('kind', '=', 'next').execute()).toEqual([{ epoch: 2 }]);
    const page = await open();
    await page.goto(portal.url(HOST, '/private/messages'));
    await page.waitForSelector('#caseNumber');
    await page.fill('#caseNumber', formatCaseNumber(caseNumber));
    await page.fill('#password', 'a long reporter password');
    await page.press('#password', 'Enter');
    await page.waitForURL((u) => u.pathname === '/private/messages', { timeout: 60_000 });
    await page.getByText(MARKERS.reply, { exact: false }).waitFor();
    await expect.poll(async () => (await portal.server.ctx.db.selectFrom('case_key_wrap').select('epoch').where('case_id', '=', sealed.caseId).where('kind', 'in', ['next', 'reporter']).execute()).map((w) => w.epoch)).toEqual([2]);

    // Closed, so a request the private area holds open does not keep the recording waiting.
    await opened.at(-1)!.close();

    // The reporter's key reaches the new epoch by her own wrap of it now.
    const tokens = await reporterSignIn(new ReporterBrowser(portal.server, HOST), caseNumber, 'a long reporter password');
    const mine = await call(portal.server, 'GET', '/api/private/case/my-case/sealed', { host: HOST, token: tokens.access_token });
    const keys = await openCaseKeys(mine.data, { reporterKey: reporter.reporterKey });
    expect(keys.epoch).toBe(2);
    expect(mine.data.epoch).toBe(2);
    const parts = await openCaseParts(keys, mine.data);
    expect(parts.messages.map((m) => m.text)).toEqual([`After the revocation ${MARKERS.reply}`]);

    await Promise.all(pending);
    const recorded = wire.join('\n');
    expect(recorded).toContain('/key-epochs');
    for (const m of Object.values(MARKERS)) {
      expect(recorded).not.toContain(m);
      expect(recorded).not.toContain(encodeURIComponent(m));
    }
  }, 300_000);
});
