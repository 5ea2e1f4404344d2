/**
 * The hidden-data check of an opened sealed file runs in the handler's own Web Worker
 * (docs/decisions/sealed-workspace.md "Where the check runs", src/handler/fileOpening.ts):
 * a reporter sends the 2 KB and 8 KB flate-bomb PDFs of issue 36's finding 1 on a sealed
 * case; the handler opens the case and saves them. Each check starts a worker from a
 * blob: URL of its pinned bytes (never on the page's thread), the worker is ended after
 * its verdict, the page keeps answering (the status dialog opens and closes while the
 * files are checked), each file is named "could not be checked" and is saved identical.
 * And a check that never answers (its worker held before its first line by a debugger
 * of the test's own) is ended at the page's time limit, with the same verdict, while the
 * page keeps answering; a worker whose bytes are not the pinned ones is never started.
 * Real server, real Chromium; the harness fails the page on any CSP or Trusted Types
 * violation.
 */
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import type { Page, Worker } from 'playwright-core';
import { call } from '../server/api.ts';
import { publicKeyLog, sealCase } from '../helpers/sealed-case.ts';
import { browserSuite, english, enrolHandler, makeRecoveryKey, openCaseFromInbox, signInHandler, NO_THROTTLE, SEALED } from '../helpers/sealed-e2e.ts';
import { concat, sealFileForUpload } from '../../core/crypto/index.ts';
import { companyByHost } from '../../server/companies/service.ts';
import { flateBombPdf, pdfWithAuthor } from '../fixtures/metadata-files.ts';
import { axeViolations } from './harness.ts';

const { msg } = english('handler', 'keys', 'sealedwork');

const HOST = 'group.localhost';
const PASSWORD = 'hanne long passphrase 1';
const SMALL = 'Protokoll.pdf';
const LARGE = 'Anlagen.pdf';
const REPORT = 'Bericht.pdf';
const ALTERED = 'Vermerk.pdf';

