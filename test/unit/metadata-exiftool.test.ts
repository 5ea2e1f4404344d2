/**
 * The cleaner (core/metadata/scan.ts) judged by a reader nobody here wrote: exiftool
 * reads the original and the cleaned file of each supported type (JPEG, PNG, PDF,
 * docx, built in the test). Every identifying tag it reads in the original is gone
 * from the cleaned one, and the kinds the form names ("Removed: …", from the
 * cleaner's `removed`) are exactly the kinds of what exiftool found, plus, for a
 * docx, the parts exiftool does not read (comments, tracked changes), which the zip
 * listing checks instead.
 *
 * exiftool: Debian's libimage-exiftool-perl, with libarchive-zip-perl for docx;
 * `.ci/run` installs both. Skipped, saying so, only where exiftool is absent and CI is not set.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { cleanFile, FINDING_KINDS, type FindingKind } from '../../core/metadata/scan.ts';
import { SECRET, docxWithReview, jpegWithExif, pdfWithAuthor, pngWithTextChunks } from '../fixtures/metadata-files.ts';

const hasExiftool = spawnSync('exiftool', ['-ver'], { encoding: 'utf8' }).status === 0;
if (!hasExiftool) {
  if (process.env.CI) throw new Error('exiftool is required in CI (.ci/run installs libimage-exiftool-perl)');
  console.warn('metadata-exiftool.test.ts SKIPPED: exiftool is not installed (apt-get install libimage-exiftool-perl libarchive-zip-perl)');
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-exiftool-'));

type Tags = [tag: string, value: string][];

/**
 * Every tag exiftool reads, as "Group1:Name" and its value, duplicates (one per zip
 * entry, one per IFD) and unknown tags included: exiftool's text output, since its
 * JSON keeps one of each duplicate only.
 */
function exiftool(name: string, bytes: Uint8Array): Tags {
  const file = path.join(tmp, name);
  writeFileSync(file, bytes);
  const text = execFileSync('exiftool', ['-G1', '-a', '-u', '-n', '-s', file], { encoding: 'utf8' });
  return text
    .split('\n')
    .map((line) => /^\[([^\]]+)\]\s+(\S+)\s*: ?(.*)$/.exec(line))
    .filter((m) => m !== null)
    .map((m) => [`${m[1]}:${m[2]}`, m[3]!] as [string, string]);
}

/** Tags that say nothing about who, where, when or with what: the file's own structure. */
const NEUTRAL = [
  /^(SourceFile|ExifTool:.*|System:.*)$/,
  /^File:(FileType|FileTypeExtension|MIMEType|ImageWidth|ImageHeight|EncodingProcess|BitsPerSample|ColorComponents|YCbCrSubSampling|ExifByteOrder)$/,
  /^JFIF:.*$/,
  /^Composite:(ImageSize|Megapixels)$/,
  /^PNG:(ImageWidth|ImageHeight|BitDepth|ColorType|Compression|Filter|Interlace)$/,
  /^PDF:(PDFVersion|Linearized|PageCount)$/,
  /^ZIP:Zip(RequiredVersion|BitFlag|Compression|CRC|CompressedSize|UncompressedSize|FileName)$/,
];

/** What each identifying tag is, in the cleaner's kinds. */
const KIND_OF: [RegExp, FindingKind][] = [
  [/^(GPS:.*|Composite:GPS.*)$/, 'location'],
  [/^IFD0:(Make|Model)$/, 'device'],
  [/^ExifIFD:(SerialNumber|BodySerialNumber|LensSerialNumber)$/, 'serialNumber'],
  [/^(IFD0:Artist|XMP-dc:Creator|PNG:Author|PDF:Author)$/, 'author'],
  [/^XML:LastModifiedBy$/, 'lastModifiedBy'],
  [/^XML:Manager$/, 'manager'],
  [/^XML:Company$/, 'company'],
  [/^XML:TotalEditTime$/, 'editingTime'],
  [/^(ExifIFD:(DateTimeOriginal|CreateDate)|XMP-xmp:CreateDate|PDF:CreateDate|XML:CreateDate)$/, 'created'],
  [/^(IFD0:ModifyDate|PNG:ModifyDate|PDF:ModifyDate|XML:ModifyDate|XMP-xmp:(ModifyDate|MetadataDate)|ZIP:ZipModifyDate)$/, 'modified'],
  [/^(IFD0:Software|PNG:Software|PDF:(Producer|Creator)|XMP-xmp:CreatorTool|XML:(Application|AppVersion))$/, 'software'],
  [/^(File:Comment|PNG:Comment|ExifIFD:UserComment)$/, 'comments'],
  [/^XML:RevisionNumber$/, 'revisionIds'],
  [/^(XMP-dc:Title|PDF:Title)$/, 'title'],
];

/** The date every entry of a cleaned zip carries: the earliest a zip can say, nobody's clock. */
const ZIP_EPOCH = '1980:01:01 00:00:00';

