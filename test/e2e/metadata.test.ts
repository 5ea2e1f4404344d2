/**
 * Hidden data removed on the reporter's device (docs/decisions/metadata-removal.md),
 * in real Chromium against the real server: a JPEG with GPS and camera EXIF, a PDF
 * with an author (Info and XMP) and a docx with author and company are added to the
 * online form; the form says, per file, what it found and removed; the case arrives
 * and the stored files, read back decrypted through the handler API, hold none of it
 * (checked with exifr, pdf-lib and fflate). An identified reporter may keep an
 * original; an anonymous one cannot.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import exifr from 'exifr';
import { PDFDocument, PDFName } from 'pdf-lib';
import { strFromU8, unzipSync } from 'fflate';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { SECRET, docxWithAuthor, jpegWithExif, pdfWithAuthor } from '../fixtures/metadata-files.ts';
import { createOnlineCase, firstOfficerId, signInThroughProvider } from './reporter.ts';

const read = (area: string) =>
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, `../../src/i18n/${area}/en.json`), 'utf8')) as Record<string, string>;
const en = { ...read('common'), ...read('forms'), ...read('private'), ...read('metadata') };
const msg = (key: string, values: Record<string, string | number> = {}) => en[key]!.replace(/\{(\w+)\}/g, (_, k: string) => String(values[k]));
const escape = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let browser: Browser;
let portal: Portal;
let token: string;
const opened: OpenedPage[] = [];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-metadata-e2e-'));

beforeAll(async () => {
  [browser, portal] = await Promise.all([launchBrowser(), startPortal()]);
  token = (await createHandlerAccount(portal.server.ctx.db, 'nordlys-energi', 'Metadata Handler')).token;
});

afterAll(async () => {
  for (const p of opened) await p.close().catch(() => {});
  await browser?.close();
  await portal?.server.cleanup();
});

async function handler(pathname: string): Promise<Response> {
  const res = await fetch(`${portal.server.url}${pathname}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status, pathname).toBe(200);
  return res;
}

async function openForm(): Promise<OpenedPage> {
  const p = await openPage(browser, { locale: 'en-GB' });
  opened.push(p);
  await p.page.goto(portal.url('localhost', '/online-form'));
  await p.page.getByRole('heading', { level: 2 }).first().waitFor();
  return p;
}

const field = (page: Page, key: string) => page.getByLabel(new RegExp(`^${escape(en[key]!)}\\*?$`));
const step = (page: Page, key: string) => page.locator('section', { has: page.getByRole('heading', { name: en[`forms.step.${key}.title`] }) });
const fileItem = (page: Page, name: string) => page.getByRole('listitem').filter({ hasText: name });

async function attach(page: Page, files: { name: string; bytes: Uint8Array }[]) {
  const paths = files.map((f) => {
    const p = path.join(tmp, f.name);
    writeFileSync(p, f.bytes);
    return p;
  });
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: en['forms.documents.choose'] }).click()]);
  await chooser.setFiles(paths);
}

/** The outcome line of a file once its check has settled. */
async function outcome(page: Page, name: string): Promise<string> {
  const line = fileItem(page, name).getByTestId('metadata-outcome');
  await line.waitFor({ timeout: 20_000 });
  return (await line.textContent())!;
}

async function fillAnonymous(page: Page) {
  await field(page, 'forms.relation.label').fill('Employee');
  await field(page, 'forms.describe.description').fill('Invoices are paid twice.');
  await step(page, 'describeProblem').getByRole('radio', { name: en['forms.no'] }).check();
  await page.getByRole('radio', { name: en['forms.related.company'] }).check();
  await field(page, 'forms.related.unit').fill('Accounts payable');
  await page.getByRole('radio', { name: en['forms.identity.anonymous'] }).check();
  await page.getByRole('radio', { name: en['forms.follow.notFollow'] }).check();
  await page.getByRole('checkbox', { name: new RegExp(en['forms.terms.accept']!) }).check();
}

async function sendAndFindCase(page: Page): Promise<any> {
  const before = ((await (await handler('/api/handler/cases')).json()) as { cases: { caseNumber: string }[] }).cases.map((c) => c.caseNumber);
  const button = page.getByRole('button', { name: msg('forms.send.online') });
  await expect.poll(() => button.isEnabled()).toBe(true);
  await button.click();
  await page.getByRole('dialog', { name: en['forms.success.online.title'] }).waitFor({ timeout: 30_000 });
  const after = ((await (await handler('/api/handler/cases')).json()) as { cases: { caseNumber: string }[] }).cases.map((c) => c.caseNumber);
  const added = after.filter((n) => !before.includes(n));
  expect(added).toHaveLength(1);
  return (await handler(`/api/handler/cases/${added[0]}`)).json();
}

const stored = async (caseNumber: string, fileId: string) =>
  new Uint8Array(await (await handler(`/api/handler/cases/${caseNumber}/files/${fileId}`)).arrayBuffer());

