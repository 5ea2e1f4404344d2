/**
 * The case export's PDF (docs/decisions/case-export.md), made as the browser makes it and
 * read back with a real PDF parser (unpdf, pdf.js inside): the redacted name is nowhere in
 * its text nor its bytes, the hashes and the letters of every portal language are there.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { extractText, getDocumentProxy } from 'unpdf';
import { makeCasePdf } from '../../src/handler/export/pdf.ts';
import { redactor, REDACTION_BAR } from '../../src/handler/export/redact.ts';
import type { ExportDocument } from '../../src/handler/export/document.ts';

const require = createRequire(import.meta.url);
const font = (name: string) => new Uint8Array(readFileSync(require.resolve(`dejavu-fonts-ttf/ttf/${name}`)));
const fonts = { regular: font('DejaVuSans.ttf'), bold: font('DejaVuSans-Bold.ttf') };

const hash = 'a3f1c2d4e5b6978812345678901234567890abcdefabcdefabcdefabcdef0123';
const fileHash = '0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0';
const letters = 'Ærø Øst Åsa Göteborg Łódź Zażółć gęślą jaźń Straße Müller España mañana';

const doc = (name: string): ExportDocument => ({
  title: 'Case 1234 5678 9012 3456',
  intro: ['Made 2 December 2026 by Hanna Handler'],
  redactionNotice: 'This export is redacted: 1 term is blacked out.',
  sections: [
    { title: 'Report', lines: [{ label: 'Description', text: `${name} took fuel cards from the depot; ${name.toUpperCase()} denied it. ${letters}` }, { label: 'Reported person', text: `${name}, depot manager` }] },
    { title: 'Record', lines: [{ label: 'Version 1', text: hash, mono: true }, { text: 'Approved 2 December 2026' }] },
    { title: 'Files', lines: [{ label: `photo-${name}.jpg (12 KiB)`, text: fileHash, mono: true }] },
    { title: 'Messages', lines: Array.from({ length: 80 }, (_, i) => ({ label: `Message ${i + 1}`, text: `A long message body that wraps over more than one line of the page so that the document runs onto further pages, number ${i + 1}.` })) },
  ],
});

/** Every stream of the file inflated, beside its raw bytes: the name must be in neither. */
function allBytes(pdf: Uint8Array): string {
  const raw = Buffer.from(pdf).toString('latin1');
  const parts = [raw];
  for (const m of raw.matchAll(/stream\r?\n/g)) {
    const start = m.index! + m[0].length;
    const end = raw.indexOf('endstream', start);
    try {
      parts.push(inflateSync(Buffer.from(raw.slice(start, end), 'latin1')).toString('latin1'));
    } catch {
      // not a Flate stream
    }
  }
  return parts.join('\n');
}

async function textOf(pdf: Uint8Array) {
  const proxy = await getDocumentProxy(new Uint8Array(pdf));
  const { text, totalPages } = await extractText(proxy, { mergePages: true });
  return { text: text as string, totalPages };
}

describe('case export PDF', () => {
  it('blacks out the name everywhere: not in the text read back, not in any byte or stream', async () => {
    const pdf = await makeCasePdf(doc('Jan Kowalski'), fonts, redactor(['jan kowalski']));
    const { text, totalPages } = await textOf(pdf);
    expect(totalPages).toBeGreaterThan(1);
    expect(text).not.toMatch(/kowalski/i);
    expect(text).toContain(REDACTION_BAR);
    expect(text).toContain('This export is redacted');
    expect(text.replace(/\s/g, '')).toContain(hash);
    expect(text.replace(/\s/g, '')).toContain(fileHash);
    for (const word of letters.split(' ')) expect(text).toContain(word);
    const bytes = allBytes(pdf);
    expect(bytes).not.toMatch(/kowalski/i);
    expect(bytes).not.toContain(Buffer.from('Kowalski', 'utf16le').toString('latin1'));
  });

  it('without terms the name is there (the test above can fail)', async () => {
    const pdf = await makeCasePdf({ ...doc('Jan Kowalski'), redactionNotice: null }, fonts, redactor([]));
    const { text } = await textOf(pdf);
    expect(text).toContain('Jan Kowalski');
    expect(text).not.toContain('redacted');
  });

  it('redacts whatever the case and spacing, longest term first, with a bar of one length', () => {
    const r = redactor(['Kowalski', 'Jan  Kowalski', ' ', '']);
    expect(r('JAN\nKOWALSKI met kowalski.')).toBe(`${REDACTION_BAR} met ${REDACTION_BAR}.`);
    expect(r('a.b*c')).toBe('a.b*c');
    expect(redactor(['a.b*'])('xa.b*y')).toBe(`x${REDACTION_BAR}y`);
  });
});

