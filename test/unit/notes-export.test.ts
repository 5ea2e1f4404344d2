/**
 * The internal notes in a server-keyed case's export (docs/decisions/internal-notes.md;
 * src/handler/export/notes.ts, serverCase.ts): only with the part `notes`, each note with
 * its author, last editor and version, marked as not visible to the reporter, a redacted
 * name blacked out in it too, and each note's files (name, size, SHA-256, zip entry; one
 * whose name did not open named by its date) under it; read back from the PDF with a real
 * parser (unpdf).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { extractText, getDocumentProxy } from 'unpdf';
import { makeCasePdf } from '../../src/handler/export/pdf.ts';
import { redactor } from '../../src/handler/export/redact.ts';
import { serverCaseDocument, type ExportableCase } from '../../src/handler/export/serverCase.ts';
import type { OpenedNote } from '../../machines/handler/notes.ts';

const require = createRequire(import.meta.url);
const font = (name: string) => new Uint8Array(readFileSync(require.resolve(`dejavu-fonts-ttf/ttf/${name}`)));
const fonts = { regular: font('DejaVuSans.ttf'), bold: font('DejaVuSans-Bold.ttf') };
const t = (key: string, values?: Record<string, unknown>) => (values ? `${key} ${Object.values(values).join(' ')}` : key);

const view: ExportableCase = {
  caseNumber: '1234567812345678', status: 'RECEIVED', submission: { type: 'ONLINE_FORM' }, receivedDate: null, description: 'Fuel cards went missing.', violation: null, repeatedViolations: null,
  whistleblowerRelation: 'Driver', reportedPersons: [], reportedUnit: null, subsidiary: null, protectionOfficer: { name: 'Olga Officer', jobTitle: 'Compliance' }, whistleblower: null,
  messages: [], caseStatusHistory: [], comments: [], report: null, approvedAt: null, audit: [],
};
const notes: OpenedNote[] = [
  { id: 'n1', version: 3, text: 'Interviewed Jan Kowalski on Friday; the cards were in his van.', author: { id: 'h1', name: 'Hanne Handler' }, editedBy: { id: 'h2', name: 'Greta Colleague' }, created: '2026-12-01T09:00:00.000Z', updated: '2026-12-02T09:00:00.000Z', files: [
    { id: 'f1', name: 'van-photo.jpg', size: 2048, storedSize: 65_568, created: '2026-12-01T09:30:00.000Z' },
    { id: 'f2', name: null, size: null, storedSize: 65_568, created: '2026-12-01T09:40:00.000Z' },
  ] },
  { id: 'n2', version: 1, text: null, author: { id: 'h2', name: 'Greta Colleague' }, editedBy: null, created: '2026-12-01T10:00:00.000Z', updated: '2026-12-01T10:00:00.000Z', files: [] },
];
const SHA = 'ab'.repeat(32);
const noteFiles = [{ noteId: 'n1', name: 'van-photo.jpg', entry: 'van-photo.jpg', size: 2048, sha256: SHA }];
const options = (parts: string[]) => ({ parts: parts as never, terms: 1, files: [], by: 'Hanne', now: '2026-12-02T08:00:00.000Z', t, te: t, tn: t, ta: { handler: t, sealedwork: t, work: t, notes: t, entry: t, export: t }, notes, noteFiles, date: (s: string) => s });

async function textOf(pdf: Uint8Array) {
  const { text } = await extractText(await getDocumentProxy(new Uint8Array(pdf)), { mergePages: true });
  return (text as string).replace(/\s+/g, ' ');
}

describe('internal notes in the export', () => {
  it('are in it only when chosen, with author, editor and version, marked as not for the reporter, redacted like the rest', async () => {
    const redact = redactor(['Kowalski']);
    const without = await textOf(await makeCasePdf(serverCaseDocument(view, options(['report', 'messages'])), fonts, redact));
    expect(without).not.toContain('cards were in his van');
    expect(without).not.toContain('notes.export');
    expect(without).not.toContain('van-photo');
    expect(without).not.toContain(SHA);

    const chosen = await textOf(await makeCasePdf(serverCaseDocument(view, options(['report', 'notes'])), fonts, redact));
    expect(chosen).toContain('notes.export');
    expect(chosen).toContain('notes.notVisible');
    expect(chosen).toContain('the cards were in his van');
    expect(chosen).not.toMatch(/kowalski/i);
    expect(chosen).toContain('notes.writtenBy Hanne Handler');
    expect(chosen).toContain('notes.editedBy Greta Colleague');
    expect(chosen).toContain('notes.audit.version 3');
    // A note that did not open is named, not dropped.
    expect(chosen).toContain('notes.unopened');
    // Its files under it: name, size, SHA-256 and zip entry; one whose name did not open by its date.
    expect(chosen).toContain('notes.files.title');
    expect(chosen).toContain('export.pdf.file van-photo.jpg 2048');
    expect(chosen).toContain(SHA);
    expect(chosen).toContain('export.pdf.zipEntry van-photo.jpg');
    expect(chosen).toContain('notes.files.unopened 2026-12-01T09:40:00.000Z');
  });
});
