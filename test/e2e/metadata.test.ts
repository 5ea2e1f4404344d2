/**
 * Hidden data removed on the reporter's device (docs/decisions/metadata-removal.md),
 * in real Chromium against the real server: a JPEG with GPS and camera EXIF, a PDF
 * with an author (Info and XMP) and a docx with author and company are added to the
 * online form; the form says, per file, what it found and removed; the case arrives
 * and the stored files, read back decrypted through the handler API, hold none of it
 * (checked with exifr, pdf-lib and fflate). A docx after review (comments, tracked
 * changes, author, last saver, manager, company): the form names each kind the cleaner
 * removed, in words, and exiftool and a zip listing of the stored file find none of them
 * (issue 42, item 5). An identified reporter may keep an original; an anonymous one cannot.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import os from 'node:os';
import exifr from 'exifr';
import { PDFDocument, PDFName } from 'pdf-lib';
import { strFromU8, unzipSync } from 'fflate';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { SECRET, docxWithAuthor, docxWithReview, jpegWithExif, pdfWithAuthor } from '../fixtures/metadata-files.ts';
import { cleanFile } from '../../core/metadata/scan.ts';
import { createOnlineCase, firstOfficerId, signInThroughProvider } from './reporter.ts';

const read = (area: string) =>
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, `../../src/i18n/${area}/en.json`), 'utf8')) as Record<string, string>;
const en = { ...read('common'), ...read('forms'), ...read('private'), ...read('metadata') };
const msg = (key: string, values: Record<string, string | number> = {}) => en[key]!.replace(/\{(\w+)\}/g, (_, k: string) => String(values[k]));
const escape = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// exiftool (Debian's libimage-exiftool-perl and libarchive-zip-perl; .ci/run installs them).
const hasExiftool = spawnSync('exiftool', ['-ver']).status === 0;
if (!hasExiftool && process.env.CI) throw new Error('exiftool is required in CI (.ci/run installs libimage-exiftool-perl)');

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

  it('a docx with comments, tracked changes, author, manager and company: the form names each removed kind in words, and exiftool and a zip listing of the stored file find none of them', async () => {
    const { page } = await openForm();
    const original = docxWithReview();
    await fillAnonymous(page);
    await attach(page, [{ name: 'review.docx', bytes: original }]);

    // The words are the cleaner's own answer for this file, nothing more and nothing less.
    const { removed } = await cleanFile(original);
    const named = ['author', 'lastModifiedBy', 'manager', 'company', 'created', 'modified', 'comments', 'commentAuthors', 'commentDates', 'trackedChanges', 'changeAuthors', 'changeDates'];
    expect(removed).toEqual(expect.arrayContaining(named));
    const line = await outcome(page, 'review.docx');
    // Joined by the page's own Intl (the browser's ICU), in the page's language.
    const list = await page.evaluate(
      (labels) => new Intl.ListFormat(document.documentElement.lang, { type: 'conjunction' }).format(labels),
      removed.map((k) => en[`metadata.kind.${k}`]!),
    );
    expect(line).toBe(msg('metadata.removed', { list }));
    for (const k of named) expect(line).toContain(en[`metadata.kind.${k}`]);
    expect(en['metadata.kind.manager']).not.toBe(en['metadata.kind.company']);
    // What was found, with the values the reporter would recognise: the manager as manager.
    const item = (await fileItem(page, 'review.docx').textContent())!;
    expect(item).toContain(`${en['metadata.kind.manager']}: ${SECRET.manager}`);
    expect(item).toContain(`${en['metadata.kind.company']}: ${SECRET.company}`);
    expect(item).toContain(`${en['metadata.kind.commentAuthors']}: ${SECRET.commenter}`);
    expect(item).toContain(`${en['metadata.kind.changeAuthors']}: ${SECRET.changer}`);
    expect(await fileItem(page, 'review.docx').getByTestId('metadata-remaining').count()).toBe(0);
    expect(await axeViolations(page), 'documents step with a reviewed docx').toEqual([]);

    const c = await sendAndFindCase(page);
    const file = (c.files as { id: string; name: string }[]).find((f) => f.name === 'review.docx')!;
    const bytes = await stored(c.caseNumber, file.id);

    // The zip listing: no comment parts, no author or date on anything, the changes accepted.
    const parts = unzipSync(bytes);
    expect(Object.keys(parts).filter((n) => /comments|people|thumbnail/i.test(n))).toEqual([]);
    const text = Object.values(parts).map((b) => strFromU8(b)).join('\n');
    expect(text).not.toMatch(/w:author=|w:date=|w:initials=|<w:ins\b|<w:del\b|w:rPrChange|w:pPrChange|commentReference|commentRange/);
    for (const secret of [SECRET.author, SECRET.lastModifiedBy, SECRET.manager, SECRET.company, SECRET.commenter, SECRET.commentText, SECRET.changer, SECRET.deletedText, '2026-05']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('Invoices are paid twice.');
    expect(text).toContain('The second payment goes to a private account.');

    // exiftool, on the file as the handler downloads it.
    if (!hasExiftool) {
      console.warn('metadata.test.ts: exiftool is not installed; its reading of the stored docx was SKIPPED');
      return;
    }
    const read = (name: string, b: Uint8Array) => {
      const f = path.join(tmp, name);
      writeFileSync(f, b);
      return execFileSync('exiftool', ['-G1', '-a', '-u', '-s', f], { encoding: 'utf8' });
    };
    const before = read('review-original.docx', original);
    expect(before).toContain(SECRET.manager); // exiftool can read docx properties here
    const after = read('review-stored.docx', bytes);
    expect(after).not.toMatch(/\[(XML|XMP-\w+)\]/);
    for (const secret of [SECRET.author, SECRET.lastModifiedBy, SECRET.manager, SECRET.company, '2026:05']) expect(after).not.toContain(secret);
    const zipDates = [...after.matchAll(/ZipModifyDate\s*: (.*)/g)].map((m) => m[1]);
    expect(zipDates.length).toBeGreaterThan(0);
    expect(new Set(zipDates)).toEqual(new Set(['1980:01:01 00:00:00']));
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
