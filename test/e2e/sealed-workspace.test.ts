/**
 * A sealed case's files, status and audit trail in the handlers' workspace, in real
 * Chromium against the real server with SEALED_CASES=browser (issue 37;
 * docs/decisions/sealed-workspace.md "Files in the workspace", "Status and audit of sealed
 * cases"). A case for officer A comes sealed as the reporter's browser seals it, with two
 * files sealed and sent by tus: a PDF that still names its author and a spreadsheet of
 * several chunks. Hanne opens it; both names open in her browser.
 *
 * Saving, three ways, each honest about what headless Chromium can do:
 * - Chromium's own `showSaveFilePicker`: headless Chromium has the function but no
 *   dialog, and answers AbortError at once; the page says the dialog was closed and
 *   downloads nothing.
 * - The streaming path: the page's picker is replaced by one that answers a file of the
 *   origin-private file system, whose `createWritable()` is Chromium's own
 *   FileSystemWritableFileStream, the same writable the dialog gives; the file written
 *   there is read back and is the original, byte for byte, and the page names the
 *   hidden data (author) its check found.
 * - A browser without the API: the page says files open in memory up to a limit and
 *   hands the file to the browser's download; Playwright's download is the original.
 * Then the status is changed through its confirmation and the audit trail shows the
 * read, the downloads by file name and the change from → to. A reply goes with a file
 * chosen through the file chooser, sealed in the page and sent by tus; it is listed under
 * its name and opens identical. axe finds nothing on
 * these states; no file name or byte marker is in any request or response.
 */
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PDFDocument } from 'pdf-lib';
import type { Page } from 'playwright-core';
import { axeViolations } from './harness.ts';
import { call } from '../server/api.ts';
import { publicKeyLog, sealCase } from '../helpers/sealed-case.ts';
import { browserSuite, english, enrolHandler, makeRecoveryKey, markersIn, openCaseFromInbox, signInHandler, textOf, NO_THROTTLE, SEALED } from '../helpers/sealed-e2e.ts';
import { concat, openFileName, sealFileForUpload } from '../../core/crypto/index.ts';
import { companyByHost } from '../../server/companies/service.ts';

const { en, msg } = english('handler', 'keys', 'sealed', 'sealedwork', 'metadata');

const HOST = 'group.localhost';
const PASSWORD = 'hanne long passphrase 1';
const MARKERS = { pdfName: 'MARKER-fname-pdf-51c0', xlsxName: 'MARKER-fname-xlsx-8e2d', replyName: 'MARKER-fname-reply-3c61', bytes: 'MARKER-filebytes-a7f3', details: 'MARKER-details-0b9c' };
const PDF_NAME = `Bericht ${MARKERS.pdfName}.pdf`;
const XLSX_NAME = `Kasse ${MARKERS.xlsxName}.xlsx`;
const REPLY_NAME = `Fragen ${MARKERS.replyName}.txt`;

const s = browserSuite({ ...SEALED, ...NO_THROTTLE });

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

