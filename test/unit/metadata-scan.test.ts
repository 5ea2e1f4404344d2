/**
 * Finding and removing hidden data (core/metadata/scan.ts), checked with real parsers
 * on files made in the test: what the reporter is told is what the file holds, and
 * after cleaning neither the parsers nor a byte search find any of it.
 */
import { describe, expect, it } from 'vitest';
import exifr from 'exifr';
import { PDFDocument } from 'pdf-lib';
import { strFromU8, unzipSync } from 'fflate';
import { cleanFile, inspectFile, CannotClean, ScanLimitExceeded, type FindingKind } from '../../core/metadata/scan.ts';
import { SECRET, docxWithAuthor, flateBombPdf, jpegWithExif, odtWithAuthor, pdfWithAuthor, pngWithText, webpWithExif } from '../fixtures/metadata-files.ts';

const kinds = async (b: Uint8Array) => new Set((await inspectFile(b)).findings.map((f) => f.kind));
const latin1 = (b: Uint8Array) => Buffer.from(b).toString('latin1');
const allText = (b: Uint8Array) => Object.values(unzipSync(b)).map((x) => strFromU8(x)).join('\n');

describe('JPEG', () => {
  it('names location, camera, serial number, author, software and the comment; cleaning leaves none, and the image data intact', async () => {
    const jpeg = jpegWithExif();
    const parsed = await exifr.parse(jpeg, { gps: true });
    expect(parsed.latitude).toBeCloseTo(SECRET.latitude, 3); // the fixture really holds GPS
    const found = await inspectFile(jpeg);
    expect(found.format).toBe('jpeg');
    const k = new Set(found.findings.map((f) => f.kind));
    for (const want of ['location', 'device', 'serialNumber', 'author', 'software', 'dates', 'comments'] satisfies FindingKind[]) expect(k).toContain(want);
    expect(found.findings.find((f) => f.kind === 'device' && f.detail === SECRET.model)).toBeTruthy();

    const cleaned = await cleanFile(jpeg);
    expect(cleaned.removed).toEqual(expect.arrayContaining(['location', 'device', 'serialNumber', 'author']));
    expect(await exifr.parse(cleaned.bytes, { gps: true, tiff: true, exif: true, xmp: true })).toBeUndefined();
    expect(latin1(cleaned.bytes)).not.toContain(SECRET.author);
    expect(latin1(cleaned.bytes)).not.toContain(SECRET.serial);
    expect((await inspectFile(cleaned.bytes)).findings).toEqual([]);
    // Everything from the first non-metadata segment on is byte-identical.
    const tail = (b: Uint8Array) => latin1(b).slice(latin1(b).indexOf('\xff\xdb'));
    expect(tail(cleaned.bytes)).toBe(tail(jpeg));
  });
});

describe('PDF', () => {
  it('names the Info author, title, software and the XMP creator; cleaning removes both, checked with pdf-lib and a byte search', async () => {
    const pdf = await pdfWithAuthor();
    expect((await PDFDocument.load(pdf)).getAuthor()).toBe(SECRET.author);
    const k = await kinds(pdf);
    for (const want of ['author', 'software', 'title'] satisfies FindingKind[]) expect(k).toContain(want);

    const cleaned = await cleanFile(pdf);
    const doc = await PDFDocument.load(cleaned.bytes, { updateMetadata: false });
    expect(doc.getAuthor()).toBeUndefined();
    expect(doc.getProducer()).toBeUndefined();
    expect(doc.getPageCount()).toBe(1);
    expect(latin1(cleaned.bytes)).not.toContain(SECRET.author);
    expect(latin1(cleaned.bytes)).not.toContain('xmpmeta');
    expect((await inspectFile(cleaned.bytes)).findings).toEqual([]);
  });
});

