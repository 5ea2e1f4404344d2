/**
 * Two handlers on one sealed case (issue 38 Build 1 and 2; docs/decisions/internal-notes.md,
 * handler-everyday-work.md), in real Chromium against the real server with
 * SEALED_CASES=browser. Hanne and Greta handle officer A, Otto officer B; Hanne makes the
 * recovery key and certifies Greta before the case comes, so the case is sealed to both.
 *
 * Hanne writes an internal note (sealed in her browser; the panel says the reporter does
 * not see it), and assigns the case to Greta. The assignment offers no handler of another
 * officer, and a hand-over to Otto sent by her own page's session is refused 400
 * COLLEAGUE_NOT_ENTITLED, the assignee unchanged. Greta opens the case, reads the note
 * with its author, adds to it and hands the case back to Hanne. Hanne, whose page still
 * shows the note as she wrote it, edits it: the server refuses it as changed, the page
 * shows both texts, she keeps hers, and it is saved over Greta's version. The trail names
 * each act; axe finds nothing on the notes panel, the conflict included; no note's text
 * is in any request or response any of the browsers saw; the case's export has the notes
 * only when ticked, opened in Hanne's browser.
 *
 * A note's file (docs/decisions/internal-notes.md "Files"): Hanne attaches one to her note
 * (sealed in her browser), the panel lists it marked as not visible to the reporter; Greta
 * saves it by keyboard, byte for byte what Hanne picked; the trail names both acts; the
 * reporter, signed in to the private pages, gets no trace of it from any private route;
 * the export's zip holds it only when the notes are chosen, the PDF lists it with its
 * SHA-256 under the note.
 *
 * On a server-keyed case (the demo company without keys) the same panel works with the
 * server sealing: a note written and edited, a file attached to it, axe on the page, and
 * the export with the notes ticked (off at opening) has them, read back from the
 * downloaded PDF, and the note's file in its zip.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { unzipSync } from 'fflate';
import type { Page } from 'playwright-core';
import { extractText, getDocumentProxy } from 'unpdf';
import { axeViolations } from './harness.ts';
import { firstOfficerId, signInThroughProvider } from './reporter.ts';
import { call, caseDto, form } from '../server/api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { enrolInPage } from '../helpers/sealed-e2e.ts';
import { sendFollowedSealedCase } from '../helpers/sealed-case.ts';
import { browserSuite, certifyColleague, english, enrolHandler, makeRecoveryKey, markersIn, openCaseFromInbox, signInHandler, NO_THROTTLE, SEALED } from '../helpers/sealed-e2e.ts';
import { companyByHost } from '../../server/companies/service.ts';

const { msg } = english('handler', 'keys', 'sealed', 'work', 'notes', 'export');

const HOST = 'group.localhost';
const MARKERS = { details: 'MARKER-details-n38a', hanne: 'MARKER-note-hanne-51f2', greta: 'MARKER-note-greta-a09c', mine: 'MARKER-note-mine-7d3e', fileName: 'MARKER-notefile-name-c4d1', fileBytes: 'MARKER-notefile-bytes-8e20' };
const NOTE_FILE = { name: `minutes ${MARKERS.fileName}.txt`, mimeType: 'text/plain', buffer: Buffer.from(`Minutes of the interview ${MARKERS.fileBytes}\n`.repeat(400)) };
const REPORTER_PASSWORD = 'a long reporter password';
const PASSWORDS = { hanne: 'hanne long passphrase 1', greta: 'greta long passphrase 22', otto: 'otto long passphrase 333' };
type Name = keyof typeof PASSWORDS;

const s = browserSuite({ ...SEALED, ...NO_THROTTLE });
const enrol = (name: Name, officer: string) => enrolHandler(s, HOST, { name, password: PASSWORDS[name], officers: [officer] });
const signIn = (h: Awaited<ReturnType<typeof enrol>>) => signInHandler(s.portal, HOST, h);

const notes = (page: Page) => page.getByTestId('notes');
const assignment = (page: Page) => page.getByTestId('assignment');

async function assignTo(page: Page, name: string, button: string) {
  await assignment(page).getByLabel(msg('work.assign.colleague')).selectOption({ label: name });
  await assignment(page).getByRole('button', { name: msg(button), exact: true }).click();
  await assignment(page).getByTestId('assignee').getByText(name, { exact: true }).waitFor();
}

describe('two handlers on one sealed case', () => {
  it('share a sealed internal note, hand the case over and back, refuse another officer, and resolve a conflict with both texts', async () => {
    const { portal } = s;
    const db = portal.server.ctx.db;
    const company = (await companyByHost(db, HOST))!;
    const [officerA, officerB] = company.settings.protectionOfficers.map((o) => o.id);
    const hanne = await enrol('hanne', officerA!);
    const greta = await enrol('greta', officerA!);
    const otto = await enrol('otto', officerB!);

    await signIn(hanne);
    await makeRecoveryKey(hanne.page);
    await certifyColleague(hanne.page, 'greta');

    const sealed = await sendFollowedSealedCase(portal.server, HOST, {
      password: REPORTER_PASSWORD,
      officerId: officerA!,
      details: { description: `The till was emptied ${MARKERS.details}`, whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: 'Shop' },
    });
    const { caseNumber } = sealed;

    // Hanne: the panel marks the notes as not visible to the reporter; her note is sealed here.
    await openCaseFromInbox(hanne.page, caseNumber);
    await hanne.page.getByTestId('sealed-details').getByText(MARKERS.details, { exact: false }).waitFor();
    await notes(hanne.page).getByText(msg('notes.notVisible')).waitFor();
    await notes(hanne.page).getByText(msg('notes.none')).waitFor();
    await notes(hanne.page).getByLabel(msg('notes.new')).fill(`Interview planned with the shop manager ${MARKERS.hanne}`);
    await notes(hanne.page).getByRole('button', { name: msg('notes.add') }).click();
    const hannesNote = notes(hanne.page).locator('[data-note]');
    await hannesNote.getByText(MARKERS.hanne, { exact: false }).waitFor();
    await hannesNote.getByText(/^Written by hanne, /).waitFor();
    // A file to her note: sealed in her browser, listed with the note's marking.
    await hannesNote.getByLabel(msg('notes.files.attach')).setInputFiles(NOTE_FILE);
    await hannesNote.locator('[data-note-file]').getByRole('button', { name: msg('notes.files.download', { name: NOTE_FILE.name }) }).waitFor();
    await hannesNote.getByText(msg('notes.files.title')).waitFor();
    expect(await axeViolations(hanne.page)).toEqual([]);
    const noteFile = await db.selectFrom('case_file').select(['id', 'note_id', 'name_enc']).where('case_id', '=', sealed.caseId).executeTakeFirstOrThrow();
    expect(Buffer.from(noteFile.name_enc).toString('latin1')).not.toContain(MARKERS.fileName);
    const stored = await db.selectFrom('case_note').selectAll().where('case_id', '=', sealed.caseId).execute();
    expect(noteFile.note_id).toBe(stored[0]!.id);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.version).toBe(1);
    expect(Buffer.from(stored[0]!.body_enc).toString('latin1')).not.toContain(MARKERS.hanne);

    // She assigns the case to Greta. Otto (officer B) is no choice, and a hand-over to him is refused.
    await assignTo(hanne.page, 'greta', 'work.assign.assign');
    const offered = await assignment(hanne.page).getByLabel(msg('work.assign.colleague')).locator('option').allTextContents();
    expect(offered).toContain('greta');
    expect(offered).not.toContain('otto');
    const ottoId = (await db.selectFrom('handler_account').select('id').where('email', '=', otto.email).executeTakeFirstOrThrow()).id;
    const refused = await hanne.page.evaluate(
      async ({ n, id }) => {
        const r = await fetch(`/api/handler/cases/${n}/assignee`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ handlerId: id }) });
        return { status: r.status, body: await r.json() };
      },
      { n: caseNumber, id: ottoId },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'COLLEAGUE_NOT_ENTITLED', field: 'handlerId' });
    const gretaId = (await db.selectFrom('handler_account').select('id').where('email', '=', greta.email).executeTakeFirstOrThrow()).id;
    expect((await db.selectFrom('report_case').select('assignee_id').where('id', '=', sealed.caseId).executeTakeFirstOrThrow()).assignee_id).toBe(gretaId);
    // The page after the acts: the note as Hanne wrote it (version 1), which is what she will edit.
    await hannesNote.getByText(MARKERS.hanne, { exact: false }).waitFor();

    // Greta reads the note with its author, adds to it, and hands the case back.
    await signIn(greta);
    await openCaseFromInbox(greta.page, caseNumber);
    await assignment(greta.page).getByTestId('assignee').getByText('greta', { exact: true }).waitFor();
    const gretasNote = notes(greta.page).locator('[data-note]');
    await gretasNote.getByText(MARKERS.hanne, { exact: false }).waitFor();
    await gretasNote.getByText(/^Written by hanne, /).waitFor();
    // Greta saves Hanne's file by keyboard (in memory: headless Chromium's save dialog cannot be answered): what Hanne picked, byte for byte.
    await greta.page.evaluate(() => delete (window as unknown as { showSaveFilePicker?: unknown }).showSaveFilePicker);
    const save = gretasNote.getByRole('button', { name: msg('notes.files.download', { name: NOTE_FILE.name }) });
    await save.focus();
    const [saved] = await Promise.all([greta.page.waitForEvent('download'), greta.page.keyboard.press('Enter')]);
    expect(readFileSync((await saved.path())!).equals(NOTE_FILE.buffer)).toBe(true);
    await gretasNote.getByRole('button', { name: msg('notes.edit') }).click();
    await gretasNote.getByLabel(msg('notes.editLabel')).fill(`Interview planned with the shop manager ${MARKERS.hanne}\nGreta: the manager is on leave until Monday ${MARKERS.greta}`);
    await gretasNote.getByRole('button', { name: msg('notes.save') }).click();
    await gretasNote.getByText(/^Last edited by greta, /).waitFor();
    await gretasNote.getByText(MARKERS.greta, { exact: false }).waitFor();
    await assignTo(greta.page, 'hanne', 'work.assign.handOver');
    expect(await axeViolations(greta.page)).toEqual([]);

    // Hanne's page still has version 1: her edit is refused as changed, and both texts are shown.
    await hannesNote.getByRole('button', { name: msg('notes.edit') }).click();
    await hannesNote.getByLabel(msg('notes.editLabel')).fill(`Interview held on Friday ${MARKERS.mine}`);
    await hannesNote.getByRole('button', { name: msg('notes.save') }).click();
    const conflict = hannesNote.getByTestId('note-conflict');
    await conflict.getByText(msg('notes.conflictTitle')).waitFor();
    await conflict.locator('[data-side="mine"]').getByText(MARKERS.mine, { exact: false }).waitFor();
    await conflict.locator('[data-side="theirs"]').getByText(MARKERS.greta, { exact: false }).waitFor();
    await conflict.getByText(msg('notes.theirs', { name: 'greta' })).waitFor();
    expect((await db.selectFrom('case_note').select('version').where('case_id', '=', sealed.caseId).executeTakeFirstOrThrow()).version).toBe(2);
    expect(await axeViolations(hanne.page)).toEqual([]);
    // By keyboard: "Keep mine" saves her text over Greta's version.
    await conflict.getByRole('button', { name: msg('notes.keepMine') }).focus();
    await hanne.page.keyboard.press('Enter');
    await hannesNote.getByText(MARKERS.mine, { exact: false }).waitFor();
    await hannesNote.getByText(/^Last edited by hanne, /).waitFor();
    expect(await hannesNote.getByTestId('note-conflict').count()).toBe(0);
    expect((await db.selectFrom('case_note').select('version').where('case_id', '=', sealed.caseId).executeTakeFirstOrThrow()).version).toBe(3);

    // The trail (in clear on a sealed case: who, the act, ids) names each act, never a note's text.
    const trail = await db.selectFrom('case_audit').select(['entry']).where('case_id', '=', sealed.caseId).orderBy('id').execute();
    const acts = trail.map((r) => (typeof r.entry === 'string' ? JSON.parse(r.entry) : r.entry) as { action: string; handlerName: string; detail: Record<string, unknown> }).filter((e) => e.action !== 'CASE_READ');
    expect(acts.map((e) => [e.action, e.handlerName])).toEqual([
      ['NOTE_ADDED', 'hanne'],
      ['NOTE_FILES_ADDED', 'hanne'],
      ['ASSIGNED', 'hanne'],
      ['FILE_DOWNLOADED', 'greta'],
      ['NOTE_EDITED', 'greta'],
      ['ASSIGNED', 'greta'],
      ['NOTE_EDITED', 'hanne'],
    ]);
    expect(acts[1]!.detail).toEqual({ noteId: stored[0]!.id, files: 1, fileIds: noteFile.id });
    expect(acts[3]!.detail).toEqual({ fileId: noteFile.id, noteId: stored[0]!.id });
    expect(acts[5]!.detail).toEqual({ to: 'hanne', from: 'greta' });
    expect(JSON.stringify(acts)).not.toMatch(/MARKER-note/);

    // The reporter, signed in to the private pages: no private route names the note's file, its note, or anything of it.
    const reporter = await s.open();
    await signInThroughProvider(portal, reporter.page, caseNumber, REPORTER_PASSWORD, '/private/messages', { host: HOST, timeout: 120_000 });
    await reporter.page.waitForLoadState('networkidle');
    expect(await reporter.page.content()).not.toContain(MARKERS.fileName);

    // No note's text or file in any request or response body, header or URL of the browsers.
    const wire = await s.recorded();
    const privateWire = wire.filter((r) => r.url.includes('/api/private/'));
    expect(privateWire.length).toBeGreaterThan(0);
    expect(markersIn(privateWire, [noteFile.id, stored[0]!.id], { base64: false })).toEqual([]);
    expect(wire.map((r) => r.url).join('\n')).toContain('/notes');
    expect(markersIn(wire, Object.values(MARKERS), { base64: false })).toEqual([]);

    // The sealed case's export has the notes only when ticked: opened in Hanne's browser, read back from the PDF.
    // Without them: no zip (the case has no files of its own) and nothing of the note's file in the PDF.
    await hanne.page.getByRole('button', { name: msg('export.button') }).click();
    const dialog = hanne.page.getByRole('dialog', { name: msg('export.title') });
    const tick = dialog.getByRole('checkbox', { name: msg('notes.export') });
    expect(await tick.isChecked()).toBe(false);
    expect(await dialog.getByRole('checkbox', { name: msg('export.part.files') }).isChecked()).toBe(true);
    await dialog.getByRole('button', { name: msg('export.start') }).click();
    await dialog.getByText(msg('export.done')).waitFor();
    expect(await dialog.getByRole('link', { name: msg('export.downloadZip') }).count()).toBe(0);
    const pdfText = async () => {
      const [pdfDownload] = await Promise.all([hanne.page.waitForEvent('download'), dialog.getByRole('link', { name: msg('export.downloadPdf') }).click()]);
      const { text } = await extractText(await getDocumentProxy(new Uint8Array(readFileSync((await pdfDownload.path())!))), { mergePages: true });
      return (text as string).replace(/\s+/g, ' ');
    };
    expect(await pdfText()).not.toContain(MARKERS.fileName);
    await dialog.getByRole('button', { name: msg('export.again') }).click();
    await tick.check();
    await dialog.getByRole('button', { name: msg('export.start') }).click();
    await dialog.getByText(msg('export.done')).waitFor();
    const flat = await pdfText();
    expect(flat).toContain(MARKERS.mine);
    expect(flat).toContain(MARKERS.fileName);
    expect(flat).toContain(createHash('sha256').update(NOTE_FILE.buffer).digest('hex'));
    const [zipDownload] = await Promise.all([hanne.page.waitForEvent('download'), dialog.getByRole('link', { name: msg('export.downloadZip') }).click()]);
    const entries = unzipSync(new Uint8Array(readFileSync((await zipDownload.path())!)));
    expect(Object.keys(entries)).toEqual([NOTE_FILE.name]);
    expect(Buffer.from(entries[NOTE_FILE.name]!).equals(NOTE_FILE.buffer)).toBe(true);
  }, 300_000);

  it('on a server-keyed case: writes and edits a note, and exports it only when ticked', async () => {
    const { portal } = s;
    const db = portal.server.ctx.db;
    const plainHost = 'localhost';
    const created = await call(portal.server, 'POST', '/api/public/case/new/by-form', { host: plainHost, body: form('caseDto', caseDto(await firstOfficerId(portal))) });
    expect(created.status, JSON.stringify(created.data)).toBe(201);
    const caseNumber = created.data.caseDto.caseNumber as string;
    expect((await db.selectFrom('report_case').select('sealed').where('case_number', '=', caseNumber).executeTakeFirstOrThrow()).sealed).toBe(false);
    const company = (await companyByHost(db, plainHost))!;
    const account = await createHandlerAccount(db, company.id, 'Erika', { email: 'erika@example.org', token: false });
    const { page } = await s.open();
    const erika = await enrolInPage(portal, plainHost, page, account.enrolmentCode!, { name: 'Erika', email: 'erika@example.org', password: 'erika long passphrase 4' });
    await signInHandler(portal, plainHost, erika);
    await page.goto(portal.url(plainHost, `/handler/cases/${caseNumber}`));

    await notes(page).getByText(msg('notes.notVisible')).waitFor();
    await notes(page).getByLabel(msg('notes.new')).fill('Spoke to accounting: invoices checked twice.');
    await notes(page).getByRole('button', { name: msg('notes.add') }).click();
    const note = notes(page).locator('[data-note]');
    await note.getByText('invoices checked twice', { exact: false }).waitFor();
    await note.getByRole('button', { name: msg('notes.edit') }).click();
    await note.getByLabel(msg('notes.editLabel')).fill('Spoke to accounting: invoices checked twice; the auditor agrees.');
    await note.getByRole('button', { name: msg('notes.save') }).click();
    await note.getByText(/^Last edited by Erika, /).waitFor();
    // A file to the note, sealed by the server: offered as a download link of the case's handlers only.
    const plainFile = { name: 'accounting-minutes.txt', mimeType: 'text/plain', buffer: Buffer.from('Invoices checked twice.\n'.repeat(100)) };
    await note.getByLabel(msg('notes.files.attach')).setInputFiles(plainFile);
    await note.getByRole('link', { name: msg('notes.files.download', { name: plainFile.name }) }).waitFor();
    // The page reloaded the case after the save: its trail names both acts.
    await page.locator('[data-action="NOTE_EDITED"]').waitFor();
    await page.locator('[data-action="NOTE_ADDED"]').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    // Printing the case leaves the notes out: they leave the workspace only as an export part chosen.
    await page.emulateMedia({ media: 'print' });
    expect(await notes(page).isVisible()).toBe(false);
    await page.emulateMedia({ media: 'screen' });

    await page.getByRole('button', { name: msg('export.button') }).click();
    const dialog = page.getByRole('dialog', { name: msg('export.title') });
    const tick = dialog.getByRole('checkbox', { name: msg('notes.export') });
    expect(await tick.isChecked()).toBe(false);
    await tick.check();
    expect(await axeViolations(page), 'export dialog with notes').toEqual([]);
    await dialog.getByRole('button', { name: msg('export.start') }).click();
    await dialog.getByText(msg('export.done')).waitFor();
    const [pdfDownload] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('link', { name: msg('export.downloadPdf') }).click()]);
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(readFileSync((await pdfDownload.path())!))), { mergePages: true });
    const flat = (text as string).replace(/\s+/g, ' ');
    expect(flat).toContain('the auditor agrees');
    expect(flat).toContain(msg('notes.notVisible'));
    expect(flat).toContain('Written by Erika');
    // The zip holds the note's file (the case has none of its own): the notes were chosen.
    const [zipDownload] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('link', { name: msg('export.downloadZip') }).click()]);
    const entries = unzipSync(new Uint8Array(readFileSync((await zipDownload.path())!)));
    expect(Object.keys(entries)).toEqual([plainFile.name]);
    expect(Buffer.from(entries[plainFile.name]!).equals(plainFile.buffer)).toBe(true);
    // The trail names the choice (read with Erika's own session, as her page reads the case).
    const audit = await page.evaluate(async (n) => ((await (await fetch(`/api/handler/cases/${n}`)).json()) as { audit: { action: string; detail: Record<string, unknown> }[] }).audit, caseNumber);
    expect(audit.filter((a) => a.action === 'CASE_EXPORTED').map((a) => a.detail.parts)).toEqual(['report,messages,notes,record,status,audit,files']);
    expect(JSON.stringify(audit)).not.toContain('auditor agrees');
  }, 300_000);
});
