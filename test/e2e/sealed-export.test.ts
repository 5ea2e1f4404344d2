/**
 * Exporting a sealed case in real Chromium against the real server (issue 38 Build 4;
 * docs/decisions/case-export.md): the case is sealed as the reporter's browser seals it,
 * with an identity and two files sent by tus; the reporter writes, the handler answers
 * through the sealed composer. The handler's browser opens every part, the server records
 * the export in the case's clear audit trail, and the browser makes the PDF and the zip:
 * the PDF read back with a real parser (unpdf) has no trace of the blacked-out name, has
 * both files' SHA-256, both messages, the identity (ticked by hand) and says it is
 * redacted; the zip holds the files as the reporter sent them (the SHA-256 of each entry
 * is the original's), its names redacted; the trail on the page names the export; the
 * name went over the wire in no request or response (the terms stay in the browser); the
 * print style sheet prints the sealed case without the workspace's chrome. A message
 * altered at rest and a file altered before upload are named in the export as not
 * opened (the file's zip entry called incomplete), and the export still comes. A phone
 * case's record, written sealed in the page and approved by the reporter over its hash,
 * is exported with its version, its SHA-256 and the approval.
 */
import { describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { unzipSync } from 'fflate';
import { extractText, getDocumentProxy } from 'unpdf';
import { axeViolations } from './harness.ts';
import { call } from '../server/api.ts';
import { followedAccount, publicKeyLog, sealCase, sendFollowedSealedCase } from '../helpers/sealed-case.ts';
import { browserSuite, english, enrolHandler, makeRecoveryKey, markersIn, openCaseFromInbox, signInHandler, NO_THROTTLE, SEALED } from '../helpers/sealed-e2e.ts';
import { concat, recordHash, sealFileForUpload, sealMessage } from '../../core/crypto/index.ts';
import { Browser as ReporterBrowser, signIn as reporterSignIn } from '../server/identity-flow.ts';
import { companyByHost } from '../../server/companies/service.ts';

const { msg } = english('handler', 'keys', 'sealed', 'sealedwork', 'export', 'record');
const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

const HOST = 'group.localhost';
const PASSWORD = 'hanne long passphrase 1';
const REPORTER_PASSWORD = 'a long reporter password';
const NAME = 'Jan Kowalski';
const FILES = [
  { name: `ledger for ${NAME}.txt`, bytes: new TextEncoder().encode(`Invoice 4711 paid twice; approved by ${NAME}.\n`) },
  // Several 64 KiB chunks: the stream is opened chunk by chunk into the hash and the zip.
  { name: 'minutes.txt', bytes: new TextEncoder().encode(`Minutes ÆØÅ æøå ąęł\n${randomBytes(150_000).toString('hex')}\n`) },
];
const FROM_REPORTER = 'The second invoice came from Łódź Transport as well.';
/** Sealed, then one byte of its second 64 KiB chunk flipped: its name opens, its bytes do not to the end. */
const ALTERED = { name: 'altered.txt', bytes: new TextEncoder().encode('x'.repeat(200_000)), at: 100_000 };
const REPLY = `Did ${NAME} sign both invoices himself?`;

const s = browserSuite({ ...SEALED, ...NO_THROTTLE });

async function readAll(stream: ReadableStream<Uint8Array>) {
  const parts: Uint8Array[] = [];
  for await (const p of stream as unknown as AsyncIterable<Uint8Array>) parts.push(p);
  return concat(...parts);
}
const metadata = (pairs: Record<string, string>) => Object.entries(pairs).map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`).join(',');

/** Seals `plain` as the reporter's browser does and sends it by tus in `session`; `alterAt`: one byte of the sealed stream flipped there (an altered source). */
async function upload(session: string, dataKey: Uint8Array, caseId: string, name: string, plain: Uint8Array, alterAt?: number) {
  const sealed = await sealFileForUpload(dataKey, caseId, new Blob([plain as BlobPart]), { name });
  const bytes = await readAll(sealed.stream);
  if (alterAt !== undefined) bytes[alterAt]! ^= 0x01;
  const headers = { 'tus-resumable': '1.0.0', 'x-upload-session': session };
  const created = await call(s.portal.server, 'POST', '/api/public/uploads', { host: HOST, pow: false, headers: { ...headers, 'upload-length': String(sealed.size), 'upload-metadata': metadata({ fileId: sealed.fileId, name: sealed.name }) } });
  expect(created.status, JSON.stringify(created.data)).toBe(201);
  const sent = await call(s.portal.server, 'PATCH', `/api/public/uploads/${sealed.fileId}`, { host: HOST, pow: false, body: new Uint8Array(bytes), headers: { ...headers, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' } });
  expect(sent.status, JSON.stringify(sent.data)).toBe(204);
  return sealed.fileId;
}

describe('exporting a sealed case', () => {
  it('opens every part in the browser, records the export in the clear trail, makes a redacted PDF (read back) and a zip of the files identical', async () => {
    const { portal } = s;
    const company = (await companyByHost(portal.server.ctx.db, HOST))!;
    const officerA = company.settings.protectionOfficers[0]!.id;
    const hanne = await enrolHandler(s, HOST, { name: 'hanne', password: PASSWORD, officers: [officerA] });
    const { page, wire } = hanne;
    await signInHandler(portal, HOST, hanne);
    await makeRecoveryKey(page);

    // A followed case with an identity and two files, sealed as the reporter's browser seals them.
    const account = await followedAccount(portal.server, HOST, REPORTER_PASSWORD);
    const sealed = await sealCase(await publicKeyLog(portal.server, HOST), {
      officerId: officerA,
      details: { description: `${NAME} approves invoices from Łódź Transport twice.`, whistleblowerRelation: 'Employee in accounting', reportedPersons: [{ name: NAME, jobTitle: 'Head of purchasing', phoneOrEmail: 'jan.k@example.com' }], reportedUnit: 'Purchasing' },
      whistleblower: { name: 'Ann Reporter', email: 'ann.reporter@example.com' },
      account,
    });
    const session = (await call(portal.server, 'POST', '/api/public/upload-sessions', { host: HOST, json: { sealed: true } })).data.uploadSession as string;
    const ids = [];
    for (const f of FILES) ids.push(await upload(session, sealed.dataKey, sealed.caseId, f.name, f.bytes));
    ids.push(await upload(session, sealed.dataKey, sealed.caseId, ALTERED.name, ALTERED.bytes, ALTERED.at));
    const created = await call(portal.server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: { ...sealed.body, uploads: ids }, headers: { 'x-upload-session': session } });
    expect(created.status, JSON.stringify(created.data)).toBe(201);
    const caseNumber = created.data.caseDto.caseNumber as string;
    // The reporter writes (sealed, as her private area does).
    const tokens = await reporterSignIn(new ReporterBrowser(portal.server, HOST), caseNumber, REPORTER_PASSWORD);
    const fromReporter = await call(portal.server, 'POST', '/api/private/case/messages/sealed', { host: HOST, token: tokens.access_token, json: await sealMessage(sealed.dataKey, sealed.caseId, FROM_REPORTER) });
    expect(fromReporter.status, JSON.stringify(fromReporter.data)).toBe(201);
    // A second message from her, altered at rest (its tag no longer fits): it will not open.
    const second = await call(portal.server, 'POST', '/api/private/case/messages/sealed', { host: HOST, token: tokens.access_token, json: await sealMessage(sealed.dataKey, sealed.caseId, 'This one will not open.') });
    expect(second.status).toBe(201);
    const row = await portal.server.ctx.db.selectFrom('case_message').select(['id', 'body_enc']).where('id', '=', second.data.message.id as string).executeTakeFirstOrThrow();
    const altered = Buffer.from(row.body_enc!);
    altered[altered.length - 1]! ^= 0x01;
    await portal.server.ctx.db.updateTable('case_message').set({ body_enc: altered }).where('id', '=', row.id).execute();

    // Hanne opens it and answers through the sealed composer.
    await openCaseFromInbox(page, caseNumber);
    const files = page.getByTestId('sealed-files');
    for (const f of FILES) await files.getByText(f.name, { exact: true }).waitFor();
    await page.getByTestId('sealed-thread').getByText(FROM_REPORTER).waitFor();
    await page.getByLabel(msg('handler.composer.text'), { exact: true }).fill(REPLY);
    await page.getByRole('button', { name: msg('handler.composer.send'), exact: true }).click();
    await page.getByText(msg('handler.composer.sent')).waitFor();
    await page.getByTestId('sealed-thread').getByText(REPLY).waitFor();

    // The export: the identity ticked by hand (off at opening), the name blacked out.
    await page.getByRole('button', { name: msg('export.button') }).click();
    const dialog = page.getByRole('dialog', { name: msg('export.title') });
    await dialog.waitFor();
    const identity = dialog.getByRole('checkbox', { name: msg('export.part.identity') });
    expect(await identity.isChecked()).toBe(false);
    await identity.check();
    await dialog.getByLabel(msg('export.term')).fill(NAME);
    await dialog.getByLabel(msg('export.term')).press('Enter');
    await dialog.getByRole('button', { name: msg('export.removeTerm', { term: NAME }) }).waitFor();
    expect(await axeViolations(page), 'export dialog').toEqual([]);
    await dialog.getByRole('button', { name: msg('export.start') }).click();
    await dialog.getByText(msg('export.done')).waitFor({ timeout: 60_000 });
    expect(await axeViolations(page), 'export dialog, done').toEqual([]);

    const [pdfDownload] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('link', { name: msg('export.downloadPdf') }).click()]);
    expect(pdfDownload.suggestedFilename()).toBe(`case-${caseNumber}.pdf`);
    const pdf = new Uint8Array(readFileSync((await pdfDownload.path())!));
    const { text } = await extractText(await getDocumentProxy(pdf), { mergePages: true });
    const flat = (text as string).replace(/\s/g, '');
    expect(text).not.toMatch(/kowalski/i);
    expect(Buffer.from(pdf).toString('latin1')).not.toMatch(/kowalski/i);
    expect(text).toContain('This export is redacted');
    for (const f of FILES) expect(flat).toContain(sha(f.bytes));
    expect(text).toContain('Łódź Transport twice');
    expect(flat).toContain(FROM_REPORTER.replace(/\s/g, ''));
    expect(flat).toContain('Did██████signbothinvoiceshimself?');
    // The identity is in it because it was ticked; the status history and the trail are there.
    expect(text).toContain('Ann Reporter, ann.reporter@example.com');
    expect(text).toContain(msg('handler.status.RECEIVED'));
    expect(text).toContain(msg('handler.audit.action.CASE_READ'));
    expect(text).toContain(msg('export.pdf.zipEntry', { entry: 'minutes.txt' }));
    // What did not open is named, and the export went on: the altered message, the altered file (its entry incomplete).
    expect(text).toContain(msg('export.pdf.unopenedMessage'));
    expect(text).toContain(msg('export.pdf.file.unopened'));
    expect(text).toContain(msg('export.pdf.zipIncomplete', { entry: ALTERED.name }));
    expect(flat).not.toContain(sha(ALTERED.bytes));

    const [zipDownload] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('link', { name: msg('export.downloadZip') }).click()]);
    const entries = unzipSync(new Uint8Array(readFileSync((await zipDownload.path())!)));
    expect(Object.keys(entries).sort()).toEqual(['altered.txt', 'ledger for ██████.txt', 'minutes.txt']);
    expect(entries['altered.txt']!.length).toBeLessThan(ALTERED.bytes.length);
    expect(sha(entries['ledger for ██████.txt']!)).toBe(sha(FILES[0]!.bytes));
    expect(sha(entries['minutes.txt']!)).toBe(sha(FILES[1]!.bytes));

    // The server wrote one clear entry: the parts and the count, no content.
    const rows = await portal.server.ctx.db.selectFrom('case_audit').select(['entry', 'entry_enc']).where('case_id', '=', sealed.caseId).orderBy('id').execute();
    const clear = rows.map((r) => (typeof r.entry === 'string' ? JSON.parse(r.entry) : r.entry) as { action: string; detail: Record<string, unknown> });
    expect(rows.every((r) => r.entry_enc === null)).toBe(true);
    expect(clear.filter((e) => e.action === 'CASE_EXPORTED').map((e) => e.detail)).toEqual([{ parts: 'report,identity,messages,record,status,audit,files', identity: true, redacted: true, redactedTerms: 1 }]);
    // The export downloaded each file once (as any download, audited).
    expect(clear.filter((e) => e.action === 'FILE_DOWNLOADED')).toHaveLength(3);

    // Closed, and the case read again (through the inbox, keys kept): the trail on the page names the export and its parts.
    await dialog.getByRole('button', { name: msg('export.close') }).click();
    await dialog.waitFor({ state: 'detached' });
    await openCaseFromInbox(page, caseNumber);
    const trail = page.getByTestId('audit-trail');
    await trail.locator('[data-action="CASE_EXPORTED"]').waitFor();
    const parts = ['report', 'identity', 'messages', 'record', 'status', 'audit', 'files'].map((p) => msg(`export.part.${p}`)).join(', ');
    await trail.getByText(msg('export.audit.detail', { parts, redaction: 'redacted, 1 term' })).waitFor();

    // Printing prints the sealed case, not the chrome: no top bar, no form or button, no access panel.
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('header').first().isVisible()).toBe(false);
    expect(await page.locator('textarea, form, button, input, select').evaluateAll((els) => els.filter((e) => (e as HTMLElement).checkVisibility()).map((e) => e.outerHTML.slice(0, 160)))).toEqual([]);
    expect(await page.getByTestId('sealed-grants').isVisible()).toBe(false);
    expect(await page.getByTestId('sealed-details').isVisible()).toBe(true);
    expect(await page.getByTestId('sealed-thread').getByText(REPLY).isVisible()).toBe(true);
    expect(await trail.isVisible()).toBe(true);
    await page.emulateMedia({ media: 'screen' });

    // A phone case: the record written sealed in the page, approved by the reporter over its hash; its export has the version, the hash and the approval.
    const phone = await sendFollowedSealedCase(portal.server, HOST, { password: REPORTER_PASSWORD, officerId: officerA, submissionType: 'PHONE', details: { whistleblowerRelation: 'Employee', reportedPersons: [] } });
    await openCaseFromInbox(page, phone.caseNumber);
    const record = page.getByTestId('sealed-record');
    await record.getByRole('button', { name: msg('handler.record.write') }).click();
    const recordText = `Phone call on Monday: ${NAME} asked for the second payment.`;
    await record.getByLabel(msg('handler.record.text'), { exact: true }).fill(recordText);
    await record.getByRole('button', { name: msg('handler.record.save') }).click();
    await record.getByTestId('record-check-1').getByText(msg('record.verified')).waitFor();
    const phoneTokens = await reporterSignIn(new ReporterBrowser(portal.server, HOST), phone.caseNumber, REPORTER_PASSWORD);
    const approval = await call(portal.server, 'PUT', '/api/private/case/approve', { host: HOST, token: phoneTokens.access_token, json: { sha256: await recordHash(recordText) } });
    expect(approval.status, JSON.stringify(approval.data)).toBe(200);
    await openCaseFromInbox(page, phone.caseNumber);
    await page.getByTestId('sealed-record').getByTestId('record-check-1').getByText(msg('record.verified')).waitFor();
    await page.getByRole('button', { name: msg('export.button') }).click();
    await dialog.waitFor();
    await dialog.getByRole('checkbox', { name: msg('export.part.files') }).uncheck();
    await dialog.getByLabel(msg('export.term')).fill(NAME);
    await dialog.getByLabel(msg('export.term')).press('Enter');
    await dialog.getByRole('button', { name: msg('export.start') }).click();
    await dialog.getByText(msg('export.done')).waitFor({ timeout: 60_000 });
    expect(await dialog.getByRole('link', { name: msg('export.downloadZip') }).count()).toBe(0);
    const [phonePdf] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('link', { name: msg('export.downloadPdf') }).click()]);
    const phoneText = (await extractText(await getDocumentProxy(new Uint8Array(readFileSync((await phonePdf.path())!))), { mergePages: true })).text as string;
    expect(phoneText).not.toMatch(/kowalski/i);
    expect(phoneText).toContain('Phone call on Monday: ██████ asked for the second payment.');
    expect(phoneText.replace(/\s/g, '')).toContain(await recordHash(recordText));
    expect(phoneText).toContain('Approved by the reporter');
    expect(phoneText).not.toContain(msg('export.pdf.notApproved'));
    expect(phoneText).not.toContain(msg('export.pdf.hashMismatch'));
    await dialog.getByRole('button', { name: msg('export.close') }).click();

    // The blacked-out name went in no request or response: the terms never leave the browser, the content goes sealed.
    const api = (await wire.all()).filter((r) => r.url.includes('/api/'));
    expect(markersIn(api, ['Kowalski'], { base64: false })).toEqual([]);
  }, 300_000);
});