describe('Office Open XML and ODF', () => {
  it('docx: author, company, editing time, comment author and revision ids are named and removed', async () => {
    const docx = docxWithAuthor();
    const found = await inspectFile(docx);
    expect(found.format).toBe('ooxml');
    const k = new Set(found.findings.map((f) => f.kind));
    for (const want of ['author', 'company', 'editingTime', 'software', 'comments', 'revisionIds'] satisfies FindingKind[]) expect(k).toContain(want);
    const cleaned = await cleanFile(docx);
    const text = allText(cleaned.bytes);
    expect(text).not.toContain(SECRET.author);
    expect(text).not.toContain(SECRET.company);
    expect(text).not.toContain('rsid');
    expect(text).toContain('Invoices are paid twice.');
    expect((await inspectFile(cleaned.bytes)).findings).toEqual([]);
  });

  it('odt: creator, editing time, generator, thumbnail and annotation author; mimetype stays first and stored', async () => {
    const odt = odtWithAuthor();
    const k = await kinds(odt);
    for (const want of ['author', 'editingTime', 'software', 'thumbnail', 'comments'] satisfies FindingKind[]) expect(k).toContain(want);
    const cleaned = await cleanFile(odt);
    expect(latin1(cleaned.bytes.subarray(30, 38))).toBe('mimetype');
    expect(allText(cleaned.bytes)).not.toContain(SECRET.author);
    expect(Object.keys(unzipSync(cleaned.bytes))).not.toContain('Thumbnails/thumbnail.png');
    expect((await inspectFile(cleaned.bytes)).findings).toEqual([]);
  });
});

describe('PNG and WebP', () => {
  it('PNG text chunks are named and dropped; the picture chunks stay', async () => {
    const png = pngWithText();
    expect((await inspectFile(png)).findings.length).toBeGreaterThan(0);
    const cleaned = await cleanFile(png);
    expect(latin1(cleaned.bytes)).not.toContain(SECRET.author);
    for (const c of ['IHDR', 'IDAT', 'IEND']) expect(latin1(cleaned.bytes)).toContain(c);
    expect((await inspectFile(cleaned.bytes)).findings).toEqual([]);
  });

  it('WebP EXIF and XMP chunks are dropped, the RIFF size and VP8X flags fixed', async () => {
    const webp = webpWithExif();
    expect((await inspectFile(webp)).findings.length).toBeGreaterThan(0);
    const cleaned = await cleanFile(webp);
    const s = latin1(cleaned.bytes);
    expect(s).not.toContain('EXIF');
    expect(s).not.toContain(SECRET.author);
    expect(Buffer.from(cleaned.bytes).readUInt32LE(4)).toBe(cleaned.bytes.length - 8);
    expect(cleaned.bytes[20]! & 0x0c).toBe(0);
  });
});

describe('what cannot be checked', () => {
  it('a text file or a video is named uncheckable, and cleaning refuses rather than pretending', async () => {
    const txt = new TextEncoder().encode('plain words');
    expect(await inspectFile(txt)).toEqual({ format: null, findings: [] });
    await expect(cleanFile(txt)).rejects.toBeInstanceOf(CannotClean);
  });
});

describe('inflation limits (issue 36, finding 1)', () => {
  const tight = { maxInflatedBytes: 64 * 1024 * 1024, maxFilterDepth: 3, maxZipEntries: 10_000 };

  it('ends the 2 KB and 8 KB flate-bomb PDFs within a second on the server child\'s limits, refuses to clean them, and stops them on the device\'s too', async () => {
    for (const streams of [1, 4]) {
      const bomb = await flateBombPdf(streams);
      const t0 = Date.now();
      await expect(inspectFile(bomb, tight)).rejects.toBeInstanceOf(ScanLimitExceeded);
      expect(Date.now() - t0).toBeLessThan(1000);
      await expect(cleanFile(bomb, tight)).rejects.toBeInstanceOf(CannotClean);
    }
    await expect(inspectFile(await flateBombPdf(1))).rejects.toBeInstanceOf(ScanLimitExceeded);
    // The budget is per read: a normal PDF after a bomb is read as before.
    const again = await kinds(await pdfWithAuthor());
    expect(again.has('author') && again.has('software')).toBe(true);
  }, 60_000);

  it('caps chained filters and zip entries by count and declared size', async () => {
    const docx = docxWithAuthor();
    await expect(inspectFile(docx, { ...tight, maxZipEntries: 2 })).rejects.toBeInstanceOf(ScanLimitExceeded);
    await expect(inspectFile(docx, { ...tight, maxInflatedBytes: 100 })).rejects.toBeInstanceOf(ScanLimitExceeded);
    expect((await inspectFile(docx, tight)).format).toBe('ooxml');
    await expect(inspectFile(await flateBombPdf(1), { ...tight, maxInflatedBytes: 2 ** 40, maxFilterDepth: 1 })).rejects.toBeInstanceOf(ScanLimitExceeded);
  });
});