describe('hidden data removed before upload', () => {
  it('JPEG with GPS and camera, PDF with author, docx with author and company: shown, removed, and the stored files hold none of it', async () => {
    const { page } = await openForm();
    const files = [
      { name: 'site.jpg', bytes: jpegWithExif() },
      { name: 'minutes.pdf', bytes: await pdfWithAuthor() },
      { name: 'memo.docx', bytes: docxWithAuthor() },
    ];
    await fillAnonymous(page);
    await attach(page, files);

    const jpg = await outcome(page, 'site.jpg');
    expect(jpg).toMatch(/^Removed: /);
    for (const k of ['location', 'device', 'serialNumber', 'author']) expect(jpg).toContain(en[`metadata.kind.${k}`]);
    // What was found is shown in plain words, with the values the reporter would recognise.
    const jpgItem = (await fileItem(page, 'site.jpg').textContent())!;
    expect(jpgItem).toContain(SECRET.model);
    expect(jpgItem).toContain(String(SECRET.latitude).slice(0, 5));
    expect(await outcome(page, 'minutes.pdf')).toContain(en['metadata.kind.author']);
    const docx = await outcome(page, 'memo.docx');
    for (const k of ['author', 'company', 'editingTime', 'revisionIds']) expect(docx).toContain(en[`metadata.kind.${k}`]);

    // Anonymous: the original cannot be kept, and the sentence says why.
    const keep = fileItem(page, 'site.jpg').getByRole('button', { name: msg('metadata.keepOriginal', { name: 'site.jpg' }) });
    expect(await keep.isDisabled()).toBe(true);
    expect(await fileItem(page, 'site.jpg').getByText(en['metadata.whyKeep']!).isVisible()).toBe(true);
    expect(await axeViolations(page), 'documents step with findings').toEqual([]);

    const c = await sendAndFindCase(page);
    const byName = Object.fromEntries((c.files as { id: string; name: string; size: number; metadataRemaining: string[] | null }[]).map((f) => [f.name, f]));
    expect(Object.keys(byName).sort()).toEqual(['memo.docx', 'minutes.pdf', 'site.jpg']);

    const jpeg = await stored(c.caseNumber, byName['site.jpg']!.id);
    expect(jpeg.length).toBeLessThan(files[0]!.bytes.length);
    expect(await exifr.parse(jpeg, { gps: true, tiff: true, exif: true, xmp: true, iptc: true })).toBeUndefined();
    expect(Buffer.from(jpeg).toString('latin1')).not.toContain(SECRET.serial);
    expect(byName['site.jpg']!.metadataRemaining).toEqual([]);

    const pdf = await PDFDocument.load(await stored(c.caseNumber, byName['minutes.pdf']!.id), { updateMetadata: false });
    expect(pdf.getAuthor()).toBeUndefined();
    expect(pdf.getProducer()).toBeUndefined();
    expect(pdf.catalog.get(PDFName.of('Metadata'))).toBeUndefined();
    expect(byName['minutes.pdf']!.metadataRemaining).toEqual([]);

    const parts = unzipSync(await stored(c.caseNumber, byName['memo.docx']!.id));
    const text = Object.values(parts).map((b) => strFromU8(b)).join('\n');
    expect(text).not.toContain(SECRET.author);
    expect(text).not.toContain(SECRET.company);
    expect(strFromU8(parts['docProps/app.xml']!)).not.toMatch(/TotalTime|Company/);
    expect(text).toContain('Invoices are paid twice.');
  });

  it('an identified reporter may keep the original; going anonymous again switches back to the cleaned copy', async () => {
    const { page } = await openForm();
    const original = jpegWithExif();
    await page.getByRole('radio', { name: en['forms.identity.reveal'] }).check();
    await attach(page, [{ name: 'proof.jpg', bytes: original }]);
    expect(await outcome(page, 'proof.jpg')).toMatch(/^Removed: /);
    await fileItem(page, 'proof.jpg').getByRole('button', { name: msg('metadata.keepOriginal', { name: 'proof.jpg' }) }).click();
    expect(await outcome(page, 'proof.jpg')).toBe(en['metadata.keptOriginal']);
    await page.getByRole('radio', { name: en['forms.identity.anonymous'] }).check();
    expect(await outcome(page, 'proof.jpg')).toMatch(/^Removed: /);
    await page.getByRole('radio', { name: en['forms.identity.reveal'] }).check();
    await fileItem(page, 'proof.jpg').getByRole('button', { name: msg('metadata.keepOriginal', { name: 'proof.jpg' }) }).click();
    expect(await outcome(page, 'proof.jpg')).toBe(en['metadata.keptOriginal']);
  });

  it('a type it cannot check is named before sending', async () => {
    const { page } = await openForm();
    await attach(page, [{ name: 'notes.txt', bytes: new TextEncoder().encode('plain words\n') }]);
    await expect.poll(() => fileItem(page, 'notes.txt').getByText(en['metadata.uncheckable']!).isVisible()).toBe(true);
  });

  it('a message with a photo: removed on the device before it is sent, and the stored file holds none of it', async () => {
    const caseNumber = await createOnlineCase(portal, { officerId: await firstOfficerId(portal), password: 'metadata-1' });
    const p = await openPage(browser, { locale: 'en-GB' });
    opened.push(p);
    const { page } = p;
    await signInThroughProvider(portal, page, caseNumber, 'metadata-1', '/private/messages');
    await page.getByLabel(/^Attach files/).setInputFiles({ name: 'receipt.jpg', mimeType: 'image/jpeg', buffer: Buffer.from(jpegWithExif()) });
    const removed = await outcome(page, 'receipt.jpg');
    expect(removed).toContain(en['metadata.kind.location']);
    await page.getByLabel(msg('private.messages.label')).fill('The receipt.');
    await page.getByRole('button', { name: msg('private.messages.send'), exact: true }).click();
    await page.locator('[data-own="true"]', { hasText: 'The receipt.' }).waitFor();
    const c = await (await handler(`/api/handler/cases/${caseNumber}`)).json();
    const f = c.messages.find((m: any) => m.message === 'The receipt.').files[0];
    expect(f.metadataRemaining).toEqual([]);
    const bytes = await stored(caseNumber, f.id);
    expect(await exifr.parse(bytes, { gps: true, tiff: true, exif: true })).toBeUndefined();
    expect(Buffer.from(bytes).toString('latin1')).not.toContain(SECRET.author);
  });
});
