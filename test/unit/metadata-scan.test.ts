/**
 * Finding and removing hidden data (core/metadata/scan.ts), checked with real parsers
 * on files made in the test: what the reporter is told is what the file holds, and
 * after cleaning neither the parsers nor a byte search find any of it.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import exifr from 'exifr';
import { PDFDocument } from 'pdf-lib';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { cleanFile, inspectFile, CannotClean, FINDING_KINDS, ScanLimitExceeded, type FindingKind } from '../../core/metadata/scan.ts';
import { SECRET, docxWithAuthor, docxWithReview, flateBombPdf, jpegWithExif, odtWithAuthor, pdfWithAuthor, pngWithText, pngWithTextChunks, webpWithExif } from '../fixtures/metadata-files.ts';
import { LANGUAGES } from '../../machines/languages.ts';

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
    for (const want of ['location', 'device', 'serialNumber', 'author', 'software', 'created', 'comments'] satisfies FindingKind[]) expect(k).toContain(want);
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

  it('docx after review: comments, tracked changes, author, last saver, manager and company are each named as what they are, and removed', async () => {
    const docx = docxWithReview();
    const found = await inspectFile(docx);
    const detail = (k: FindingKind) => found.findings.filter((f) => f.kind === k).map((f) => f.detail);
    expect(detail('author')).toEqual([SECRET.author]);
    expect(detail('lastModifiedBy')).toEqual([SECRET.lastModifiedBy]);
    // The Manager field is a manager, not a company name.
    expect(detail('manager')).toEqual([SECRET.manager]);
    expect(detail('company')).toEqual([SECRET.company]);
    expect(detail('comments')).toEqual([SECRET.commentText]);
    expect(detail('commentAuthors')).toEqual([SECRET.commenter]);
    expect(detail('changeAuthors')).toEqual([SECRET.changer]);
    const all: FindingKind[] = ['author', 'lastModifiedBy', 'manager', 'company', 'editingTime', 'created', 'modified', 'software', 'comments', 'commentAuthors', 'commentDates', 'trackedChanges', 'changeAuthors', 'changeDates', 'revisionIds', 'title'];
    expect(new Set(found.findings.map((f) => f.kind))).toEqual(new Set(all));

    const cleaned = await cleanFile(docx);
    expect(cleaned.removed).toEqual(FINDING_KINDS.filter((k) => all.includes(k)));
    expect(cleaned.remaining).toEqual([]);
    const parts = unzipSync(cleaned.bytes);
    expect(Object.keys(parts).filter((n) => /comments|people/.test(n))).toEqual([]);
    const doc = strFromU8(parts['word/document.xml']!);
    // Tracked changes accepted: the insertion's text stays without its mark, the deletion's text is gone.
    expect(doc).toContain('The second payment goes to a private account.');
    expect(doc).not.toContain(SECRET.deletedText);
    expect(doc).not.toMatch(/<w:(ins|del|rPrChange|pPrChange|commentRangeStart|commentRangeEnd|commentReference)\b|w:author|w:date/);
    expect(doc).toContain('<w:b/>');
    expect(strFromU8(parts['[Content_Types].xml']!)).not.toMatch(/comments|people/);
    expect(strFromU8(parts['word/_rels/document.xml.rels']!)).not.toMatch(/comments|people/);
    expect((await inspectFile(cleaned.bytes)).findings).toEqual([]);
  });

  it('xlsx and pptx: comment texts, authors and dates are blanked in place, the parts stay valid', async () => {
    // Entries dated as Word dates them, so only the comments are found.
    const undated = new Date(1980, 0, 1);
    const xlsx = zipSync({
      '[Content_Types].xml': strToU8('<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
      'xl/comments1.xml': strToU8(`<comments xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><authors><author>${SECRET.commenter}</author></authors><commentList><comment ref="A1" authorId="0"><text><r><t>${SECRET.commentText}</t></r></text></comment></commentList></comments>`),
      'xl/threadedComments/threadedComment1.xml': strToU8(`<ThreadedComments xmlns="http://schemas.microsoft.com/office/spreadsheetml/2018/threadedcomments"><threadedComment ref="A1" dT="2026-05-04T10:11:12.00" personId="{1}" id="{2}"><text>${SECRET.commentText}</text></threadedComment></ThreadedComments>`),
      'xl/persons/person.xml': strToU8(`<personList xmlns="http://schemas.microsoft.com/office/spreadsheetml/2018/threadedcomments"><person displayName="${SECRET.commenter}" id="{1}" userId="kim@nordlys.example" providerId="AD"/></personList>`),
    }, { mtime: undated });
    const pptx = zipSync({
      '[Content_Types].xml': strToU8('<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
      'ppt/commentAuthors.xml': strToU8(`<p:cmAuthorLst xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:cmAuthor id="0" name="${SECRET.commenter}" initials="KC" lastIdx="1" clrIdx="0"/></p:cmAuthorLst>`),
      'ppt/comments/comment1.xml': strToU8(`<p:cmLst xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:cm authorId="0" dt="2026-05-04T10:11:12.000" idx="1"><p:pos x="10" y="10"/><p:text>${SECRET.commentText}</p:text></p:cm></p:cmLst>`),
    }, { mtime: undated });
    for (const file of [xlsx, pptx]) {
      const kinds = new Set((await inspectFile(file)).findings.map((f) => f.kind));
      for (const k of ['comments', 'commentAuthors', 'commentDates'] satisfies FindingKind[]) expect(kinds).toContain(k);
      const cleaned = await cleanFile(file);
      expect(cleaned.removed).toEqual(['comments', 'commentAuthors', 'commentDates']);
      const text = allText(cleaned.bytes);
      expect(text).not.toContain(SECRET.commenter);
      expect(text).not.toContain(SECRET.commentText);
      expect(text).not.toContain('2026-05-04');
      expect(text).not.toContain('kim@');
      expect((await inspectFile(cleaned.bytes)).findings).toEqual([]);
    }
  });

  it('every kind has its own words in all seven languages, and a manager is not called a company', () => {
    for (const lang of LANGUAGES) {
      const cat = JSON.parse(readFileSync(path.resolve(import.meta.dirname, `../../src/i18n/metadata/${lang}.json`), 'utf8')) as Record<string, string>;
      const labels = FINDING_KINDS.map((k) => cat[`metadata.kind.${k}`]);
      expect(labels.every((l) => typeof l === 'string' && l.length > 0), lang).toBe(true);
      expect(new Set(labels).size, `${lang}: two kinds share a label`).toBe(FINDING_KINDS.length);
      expect(cat['metadata.remaining'], lang).toContain('{list}');
    }
  });

  it('odt: creator, editing time, generator, thumbnail and annotation author; mimetype stays first and stored', async () => {
    const odt = odtWithAuthor();
    const k = await kinds(odt);
    for (const want of ['author', 'lastModifiedBy', 'editingTime', 'software', 'thumbnail', 'commentAuthors', 'commentDates'] satisfies FindingKind[]) expect(k).toContain(want);
    const cleaned = await cleanFile(odt);
    expect(latin1(cleaned.bytes.subarray(30, 38))).toBe('mimetype');
    expect(allText(cleaned.bytes)).not.toContain(SECRET.author);
    expect(Object.keys(unzipSync(cleaned.bytes))).not.toContain('Thumbnails/thumbnail.png');
    expect((await inspectFile(cleaned.bytes)).findings).toEqual([]);
  });
});

describe('PNG and WebP', () => {
  it('PNG: the author, the comment (tEXt), the software (iTXt), the XMP packet and tIME are each named, and all removed', async () => {
    const png = pngWithTextChunks();
    const found = await inspectFile(png);
    expect(found.findings).toEqual(expect.arrayContaining([
      { kind: 'author', detail: SECRET.author },
      { kind: 'comments', detail: SECRET.comment },
      { kind: 'software', detail: SECRET.software },
      { kind: 'xmp' },
      { kind: 'modified' },
    ]));
    const cleaned = await cleanFile(png);
    expect(cleaned.removed).toEqual(['author', 'created', 'modified', 'software', 'comments', 'xmp']);
    expect(cleaned.remaining).toEqual([]);
    const s = latin1(cleaned.bytes);
    for (const gone of ['tEXt', 'iTXt', 'tIME', 'xmpmeta', SECRET.author, SECRET.software]) expect(s).not.toContain(gone);
  });

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