const s = browserSuite({ ...SEALED, ...NO_THROTTLE });
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const metadata = (pairs: Record<string, string>) => Object.entries(pairs).map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`).join(',');

/** Seals `plain` as the reporter's browser does and sends it by tus in `session`. */
async function upload(session: string, dataKey: Uint8Array, caseId: string, name: string, plain: Uint8Array) {
  const sealed = await sealFileForUpload(dataKey, caseId, new Blob([plain as BlobPart]), { name });
  const parts: Uint8Array[] = [];
  for await (const p of sealed.stream as unknown as AsyncIterable<Uint8Array>) parts.push(p);
  const headers = { 'tus-resumable': '1.0.0', 'x-upload-session': session };
  const created = await call(s.portal.server, 'POST', '/api/public/uploads', { host: HOST, pow: false, headers: { ...headers, 'upload-length': String(sealed.size), 'upload-metadata': metadata({ fileId: sealed.fileId, name: sealed.name }) } });
  expect(created.status, JSON.stringify(created.data)).toBe(201);
  const sent = await call(s.portal.server, 'PATCH', `/api/public/uploads/${sealed.fileId}`, { host: HOST, pow: false, body: concat(...parts), headers: { ...headers, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' } });
  expect(sent.status, JSON.stringify(sent.data)).toBe(204);
  return sealed.fileId;
}

async function unlock(page: Page) {
  await page.getByTestId('sealed-locked').waitFor();
  await page.getByLabel(msg('keys.unlock.secret')).fill(PASSWORD);
  await page.getByRole('button', { name: msg('keys.unlock.submit') }).click();
  await page.getByTestId('sealed-files').waitFor();
}

/** The handler, enrolled and signed in once, with the recovery key made (it certifies her key). */
let signedIn: Promise<{ page: Page; officer: string }> | undefined;
function handler() {
  signedIn ??= (async () => {
    const company = (await companyByHost(s.portal.server.ctx.db, HOST))!;
    const officer = company.settings.protectionOfficers[0]!.id;
    const h = await enrolHandler(s, HOST, { name: 'hanne', password: PASSWORD, officers: [officer] });
    await signInHandler(s.portal, HOST, h);
    await makeRecoveryKey(h.page);
    return { page: h.page, officer };
  })();
  return signedIn;
}

/** A sealed case with `files` sent as a reporter's browser seals them, opened on the handler's page with a save dialog that writes to the origin-private file system. */
async function caseOpenedWith(files: [string, Uint8Array][]) {
  const { portal } = s;
  const { page, officer } = await handler();

  const log = await publicKeyLog(portal.server, HOST);
  const sealed = await sealCase(log, { officerId: officer, details: { description: 'Die Anlagen zur Sitzung.', whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: '' } });
  const session = (await call(portal.server, 'POST', '/api/public/upload-sessions', { host: HOST, json: { sealed: true } })).data.uploadSession as string;
  const ids: string[] = [];
  for (const [name, plain] of files) ids.push(await upload(session, sealed.dataKey, sealed.caseId, name, plain));
  const created = await call(portal.server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: { ...sealed.body, uploads: ids }, headers: { 'x-upload-session': session } });
  expect(created.status, JSON.stringify(created.data)).toBe(201);

  // A file of the origin-private file system stands in for the save dialog's answer; its writable is Chromium's own.
  await page.addInitScript(() => {
    (window as unknown as { showSaveFilePicker: unknown }).showSaveFilePicker = async ({ suggestedName }: { suggestedName: string }) =>
      (await navigator.storage.getDirectory()).getFileHandle(suggestedName, { create: true });
  });
  await openCaseFromInbox(page, created.data.caseDto.caseNumber as string);
  await page.reload();
  await unlock(page);
  const savedOnDisk = async (name: string) =>
    page.evaluate(async (n) => {
      const file = await (await (await navigator.storage.getDirectory()).getFileHandle(n)).getFile();
      const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', await file.arrayBuffer()));
      return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
    }, name);
  const workers: { url: string; closed: Promise<void> }[] = [];
  page.on('worker', (w: Worker) => workers.push({ url: w.url(), closed: new Promise((r) => w.once('close', () => r())) }));
  return { page, caseId: sealed.caseId, savedOnDisk, workers, files: page.getByTestId('sealed-files') };
}

/** The status dialog opens and is closed unconfirmed: the page answers. */
async function statusDialogAnswers(page: Page) {
  await page.getByLabel(msg('handler.case.newStatus')).selectOption('BEING_INVESTIGATED');
  await page.getByRole('button', { name: msg('handler.case.changeStatus') }).click();
  const dialog = page.getByRole('alertdialog');
  await dialog.getByText(msg('handler.case.confirmStatusTitle')).waitFor();
  await dialog.getByRole('button', { name: msg('handler.cancel') }).click();
  await dialog.waitFor({ state: 'detached' });
}

async function statusOf(caseId: string) {
  return (await s.portal.server.ctx.db.selectFrom('report_case').select('status').where('id', '=', caseId).executeTakeFirstOrThrow()).status;
}

describe('the opened-file check of a sealed case in its worker', () => {
  it('flate-bomb PDFs are checked in a worker that is ended after, named could not be checked and saved identical, while the page keeps working', async () => {
    const small = await flateBombPdf(1);
    const large = await flateBombPdf(4);
    const { page, caseId, savedOnDisk, workers, files } = await caseOpenedWith([[SMALL, small], [LARGE, large]]);
    for (const [name, plain] of [[SMALL, small], [LARGE, large]] as const) {
      const before = workers.length;
      await files.getByRole('button', { name: msg('sealedwork.files.save', { name }) }).click();
      // While the file is opened and checked, the page answers.
      await statusDialogAnswers(page);
      const item = files.locator('li', { hasText: name });
      await item.getByText(msg('sealedwork.files.saved')).waitFor();
      await item.getByTestId('sealed-file-metadata').getByText(msg('sealedwork.files.metadata.couldNotCheck')).waitFor();
      expect(await savedOnDisk(name)).toBe(sha256(plain));
      // One worker for this check, from a blob: URL of its checked bytes, ended after its verdict.
      expect(workers.length).toBe(before + 1);
      expect(workers[before]!.url).toMatch(/^blob:/);
      await workers[before]!.closed;
    }
    expect(await axeViolations(page)).toEqual([]);
    // The status was never changed: each dialog was closed unconfirmed.
    expect(await statusOf(caseId)).toBe('RECEIVED');
  }, 300_000);

  it('a check that does not answer is ended at the time limit: could not be checked, saved identical, and the page answers while it hangs', async () => {
    const pdf = await pdfWithAuthor();
    const { page, savedOnDisk, workers, files } = await caseOpenedWith([[REPORT, pdf]]);
    // A debugger of its own holds every worker the page starts before its first line
    // (DevTools' wait for the debugger, never released here): to the page, a check
    // that never ends. Without it this PDF's author would be named.
    const cdp = await page.context().newCDPSession(page);
    const held: string[] = [];
    cdp.on('Target.attachedToTarget', (e) => {
      if (e.targetInfo.type === 'worker') held.push(e.targetInfo.url);
    });
    await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });

    await files.getByRole('button', { name: msg('sealedwork.files.save', { name: REPORT }) }).click();
    await expect.poll(() => held.length).toBe(1);
    const item = files.locator('li', { hasText: REPORT });
    await item.getByText(msg('sealedwork.files.saving', { name: REPORT })).waitFor();
    // The check hangs; the page answers.
    await statusDialogAnswers(page);
    await item.getByTestId('sealed-file-metadata').getByText(msg('sealedwork.files.metadata.couldNotCheck')).waitFor({ timeout: 60_000 });
    await item.getByText(msg('sealedwork.files.saved')).waitFor();
    expect(await savedOnDisk(REPORT)).toBe(sha256(pdf));
    expect(workers).toHaveLength(1);
    await workers[0]!.closed;
    await cdp.detach();
  }, 300_000);

  it('a check worker whose bytes are not the pinned ones is never started: could not be checked, and the file saved identical', async () => {
    const pdf = await pdfWithAuthor();
    const { page, savedOnDisk, workers, files } = await caseOpenedWith([[ALTERED, pdf]]);
    // Bytes that would say "no hidden data" if they ran.
    let asked = 0;
    await page.route(/\/handler\/assets\/openedFileCheck\.worker-[\w-]+\.js$/, (route) => {
      asked++;
      return route.fulfill({ status: 200, contentType: 'text/javascript', body: 'self.onmessage = () => self.postMessage({ metadata: [] });' });
    });
    await files.getByRole('button', { name: msg('sealedwork.files.save', { name: ALTERED }) }).click();
    const item = files.locator('li', { hasText: ALTERED });
    await item.getByTestId('sealed-file-metadata').getByText(msg('sealedwork.files.metadata.couldNotCheck')).waitFor();
    await item.getByText(msg('sealedwork.files.saved')).waitFor();
    expect(await savedOnDisk(ALTERED)).toBe(sha256(pdf));
    expect(asked).toBe(1);
    expect(workers).toEqual([]);
    await page.unroute(/openedFileCheck/);
  }, 300_000);
});