describe('a sealed case, as the browser opened it', async () => {
  const { sealedCaseDocument } = await import('../../src/handler/export/sealedCase.ts');
  const t = (key: string, values?: Record<string, unknown>) => (values ? `${key} ${Object.values(values).join(' ')}` : key);
  const opened = {
    details: { description: 'Jan Kowalski moved the fuel cards.', whistleblowerRelation: 'Driver', reportedPersons: [{ name: 'Jan Kowalski', jobTitle: 'Depot lead', phoneOrEmail: '' }] },
    whistleblower: { name: 'Ann Reporter', email: 'ann@example.com' },
    messages: [
      { id: 'm1', type: 'STANDARD', time: '2026-12-01T10:00:00.000Z', createdByUserId: '1234567812345678', answerWanted: false, text: 'Kowalski saw me.' },
      { id: 'm2', type: 'STANDARD', time: '2026-12-01T11:00:00.000Z', createdByUserId: 'h1', answerWanted: false, text: null },
    ],
    senders: { h1: 'Hanne Handler' },
    record: { versions: [], comments: [] },
    files: [],
    audit: [],
    keyHolders: {},
  };
  const options = (parts: string[]) => ({ parts: parts as never, terms: 2, files: [{ name: 'f.txt', entry: 'f.txt', size: 3, sha256: fileHash }], by: 'Hanne', now: '2026-12-02T08:00:00.000Z', t, te: t, ta: { handler: t, sealedwork: t, work: t, notes: t, entry: t, export: t }, date: (s: string) => s });

  it('blacks out the name in what was opened, says what could not be opened, has the identity only when chosen', async () => {
    const redact = redactor(['Jan Kowalski', 'Kowalski']);
    const without = (await textOf(await makeCasePdf(sealedCaseDocument({ caseNumber: '1234567812345678', status: 'RECEIVED' }, opened, options(['report', 'messages', 'files'])), fonts, redact))).text;
    expect(without).not.toMatch(/kowalski/i);
    expect(without).not.toContain('Ann Reporter');
    expect(without).toContain('export.pdf.unopenedMessage');
    expect(without).toContain('Hanne Handler');
    expect(without.replace(/\s/g, '')).toContain(fileHash);
    const withIdentity = (await textOf(await makeCasePdf(sealedCaseDocument({ caseNumber: '1234567812345678', status: 'RECEIVED' }, opened, options(['identity'])), fonts, redact))).text;
    expect(withIdentity).toContain('Ann Reporter, ann@example.com');
  });

  it('names every part that did not open where it would be: the report, the identity, a file, a record version, an audit entry; the export\'s own entry in words', async () => {
    const broken = {
      ...opened,
      details: null,
      whistleblower: 'unopened' as const,
      files: [{ id: 'f1', messageId: null, created: '2026-12-01T09:00:00.000Z', sealedSize: 4096, name: null, size: null }],
      record: { versions: [{ version: 1, sha256: 'ab'.repeat(32), createdAt: '2026-12-01T09:30:00.000Z', approvedAt: null, text: 'Phone call notes', verified: false }], comments: [{ id: 'c1', created: '2026-12-01T09:40:00.000Z', text: null }] },
      audit: [
        { at: '2026-12-01T12:00:00.000Z', unopened: true as const },
        { at: '2026-12-01T12:01:00.000Z', handlerId: 'h1', handlerName: 'Hanne Handler', action: 'CASE_EXPORTED', detail: { parts: 'report,files', identity: false, redacted: true, redactedTerms: 2 } },
      ],
    };
    const failed = [{ name: 'scan.pdf', entry: 'scan.pdf', size: 65_536, sha256: null, failure: 'unopened' as const }, { name: 'gone.txt', entry: null, size: 0, sha256: null, failure: 'failed' as const }];
    const doc = sealedCaseDocument({ caseNumber: '1234567812345678', status: 'RECEIVED', submissionType: 'PHONE', caseStatusHistory: [{ status: 'RECEIVED', dateTime: '2026-12-01T09:00:00.000Z' }] }, broken, {
      ...options(['report', 'identity', 'record', 'status', 'audit', 'files']),
      files: failed,
    });
    const text = (await textOf(await makeCasePdf(doc, fonts, (s) => s))).text;
    for (const key of ['export.pdf.unopened', 'export.pdf.unopenedFile', 'export.pdf.file.unopened', 'export.pdf.zipIncomplete scan.pdf', 'export.pdf.file.failed', 'export.pdf.hashMismatch', 'export.pdf.unopenedEntry', 'export.audit.detail', 'handler.status.RECEIVED'])
      expect(text, key).toContain(key);
    expect(text).toContain('Phone call notes');
    expect(text.replace(/\s/g, '')).toContain('ab'.repeat(32));
    // gone.txt has no entry in the zip: no "incomplete" line for it.
    expect(text).not.toContain('export.pdf.zipIncomplete gone.txt');
  });
});