async function readAll(stream: ReadableStream<Uint8Array>) {
  const parts: Uint8Array[] = [];
  for await (const p of stream as unknown as AsyncIterable<Uint8Array>) parts.push(p);
  return concat(...parts);
}
const metadata = (pairs: Record<string, string>) => Object.entries(pairs).map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`).join(',');

/** Seals `plain` as the reporter's browser does and sends it by tus in `session`. */
async function upload(session: string, dataKey: Uint8Array, caseId: string, name: string, plain: Uint8Array) {
  const sealed = await sealFileForUpload(dataKey, caseId, new Blob([plain as BlobPart]), { name });
  const bytes = await readAll(sealed.stream);
  const headers = { 'tus-resumable': '1.0.0', 'x-upload-session': session };
  const created = await call(s.portal.server, 'POST', '/api/public/uploads', { host: HOST, pow: false, headers: { ...headers, 'upload-length': String(sealed.size), 'upload-metadata': metadata({ fileId: sealed.fileId, name: sealed.name }) } });
  expect(created.status, JSON.stringify(created.data)).toBe(201);
  const sent = await call(s.portal.server, 'PATCH', `/api/public/uploads/${sealed.fileId}`, { host: HOST, pow: false, body: new Uint8Array(bytes), headers: { ...headers, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' } });
  expect(sent.status, JSON.stringify(sent.data)).toBe(204);
  return sealed.fileId;
}

async function unlock(page: Page) {
  await page.getByTestId('sealed-locked').waitFor();
  await page.getByLabel(msg('keys.unlock.secret')).fill(PASSWORD);
  await page.getByRole('button', { name: msg('keys.unlock.submit') }).click();
  await page.getByTestId('sealed-files').waitFor();
}

describe('files, status and audit of a sealed case in the workspace', () => {
  it('lists the opened names, saves each file identical (to disk by stream, or in memory), changes the status and shows the audit; no marker on the wire', async () => {
    const { portal } = s;
    const company = (await companyByHost(portal.server.ctx.db, HOST))!;
    const officerA = company.settings.protectionOfficers[0]!.id;
    // Every request and response of her page is recorded, with URLs, headers and bodies.
    const hanne = await enrolHandler(s, HOST, { name: 'hanne', password: PASSWORD, officers: [officerA] });
    const { page, wire } = hanne;

    // Enrolled; she signs in and makes the recovery key (it certifies her key).
    await signInHandler(portal, HOST, hanne);
    await makeRecoveryKey(page);

    // The case with its two files, sealed as the reporter's browser seals them.
    const doc = await PDFDocument.create();
    doc.addPage();
    doc.setAuthor('Wanda Whistle');
    doc.setSubject(MARKERS.bytes);
    const pdf = await doc.save({ useObjectStreams: false });
    const xlsx = new Uint8Array(3 * 65_536 + 4_321).map((_, i) => (i * 31 + 7) % 256);
    xlsx.set([0x50, 0x4b, 0x03, 0x04], 0);
    xlsx.set(new TextEncoder().encode(MARKERS.bytes), 1000);
    const log = await publicKeyLog(portal.server, HOST);
    const sealed = await sealCase(log, { officerId: officerA, details: { description: MARKERS.details, whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: '' } });
    const session = (await call(portal.server, 'POST', '/api/public/upload-sessions', { host: HOST, json: { sealed: true } })).data.uploadSession as string;
    const ids = [await upload(session, sealed.dataKey, sealed.caseId, PDF_NAME, pdf), await upload(session, sealed.dataKey, sealed.caseId, XLSX_NAME, xlsx)];
    const created = await call(portal.server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: { ...sealed.body, uploads: ids }, headers: { 'x-upload-session': session } });
    expect(created.status, JSON.stringify(created.data)).toBe(201);
    const caseNumber = created.data.caseDto.caseNumber as string;

    // Opened from the inbox: both names opened in this browser.
    await openCaseFromInbox(page, caseNumber);
    const files = page.getByTestId('sealed-files');
    await files.getByText(PDF_NAME, { exact: true }).waitFor();
    await files.getByText(XLSX_NAME, { exact: true }).waitFor();
    await files.getByText(msg('sealedwork.files.toDisk')).waitFor();

    // 1. Chromium's own picker: headless has no dialog and answers AbortError; nothing is downloaded.
    const fileRequests = () => wire.sent.filter((w) => /^GET .*\/files\//.test(w)).length;
    await files.getByRole('button', { name: msg('sealedwork.files.save', { name: PDF_NAME }) }).click();
    await files.getByText(msg('sealedwork.files.cancelled')).waitFor();
    expect(fileRequests()).toBe(0);

    // 2. The stream to disk: a file of the origin-private file system stands in for the dialog's answer; its writable is Chromium's own.
    await page.addInitScript(() => {
      (window as unknown as { showSaveFilePicker: unknown }).showSaveFilePicker = async ({ suggestedName }: { suggestedName: string }) =>
        (await navigator.storage.getDirectory()).getFileHandle(suggestedName, { create: true });
    });
    await page.reload();
    await unlock(page);
    const savedOnDisk = async (name: string) =>
      page.evaluate(async (n) => {
        const file = await (await (await navigator.storage.getDirectory()).getFileHandle(n)).getFile();
        const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', await file.arrayBuffer()));
        return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
      }, name);
    await files.getByRole('button', { name: msg('sealedwork.files.save', { name: PDF_NAME }) }).click();
    const pdfItem = files.locator('li', { hasText: PDF_NAME });
    await pdfItem.getByText(msg('sealedwork.files.saved')).waitFor();
    // pdf-lib writes a producer and dates too: the author is among the kinds named.
    await pdfItem.getByTestId('sealed-file-metadata').filter({ hasText: en['metadata.kind.author']! }).waitFor();
    expect(await pdfItem.getByTestId('sealed-file-metadata').textContent()).toMatch(/^Hidden data your browser found in it: /);
    expect(await savedOnDisk(PDF_NAME)).toBe(sha256(pdf));
    await files.getByRole('button', { name: msg('sealedwork.files.save', { name: XLSX_NAME }) }).click();
    const xlsxItem = files.locator('li', { hasText: XLSX_NAME });
    await xlsxItem.getByText(msg('sealedwork.files.saved')).waitFor();
    await xlsxItem.getByText(msg('sealedwork.files.metadata.notChecked')).waitFor();
    expect(await savedOnDisk(XLSX_NAME)).toBe(sha256(xlsx));
    expect(await axeViolations(page)).toEqual([]);

    // 3. A browser without the API: in memory, up to the limit it names, through the browser's download.
    await page.addInitScript(() => delete (window as unknown as { showSaveFilePicker?: unknown }).showSaveFilePicker);
    await page.reload();
    await unlock(page);
    await files.getByText(msg('sealedwork.files.inMemory', { limit: '100 MB' })).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), files.getByRole('button', { name: msg('sealedwork.files.save', { name: XLSX_NAME }) }).click()]);
    expect(download.suggestedFilename()).toBe(XLSX_NAME);
    expect(sha256(new Uint8Array(readFileSync((await download.path())!)))).toBe(sha256(xlsx));
    await xlsxItem.getByText(msg('sealedwork.files.saved')).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    // The status, through its confirmation; the answer brings the audit trail with the change.
    await page.getByLabel(msg('handler.case.newStatus')).selectOption('BEING_INVESTIGATED');
    await page.getByRole('button', { name: msg('handler.case.changeStatus') }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByText(msg('handler.case.confirmStatusTitle')).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: msg('handler.case.changeStatus') }).click();
    await page.getByText(msg('handler.case.statusChanged')).waitFor();
    await page.getByTestId('case-status').getByText(msg('handler.status.BEING_INVESTIGATED')).waitFor();
    const trail = page.getByTestId('audit-trail');
    await trail.getByText(msg('sealedwork.audit.detail.status', { from: msg('handler.status.RECEIVED'), to: msg('handler.status.BEING_INVESTIGATED') })).waitFor();
    expect(await trail.getByText(msg('sealedwork.audit.detail.file', { name: PDF_NAME })).count()).toBe(1);
    expect(await trail.getByText(msg('sealedwork.audit.detail.file', { name: XLSX_NAME })).count()).toBe(2);
    // One opening per sitting, however often the page read the case (handler-everyday-work.md).
    expect(await trail.locator('[data-action="CASE_READ"]').count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    const row = await portal.server.ctx.db.selectFrom('report_case').select('status').where('id', '=', sealed.caseId).executeTakeFirstOrThrow();
    expect(row.status).toBe('BEING_INVESTIGATED');

    // A reply with a file, chosen through the file chooser: sealed here, sent by tus, listed under its name, and it opens identical.
    const replyBytes = new TextEncoder().encode(`Fragen zur Kasse ${MARKERS.bytes}\n`.repeat(3000));
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByLabel(msg('sealedwork.composer.attach')).click()]);
    await chooser.setFiles({ name: REPLY_NAME, mimeType: 'text/plain', buffer: Buffer.from(replyBytes) });
    await page.getByTestId('sealed-attachments').getByText(REPLY_NAME, { exact: true }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel(msg('handler.composer.text'), { exact: true }).fill('Please see the questions.');
    await page.getByRole('button', { name: msg('handler.composer.send'), exact: true }).click();
    await page.getByText(msg('handler.composer.sent')).waitFor();
    await files.getByText(REPLY_NAME, { exact: true }).waitFor();
    const stored = await portal.server.ctx.db.selectFrom('case_file').select(['id', 'name_enc', 'message_id', 'mime_type']).where('case_id', '=', sealed.caseId).where('message_id', 'is not', null).executeTakeFirstOrThrow();
    expect(stored.mime_type).toBe('application/octet-stream');
    expect(await openFileName(sealed.dataKey, sealed.caseId, stored.id, Buffer.from(stored.name_enc).toString('base64'))).toEqual({ name: REPLY_NAME, size: replyBytes.length, type: 'text/plain' });
    const [replyDownload] = await Promise.all([page.waitForEvent('download'), files.getByRole('button', { name: msg('sealedwork.files.save', { name: REPLY_NAME }) }).click()]);
    expect(sha256(new Uint8Array(readFileSync((await replyDownload.path())!)))).toBe(sha256(replyBytes));

    // No file name or byte marker (nor the details) in any request or response.
    const all = await wire.all();
    const recorded = all.map(textOf).join('\n');
    expect(fileRequests()).toBe(4);
    expect(recorded).toMatch(/PATCH [^\n]*\/api\/public\/uploads\//);
    expect(recorded).toContain('/status');
    expect(markersIn(all, Object.values(MARKERS), { base64: false })).toEqual([]);
  }, 300_000);
});