/** The identifying tags exiftool read, each with its kind; fails on a tag this test does not know. */
function identifying(tags: Tags, ooxml = false): Map<string, FindingKind[]> {
  const out = new Map<string, FindingKind[]>();
  for (const [tag, value] of tags) {
    if (NEUTRAL.some((re) => re.test(tag))) continue;
    if (tag === 'ZIP:ZipModifyDate' && value === ZIP_EPOCH) continue;
    const kinds = KIND_OF.filter(([re]) => re.test(tag)).map(([, k]) => k);
    // Any XMP is named as such besides what it says (exiftool files a docx's Dublin Core
    // properties under XMP-dc too, though they are core.xml, not an XMP packet).
    if (tag.startsWith('XMP-') && !ooxml) kinds.push('xmp');
    expect(kinds, `exiftool read ${tag} = ${JSON.stringify(value)}, which this test does not classify`).not.toEqual([]);
    out.set(`${tag} = ${value}`, kinds);
  }
  return out;
}

/** What exiftool does not read in a docx (word/comments.xml, tracked changes in document.xml): checked by the zip listing. */
const DOCX_NOT_READ_BY_EXIFTOOL: FindingKind[] = ['comments', 'commentAuthors', 'commentDates', 'trackedChanges', 'changeAuthors', 'changeDates'];

const CASES: { name: string; make: () => Uint8Array | Promise<Uint8Array>; notRead?: FindingKind[]; ooxml?: boolean }[] = [
  { name: 'photo.jpg', make: jpegWithExif },
  { name: 'picture.png', make: pngWithTextChunks },
  { name: 'minutes.pdf', make: pdfWithAuthor },
  { name: 'review.docx', make: docxWithReview, notRead: DOCX_NOT_READ_BY_EXIFTOOL, ooxml: true },
];

describe.skipIf(!hasExiftool)('the cleaner, read by exiftool', () => {
  it('exiftool reads docx properties here (Archive::Zip is installed)', () => {
    const tags = new Map(exiftool('probe.docx', docxWithReview()));
    expect(tags.get('ExifTool:Warning') ?? '', 'install libarchive-zip-perl').not.toMatch(/Archive::Zip/);
    expect(tags.get('File:FileType')).toBe('DOCX');
    expect(tags.get('XML:Manager')).toBe(SECRET.manager);
  });

  for (const c of CASES) {
    it(`${c.name}: every identifying tag exiftool reads in the original is gone, and the form names exactly those kinds`, async () => {
      const original = await c.make();
      const before = identifying(exiftool(`original-${c.name}`, original), c.ooxml);
      expect(before.size, 'the fixture holds identifying tags').toBeGreaterThan(3);

      const cleaned = await cleanFile(original);
      const after = identifying(exiftool(`cleaned-${c.name}`, cleaned.bytes), c.ooxml);
      expect([...after.keys()], 'identifying tags exiftool still reads in the cleaned file').toEqual([]);

      // The form says "Removed: …" from cleaned.removed: each kind exiftool found is named…
      const found = new Set([...before.values()].flat());
      for (const k of found) expect(cleaned.removed, `exiftool found ${k}`).toContain(k);
      // …and nothing is named that exiftool did not find, but what it cannot read.
      const beyond = cleaned.removed.filter((k) => !found.has(k));
      expect(beyond.filter((k) => !(c.notRead ?? []).includes(k)), 'named though exiftool found none').toEqual([]);
      expect(cleaned.removed.every((k) => (FINDING_KINDS as readonly string[]).includes(k))).toBe(true);
      expect(cleaned.remaining).toEqual([]);
    });
  }

  it('the docx the form cleaned: the zip listing holds no comment part, and no part names an author or a date', async () => {
    const cleaned = await cleanFile(docxWithReview());
    const parts = unzipSync(cleaned.bytes);
    const names = Object.keys(parts).sort();
    expect(names).toEqual(['[Content_Types].xml', '_rels/.rels', 'docProps/app.xml', 'docProps/core.xml', 'word/_rels/document.xml.rels', 'word/document.xml', 'word/settings.xml']);
    const all = names.map((n) => strFromU8(parts[n]!)).join('\n');
    expect(all).not.toMatch(/w:author=|w:date=|w:initials=|w15:userId=|commentReference|commentRange|<w:ins\b|<w:del\b|w:rPrChange|w:pPrChange|rsid|docId/);
    for (const secret of [SECRET.author, SECRET.lastModifiedBy, SECRET.manager, SECRET.company, SECRET.commenter, SECRET.commentText, SECRET.changer, SECRET.deletedText, '2026-05']) {
      expect(all).not.toContain(secret);
    }
    // The insertion is accepted: its text stays, as the document reads now.
    expect(strFromU8(parts['word/document.xml']!)).toContain('The second payment goes to a private account.');
    expect(cleaned.removed).toEqual(expect.arrayContaining(DOCX_NOT_READ_BY_EXIFTOOL));
    // Every entry is dated 1980-01-01, as exiftool reads it: not when it was saved or cleaned.
    const dates = exiftool('listed.docx', cleaned.bytes).filter(([tag]) => tag === 'ZIP:ZipModifyDate').map(([, v]) => v);
    expect(dates).toHaveLength(names.length);
    expect(new Set(dates)).toEqual(new Set([ZIP_EPOCH]));
  });
});
