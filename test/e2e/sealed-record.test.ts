/**
 * The record of a sealed phone case in real Chromium against the real server with
 * SEALED_CASES=browser (issue 37; docs/decisions/record-versions.md "Sealed cases").
 * Hanne enrols in her browser, makes the company's recovery key and is certified; a
 * followed phone case for her officer is sealed as a reporter's browser seals it
 * (test/helpers/sealed-case.ts, the sealed route with `submissionType: PHONE`).
 *
 * Hanne writes the record in her browser (sealed and hashed there); the reporter signs
 * in on the provider's page, opens the record, sees its hash checked in the page,
 * comments (sealed); Hanne sees the comment opened and writes version 2; a server that
 * stores another hash beside it is caught by both pages, and the reporter's offers no
 * approval; with the true hash back the reporter approves version 2 over its hash and
 * Hanne sees the approval. axe finds
 * nothing on these states; no marker is in any request or response, header or URL the
 * browsers saw, nor in any row of any table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as OTPAuth from 'otpauth';
import { sql } from 'kysely';
import type { Browser, Page, Request, Response } from 'playwright-core';
import { axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { call } from '../server/api.ts';
import { sealCase, type PublicKeyLog } from '../helpers/sealed-case.ts';
import { deriveReporterKeys, recordHash, PBKDF2_DEFAULT } from '../../core/crypto/index.ts';
import { createHandlerAccount, enrolmentLink } from '../../server/handlers/accounts.ts';
import { companyByHost } from '../../server/companies/service.ts';
import { formatCaseNumber } from '../../machines/schema.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const cat = (area: string) => JSON.parse(readFileSync(path.join(ROOT, `src/i18n/${area}/en.json`), 'utf8')) as Record<string, string>;
const en = { ...cat('handler'), ...cat('keys'), ...cat('sealed'), ...cat('private'), ...cat('record') };
const msg = (key: string, values: Record<string, string | number> = {}) => en[key]!.replace(/\{(\w+)\}/g, (_m, k: string) => String(values[k]));

const HOST = 'group.localhost';
const MARKERS = { identity: 'MARKER-rec-identity-51af', v1: 'MARKER-rec-version1-0c3d', comment: 'MARKER-rec-comment-e7b2', v2: 'MARKER-rec-version2-9a44' };
const HANNE = 'hanne long passphrase 1';
const REPORTER = 'a long phone reporter password';

let browser: Browser;
let portal: Portal;
const opened: OpenedPage[] = [];
const wire: string[] = [];
const pending: Promise<unknown>[] = [];

async function open(locale = 'en-GB') {
  const p = await openPage(browser, { locale });
  p.page.setDefaultTimeout(30_000);
  p.page.on('request', (r: Request) => wire.push(`${r.method()} ${r.url()}\n${JSON.stringify(r.headers())}\n${r.postData() ?? ''}`));
  p.page.on('response', (r: Response) => {
    pending.push(r.body().then((b) => wire.push(`${r.status()} ${r.url()}\n${JSON.stringify(r.headers())}\n${b.toString('utf8')}`)).catch(() => undefined));
  });
  opened.push(p);
  return p.page;
}

const totp = (secret: string, step: number) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + step * 30_000 });

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

describe('the record of a sealed phone case', () => {
  it('is written sealed by the handler, opened, checked, commented and approved by the reporter, and the handler sees both; a stored hash that does not match is named', async () => {
    const company = (await companyByHost(portal.server.ctx.db, HOST))!;
    const officerA = company.settings.protectionOfficers[0]!.id;

    // Hanne enrols, makes the recovery key (which certifies her key) and stays signed in.
    const account = await createHandlerAccount(portal.server.ctx.db, company.id, 'hanne', { email: 'hanne@example.org', officers: [officerA], token: false });
    const hanne = await open();
    await hanne.goto(enrolmentLink(portal.url(HOST, ''), account.enrolmentCode!));
    const secret = (await hanne.getByTestId('totp-secret').textContent())!.trim();
    await hanne.getByLabel(msg('handler.enrol.password', { min: 12 })).fill(HANNE);
    await hanne.getByLabel(msg('handler.enrol.repeat')).fill(HANNE);
    await hanne.getByLabel(msg('handler.enrol.totp')).fill(totp(secret, 0));
    await hanne.getByRole('button', { name: msg('handler.enrol.submit') }).click();
    await hanne.getByText(msg('handler.enrol.done')).waitFor();
    await hanne.goto(portal.url(HOST, '/handler'));
    await hanne.getByLabel(msg('handler.signIn.email')).fill('hanne@example.org');
    await hanne.getByLabel(msg('handler.signIn.password')).fill(HANNE);
    await hanne.getByLabel(msg('handler.signIn.code')).fill(totp(secret, 1));
    await hanne.getByRole('button', { name: msg('handler.signIn.submit') }).click();
    await hanne.waitForURL((u) => u.pathname === '/handler/cases');
    await hanne.getByRole('link', { name: msg('keys.nav') }).click();
    await hanne.getByRole('button', { name: msg('keys.anchor.make') }).click();
    await hanne.getByRole('button', { name: msg('keys.anchor.printed') }).click();
    await hanne.getByText(msg('keys.page.certified')).waitFor();

    // A followed phone case, sealed as a reporter's browser seals it.
    const reservation = await call(portal.server, 'POST', '/api/public/case/reservation', { host: HOST });
    expect(reservation.status).toBe(201);
    const keys = await deriveReporterKeys({ caseNumber: reservation.data.caseNumber, password: REPORTER, salt: Buffer.from(reservation.data.salt, 'base64url'), kdf: PBKDF2_DEFAULT });
    const log = (await call(portal.server, 'GET', '/api/public/key-log', { host: HOST })).data as PublicKeyLog;
    const sealed = await sealCase(log, {
      officerId: officerA,
      submissionType: 'PHONE',
      details: { whistleblowerRelation: 'Employee', reportedPersons: [] },
      whistleblower: { name: `Wanda ${MARKERS.identity}`, email: 'wanda@example.org' },
      account: { reporterKey: keys.reporterKey, caseAccount: { follow: true, reservation: reservation.data.reservation, verifier: Buffer.from(keys.verifier).toString('base64url'), kdf: PBKDF2_DEFAULT } },
    });
    const created = await call(portal.server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: sealed.body });
    expect(created.status, JSON.stringify(created.data)).toBe(201);
    const caseNumber = created.data.caseDto.caseNumber as string;

    // Hanne writes the record: sealed and hashed in her browser.
    await openCase(hanne, caseNumber);
    const record = hanne.getByTestId('sealed-record');
    await record.getByText(msg('handler.record.none')).waitFor();
    expect(await axeViolations(hanne)).toEqual([]);
    await record.getByRole('button', { name: msg('handler.record.write') }).click();
    const v1 = `Phone call on Monday. ${MARKERS.v1} said the till was short.`;
    await record.getByLabel(msg('handler.record.text'), { exact: true }).fill(v1);
    expect(await axeViolations(hanne)).toEqual([]);
    await record.getByRole('button', { name: msg('handler.record.save') }).click();
    await record.getByTestId('record-text').getByText(MARKERS.v1, { exact: false }).waitFor();
    await record.getByTestId('record-check-1').getByText(msg('record.verified')).waitFor();
    await record.getByText(msg('handler.record.hash', { hash: await recordHash(v1) })).waitFor();
    const stored = await portal.server.ctx.db.selectFrom('case_record_version').select(['version', 'sha256']).where('case_id', '=', sealed.caseId).execute();
    expect(stored).toEqual([{ version: 1, sha256: await recordHash(v1) }]);

    // The reporter signs in on the provider's page and opens the record here; the page checks its hash.
    const reporter = await open();
    await reporter.goto(portal.url(HOST, '/private/report'));
    await reporter.waitForSelector('#caseNumber');
    await reporter.fill('#caseNumber', formatCaseNumber(caseNumber));
    await reporter.fill('#password', REPORTER);
    await reporter.press('#password', 'Enter');
    // The provider's page derives the verifier and the reporter key in its own script first.
    await reporter.waitForURL((u) => u.pathname.startsWith('/private/'), { timeout: 120_000 });
    await reporter.getByRole('navigation', { name: msg('private.nav.label') }).waitFor();
    await reporter.getByRole('link', { name: msg('private.nav.report') }).first().click();
    await reporter.getByText(MARKERS.v1, { exact: false }).first().waitFor();
    await reporter.getByTestId('record-hash').getByText(await recordHash(v1), { exact: false }).waitFor();
    await reporter.getByTestId('record-check-1').getByText(msg('record.verified')).waitFor();
    expect(await axeViolations(reporter)).toEqual([]);

    // A comment, sealed here.
    await reporter.getByRole('button', { name: msg('private.report.comment.open'), exact: true }).click();
    const commentDialog = reporter.getByRole('dialog', { name: msg('private.report.comment.title') });
    await commentDialog.getByRole('textbox').fill(`It was Tuesday, not Monday ${MARKERS.comment}`);
    await commentDialog.getByRole('button', { name: msg('private.report.comment.submit') }).click();
    await reporter.getByText(msg('private.report.comment.sent')).waitFor();
    await reporter.getByText(MARKERS.comment, { exact: false }).waitFor();

    // Hanne opens the case again: the comment opened in her browser. She writes version 2.
    await openCase(hanne, caseNumber);
    await record.getByTestId('record-comments').getByText(MARKERS.comment, { exact: false }).waitFor();
    expect(await axeViolations(hanne)).toEqual([]);
    await record.getByRole('button', { name: msg('handler.record.edit') }).click();
    const v2 = `Phone call on Tuesday. ${MARKERS.v2} said the till was short.`;
    await record.getByLabel(msg('handler.record.text'), { exact: true }).fill(v2);
    await record.getByRole('button', { name: msg('handler.record.save') }).click();
    await record.getByTestId('record-check-2').getByText(msg('record.verified')).waitFor();

    // A server that stores another hash beside version 2: the reporter's page opens it, finds the hash is not the text's, says so, and offers no approval.
    const v2Hash = await recordHash(v2);
    const setHash = (sha256: string) => portal.server.ctx.db.updateTable('case_record_version').set({ sha256 }).where('case_id', '=', sealed.caseId).where('version', '=', 2).execute();
    await setHash(await recordHash('another text'));
    await reporter.reload();
    await reporter.getByText(MARKERS.v2, { exact: false }).first().waitFor();
    await reporter.getByTestId('record-mismatch').getByText(msg('record.reporter.refuse', { version: 2 })).waitFor();
    await reporter.getByTestId('record-check-2').getByText(msg('record.mismatch', { version: 2 })).waitFor();
    await reporter.getByTestId('record-check-1').getByText(msg('record.verified')).waitFor();
    expect(await reporter.getByRole('button', { name: msg('private.report.approve.open'), exact: true }).isDisabled()).toBe(true);
    expect(await axeViolations(reporter)).toEqual([]);
    // Hanne's page names it too.
    await openCase(hanne, caseNumber);
    await record.getByTestId('record-check-2').getByText(msg('record.mismatch', { version: 2 })).waitFor();

    // The true hash back: the reporter approves version 2, over its hash.
    await setHash(v2Hash);
    await reporter.reload();
    await reporter.getByTestId('record-check-2').getByText(msg('record.verified')).waitFor();
    expect(await reporter.getByTestId('record-mismatch').count()).toBe(0);
    await reporter.getByRole('button', { name: msg('private.report.approve.open'), exact: true }).click();
    const approveDialog = reporter.getByRole('alertdialog', { name: msg('private.report.approve.title') });
    await approveDialog.waitFor();
    expect(await axeViolations(reporter)).toEqual([]);
    await approveDialog.getByRole('button', { name: msg('private.report.approve.confirm') }).click();
    await reporter.getByText(msg('private.report.approved')).waitFor();
    const approved = await portal.server.ctx.db.selectFrom('case_record_version').select(['version', 'approved_at']).where('case_id', '=', sealed.caseId).orderBy('version').execute();
    expect(approved.map((v) => [v.version, v.approved_at !== null])).toEqual([[1, false], [2, true]]);

    // Hanne sees the approval beside version 2.
    await openCase(hanne, caseNumber);
    await record.getByTestId('record-approval').getByText(msg('handler.record.approved', { when: '' }).trim(), { exact: false }).waitFor();
    await record.getByTestId('record-versions').locator('li').nth(1).getByText(msg('handler.record.versionApproved', { when: '' }).trim(), { exact: false }).waitFor();
    expect(await axeViolations(hanne)).toEqual([]);

    // No marker on the wire, in any request or response, header or URL.
    // The pages closed first: a response still streaming (the session's open channels) gives up its body then, and every finished one is kept.
    for (const p of opened) await p.close().catch(() => undefined);
    await Promise.all(pending);
    const recorded = wire.join('\n');
    expect(recorded).toContain('/record/sealed');
    expect(recorded).toContain('/comments/sealed');
    expect(recorded).toContain(sealed.body.envelopes.details);
    for (const m of Object.values(MARKERS)) {
      expect(recorded).not.toContain(m);
      expect(recorded).not.toContain(encodeURIComponent(m));
    }
    // Nor in any row of any table.
    const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`.execute(portal.server.ctx.db);
    expect(tables.rows.length).toBeGreaterThan(10);
    for (const { table_name } of tables.rows) {
      const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table_name)}`.execute(portal.server.ctx.db);
      const text = JSON.stringify(rows.rows, (_k, v) => (v && typeof v === 'object' && v.type === 'Buffer' && Array.isArray(v.data) ? Buffer.from(v.data).toString('latin1') : v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v));
      for (const m of Object.values(MARKERS)) expect(text, table_name).not.toContain(m);
    }
  }, 300_000);
});
