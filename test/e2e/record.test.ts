/**
 * The record of a phone report, proven, in real Chromium (docs/decisions/record-versions.md):
 * the reporter sees the version's SHA-256, approves that version, the handler's later
 * edit shows as a new version awaiting approval with the words changed, and the
 * approved version downloads with its hash and approval time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { createPhoneCase, firstOfficerId, signInThroughProvider } from './reporter.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';

const en = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../src/i18n/private/en.json'), 'utf8')) as Record<string, string>;
const msg = (key: string, values: Record<string, string | number> = {}) => en[key]!.replace(/\{(\w+)\}/g, (_, k: string) => String(values[k]));
const sha = (t: string) => createHash('sha256').update(t, 'utf8').digest('hex');

let browser: Browser;
let portal: Portal;
let token: string;
const opened: OpenedPage[] = [];

beforeAll(async () => {
  [browser, portal] = await Promise.all([launchBrowser(), startPortal()]);
  token = (await createHandlerAccount(portal.server.ctx.db, 'nordlys-energi', 'Record Handler')).token;
});
afterAll(async () => {
  for (const p of opened) await p.close().catch(() => {});
  await browser?.close();
  await portal?.server.cleanup();
});

const handler = (method: string, p: string, json?: unknown) =>
  fetch(`${portal.server.url}${p}`, { method, headers: { authorization: `Bearer ${token}`, ...(json ? { 'content-type': 'application/json' } : {}) }, body: json ? JSON.stringify(json) : undefined });

const V1 = 'The caller said that invoices from Acme were paid twice in March.';
const V2 = 'The caller said that invoices from Acme Supplies were paid twice in March and April.';

describe('the record, proven', () => {
  it('approve a version by its hash; a later edit is a new version awaiting approval with its changes; the approved version downloads with hash and time', async () => {
    const caseNumber = await createPhoneCase(portal, { officerId: await firstOfficerId(portal), password: 'record-1' });
    expect((await handler('PUT', `/api/handler/cases/${caseNumber}/report`, { text: V1 })).status).toBe(200);
    const p = await openPage(browser, { locale: 'en-GB' });
    opened.push(p);
    const { page } = p;
    await signInThroughProvider(portal, page, caseNumber, 'record-1', '/private/report');

    await expect.poll(() => page.getByTestId('record-hash').textContent()).toBe(msg('private.record.current', { version: 1, hash: sha(V1) }));
    await page.getByRole('button', { name: msg('private.report.approve.open'), exact: true }).click();
    const dialog = page.getByRole('alertdialog', { name: msg('private.report.approve.title') });
    expect(await dialog.textContent()).toContain(sha(V1));
    await dialog.getByRole('button', { name: msg('private.report.approve.confirm') }).click();
    await expect.poll(async () => ((await (await handler('GET', `/api/handler/cases/${caseNumber}`)).json()) as any).report.versions[0].approvedAt).not.toBeNull();

    // The handler edits after the approval: a new version, awaiting approval on both sides.
    const edited = (await (await handler('PUT', `/api/handler/cases/${caseNumber}/report`, { text: V2 })).json()) as any;
    expect(edited.approvedAt).toBeNull();
    expect(edited.report.versions.map((v: any) => [v.version, !!v.approvedAt])).toEqual([
      [1, true],
      [2, false],
    ]);
    await page.reload();
    await expect.poll(() => page.getByTestId('record-awaiting').textContent()).toBe(msg('private.record.awaiting', { version: 2 }));
    expect(await page.getByTestId('record-hash').textContent()).toBe(msg('private.record.current', { version: 2, hash: sha(V2) }));
    const diff = page.getByTestId('record-diff');
    expect((await diff.locator('ins').allTextContents()).join(' ')).toMatch(/Supplies[\s\S]*April/);
    expect(await page.getByRole('button', { name: msg('private.report.approve.open'), exact: true }).isEnabled()).toBe(true);
    expect(await axeViolations(page), 'record with two versions').toEqual([]);

    // The approved version 1, downloaded by the reporter: its text, hash and approval time.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: msg('private.record.download', { version: 1 }) }).click()]);
    expect(download.suggestedFilename()).toBe(`record-${caseNumber}-v1.txt`);
    const body = readFileSync((await download.path())!, 'utf8');
    expect(body).toContain(sha(V1));
    expect(body).toContain(`Approved by the reporter: ${edited.report.versions[0].approvedAt}`);
    expect(sha(body.split('----- BEGIN RECORD -----\n')[1]!.split('\n----- END RECORD -----')[0]!)).toBe(sha(V1));

    // Approving now approves version 2, by its hash.
    await page.getByRole('button', { name: msg('private.report.approve.open'), exact: true }).click();
    expect(await dialog.textContent()).toContain(sha(V2));
    await dialog.getByRole('button', { name: msg('private.report.approve.confirm') }).click();
    await expect.poll(async () => ((await (await handler('GET', `/api/handler/cases/${caseNumber}`)).json()) as any).report.versions[1].approvedAt).not.toBeNull();
  });
});
