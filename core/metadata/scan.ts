/**
 * Hidden data in a file, found and removed on the reporter's device
 * (docs/decisions/metadata-removal.md). Pure functions over bytes: they run in the
 * SPA's Web Worker, and the server uses `inspectFile` to re-check what it receives.
 *
 * Reading: exifr (JPEG, PNG, HEIC/HEIF, TIFF), pdf-lib (PDF Info and XMP), fflate
 * (OOXML and ODF zips). Rewriting: pdf-lib, fflate, and small segment strippers for
 * JPEG, PNG and WebP (no library rewrites those without decoding the image).
 */
import exifr from 'exifr';
import { PDFContext, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef, PDFStream, PDFString, PDFHexString, decodePDFRawStream } from 'pdf-lib';
import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from 'fflate';

export const FINDING_KINDS = [
  'location',
  'device',
  'serialNumber',
  'author',
  'lastModifiedBy',
  'manager',
  'company',
  'editingTime',
  'created',
  'modified',
  'dates',
  'software',
  'thumbnail',
  'comments',
  'commentAuthors',
  'commentDates',
  'trackedChanges',
  'changeAuthors',
  'changeDates',
  'revisionIds',
  'title',
  'description',
  'xmp',
  'pngText',
  'otherMetadata',
] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

export interface Finding {
  kind: FindingKind;
  /** What was found, shortened, for the reporter to recognise (never sent anywhere). */
  detail?: string;
}

export type FileFormat = 'jpeg' | 'png' | 'webp' | 'heic' | 'pdf' | 'ooxml' | 'odf';

export interface Inspection {
  /** null: a type we cannot check. */
  format: FileFormat | null;
  findings: Finding[];
}

export interface Cleaned {
  bytes: Uint8Array;
  /**
   * What the cleaning removed (kinds, in FINDING_KINDS order): the kinds found in the
   * original and no longer found in the cleaned bytes. The form names these, and only these.
   */
  removed: FindingKind[];
  /** Kinds still found in the cleaned bytes (normally none); the form names them too. */
  remaining: FindingKind[];
}

export class CannotClean extends Error {}

/**
 * A file that would make a parser inflate more than its limits allow (a "flate bomb":
 * a 2 KB PDF whose object stream, compressed twice, inflates to gigabytes). It is a
 * CannotClean, so the SPA treats it as a file it could not clean; the server records
 * it as "could not be checked" rather than as clean.
 */
export class ScanLimitExceeded extends CannotClean {}

/** How much one file may make the parsers produce (docs/decisions/metadata-removal.md "Limits"). */
export interface ScanLimits {
  /** Bytes that all decoded PDF streams, or all zip entries, of one file may add up to. */
  maxInflatedBytes: number;
  /** Filters one PDF stream may chain (FlateDecode inside FlateDecode inside …). */
  maxFilterDepth: number;
  /** Entries one zip (OOXML, ODF) may hold. */
  maxZipEntries: number;
}

/**
 * The reporter's device: generous, since an Office file may hold large pictures and a
 * bomb there only slows the reporter's own worker. The server's child passes tighter ones.
 */
export const DEVICE_SCAN_LIMITS: ScanLimits = { maxInflatedBytes: 512 * 1024 * 1024, maxFilterDepth: 4, maxZipEntries: 20_000 };

// ---- format -----------------------------------------------------------------------

const startsWith = (b: Uint8Array, sig: number[], at = 0) => sig.every((x, i) => b[at + i] === x);
const ascii = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to));

export function detectFormat(b: Uint8Array): FileFormat | null {
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP') return 'webp';
  if (ascii(b, 4, 8) === 'ftyp' && /^(heic|heix|hevc|heim|heis|mif1|msf1|avif)$/.test(ascii(b, 8, 12))) return 'heic';
  if (ascii(b, 0, 5) === '%PDF-') return 'pdf';
  if (startsWith(b, [0x50, 0x4b, 0x03, 0x04])) {
    // ODF stores "mimetype" first, uncompressed; OOXML has [Content_Types].xml.
    if (ascii(b, 30, 38) === 'mimetype' && ascii(b, 38, 80).includes('application/vnd.oasis.opendocument')) return 'odf';
    return 'ooxml';
  }
  return null;
}

const short = (s: unknown, max = 60) => {
  const t = String(s ?? '').replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

/** `push(out, kind)`: present; `push(out, kind, value)`: present only when value is non-empty. */
function push(out: Finding[], kind: FindingKind, ...value: [unknown?]) {
  const d = value.length === 0 ? undefined : short(value[0]);
  if (value.length > 0 && !d) return;
  if (out.some((f) => f.kind === kind && (f.detail === d || !d))) return;
  // A value says more than the bare kind: it takes the bare one's place.
  const bare = out.findIndex((f) => f.kind === kind && !f.detail);
  if (bare >= 0) out.splice(bare, 1);
  out.push(d ? { kind, detail: d } : { kind });
}

export function sortKinds(kinds: Iterable<FindingKind>): FindingKind[] {
  const set = new Set(kinds);
  return FINDING_KINDS.filter((k) => set.has(k));
}

// ---- images: reading (exifr) --------------------------------------------------------

const EXIF_KIND: Record<string, FindingKind> = {
  Make: 'device',
  Model: 'device',
  LensMake: 'device',
  LensModel: 'device',
  HostComputer: 'device',
  BodySerialNumber: 'serialNumber',
  LensSerialNumber: 'serialNumber',
  SerialNumber: 'serialNumber',
  InternalSerialNumber: 'serialNumber',
  CameraSerialNumber: 'serialNumber',
  ImageUniqueID: 'serialNumber',
  Artist: 'author',
  XPAuthor: 'author',
  Copyright: 'author',
  creator: 'author',
  OwnerName: 'author',
  CameraOwnerName: 'author',
  Byline: 'author',
  Software: 'software',
  CreatorTool: 'software',
  ProcessingSoftware: 'software',
  Producer: 'software',
  DateTimeOriginal: 'created',
  CreateDate: 'created',
  DateTimeDigitized: 'created',
  DateCreated: 'created',
  DigitalCreationDate: 'created',
  ModifyDate: 'modified',
  DateTime: 'modified',
  MetadataDate: 'modified',
  UserComment: 'comments',
  XPComment: 'comments',
  ImageDescription: 'description',
  description: 'description',
  Caption: 'description',
  XPSubject: 'description',
  XPKeywords: 'description',
  Keywords: 'description',
  subject: 'description',
  XPTitle: 'title',
  title: 'title',
  ObjectName: 'title',
  Headline: 'title',
};

/** PNG text keywords (tEXt, zTXt, iTXt) as the PNG spec and exiftool name them. */
const PNG_KEYWORD_KIND: Record<string, FindingKind> = {
  Author: 'author',
  Copyright: 'author',
  Title: 'title',
  Description: 'description',
  Comment: 'comments',
  Software: 'software',
  Source: 'device',
  'Creation Time': 'created',
  'date:create': 'created',
  'date:modify': 'modified',
  'date:timestamp': 'dates',
  'XML:com.adobe.xmp': 'xmp',
};

const exifDetail = (v: unknown) =>
  v instanceof Date ? v.toISOString().slice(0, 16).replace('T', ' ') : typeof v === 'object' ? ((v as { value?: unknown }).value ?? JSON.stringify(v)) : v;

async function readExif(b: Uint8Array, format: FileFormat): Promise<Record<string, unknown> | undefined> {
  try {
    return (await exifr.parse(format === 'png' ? withoutIccp(b) : b, {
      tiff: true,
      ifd0: true,
      exif: true,
      gps: true,
      interop: false,
      ifd1: true,
      xmp: true,
      iptc: true,
      icc: false,
      jfif: false,
      ihdr: false,
      makerNote: false,
      userComment: true,
      mergeOutput: true,
      translateValues: true,
      reviveValues: true,
      sanitize: true,
      silentErrors: true,
    } as never)) as Record<string, unknown> | undefined;
  } catch {
    return undefined;
  }
}

/** What an XMP packet says, in kinds (it is named as `xmp` besides). */
function inspectXmp(out: Finding[], xml: string): void {
  push(out, 'xmp');
  const creator = /<dc:creator>[\s\S]*?<rdf:li[^>]*>([^<]+)</.exec(xml)?.[1];
  if (creator) push(out, 'author', creator);
  const attrOrElem = (name: string) => new RegExp(`${name}(?:>|=")([^<"]+)`).exec(xml)?.[1];
  const tool = attrOrElem('xmp:CreatorTool') ?? attrOrElem('pdf:Producer');
  if (tool) push(out, 'software', tool);
  if (attrOrElem('xmp:CreateDate')) push(out, 'created');
  if (attrOrElem('xmp:ModifyDate') || attrOrElem('xmp:MetadataDate')) push(out, 'modified');
  if (/<dc:title>/.test(xml)) push(out, 'title');
  if (/<dc:description>|<dc:subject>|pdf:Keywords/.test(xml)) push(out, 'description');
}

async function inspectImage(b: Uint8Array, format: FileFormat): Promise<Finding[]> {
  const out: Finding[] = [];
  const data = await readExif(b, format);
  if (data) {
    if (typeof data.latitude === 'number' && typeof data.longitude === 'number') {
      push(out, 'location', `${data.latitude.toFixed(5)}, ${data.longitude.toFixed(5)}`);
    } else if (Object.keys(data).some((k) => k.startsWith('GPS'))) {
      push(out, 'location');
    }
    for (const [k, v] of Object.entries(data)) {
      const kind = EXIF_KIND[k];
      if (!kind || v === undefined || v === null || v === '') continue;
      if (kind === 'created' || kind === 'modified') push(out, kind);
      else push(out, kind, exifDetail(v));
    }
    // exifr merges IFD1 into the output; a thumbnail has its own offset/length tags.
    if ('ThumbnailOffset' in data || 'ThumbnailLength' in data || 'JPEGInterchangeFormat' in data) push(out, 'thumbnail');
  }
  const known = out.length;
  if (format === 'jpeg') {
    for (const s of jpegSegments(b)) {
      if (s.marker === 0xfe) push(out, 'comments', ascii(b, s.start + 4, Math.min(s.end, s.start + 64)));
      else if (s.marker === 0xe1 && ascii(b, s.start + 4, s.start + 33) === 'http://ns.adobe.com/xap/1.0/\0') inspectXmp(out, strFromU8(b.subarray(s.start + 33, s.end)));
      else if (s.marker === 0xed) {
        // IPTC (APP13): named by what exifr read from it, if anything.
        if (known === 0) push(out, 'otherMetadata');
      } else if (s.marker === 0xe1) continue; // EXIF: read above
      else if (s.marker === 0xe2 ? ascii(b, s.start + 4, s.start + 15) !== 'ICC_PROFILE' : s.marker >= 0xe3 && s.marker <= 0xef && s.marker !== 0xee) push(out, 'otherMetadata');
    }
  }
  if (format === 'png') {
    for (const c of pngChunks(b)) {
      if (c.type === 'tIME') push(out, 'modified');
      else if (c.type === 'eXIf') {
        if (known === 0) push(out, 'otherMetadata');
      } else if (c.type === 'tEXt' || c.type === 'zTXt' || c.type === 'iTXt') {
        const t = pngText(b, c);
        const kind = PNG_KEYWORD_KIND[t.keyword] ?? 'pngText';
        if (kind === 'xmp') inspectXmp(out, t.text ?? '');
        else if (kind === 'created' || kind === 'modified') push(out, kind);
        else if (t.text !== undefined) push(out, kind, kind === 'pngText' ? `${t.keyword}: ${t.text}` : t.text);
        else push(out, kind);
      } else if (!PNG_KEEP.has(c.type)) push(out, 'otherMetadata');
    }
  }
  if (format === 'webp') {
    for (const c of webpChunks(b)) {
      if (c.id === 'XMP ') inspectXmp(out, strFromU8(b.subarray(c.start + 8, c.end)));
      else if (c.id === 'EXIF' && known === 0) push(out, 'otherMetadata');
    }
  }
  return out;
}

// ---- JPEG -------------------------------------------------------------------------------

interface Segment {
  marker: number;
  start: number;
  end: number;
}

/** The marker segments before the image data (SOS); the rest is kept as it is. */
function jpegSegments(b: Uint8Array): Segment[] {
  const out: Segment[] = [];
  let i = 2;
  while (i + 4 <= b.length && b[i] === 0xff) {
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i++;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) break;
    const len = (b[i + 2]! << 8) | b[i + 3]!;
    if (len < 2 || i + 2 + len > b.length) throw new CannotClean('broken JPEG segment');
    out.push({ marker, start: i, end: i + 2 + len });
    i += 2 + len;
  }
  return out;
}

/** Keeps JFIF (APP0), the colour profile (APP2 ICC_PROFILE) and Adobe's colour transform (APP14); drops EXIF, XMP, IPTC, comments and the rest. */
export function stripJpeg(b: Uint8Array): Uint8Array {
  const segs = jpegSegments(b);
  const drop = segs.filter((s) => {
    if (s.marker === 0xe0 || s.marker === 0xee) return false;
    if (s.marker === 0xe2) return ascii(b, s.start + 4, s.start + 15) !== 'ICC_PROFILE';
    return (s.marker >= 0xe1 && s.marker <= 0xef) || s.marker === 0xfe;
  });
  if (drop.length === 0) return b;
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const s of drop) {
    parts.push(b.subarray(at, s.start));
    at = s.end;
  }
  parts.push(b.subarray(at));
  return concat(parts);
}

// ---- PNG -------------------------------------------------------------------------------

/** Chunks that carry the picture (or its colour); everything else is dropped. */
const PNG_KEEP = new Set(['IHDR', 'PLTE', 'IDAT', 'IEND', 'tRNS', 'gAMA', 'cHRM', 'sRGB', 'iCCP', 'sBIT', 'pHYs', 'bKGD', 'acTL', 'fcTL', 'fdAT', 'cICP', 'mDCV', 'cLLI']);

interface Chunk {
  type: string;
  start: number;
  end: number;
}

function pngChunks(b: Uint8Array): Chunk[] {
  const out: Chunk[] = [];
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let i = 8;
  while (i + 12 <= b.length) {
    const len = view.getUint32(i);
    const end = i + 12 + len;
    if (end > b.length) throw new CannotClean('broken PNG chunk');
    const type = ascii(b, i + 4, i + 8);
    out.push({ type, start: i, end });
    i = end;
    if (type === 'IEND') break;
  }
  return out;
}

/**
 * A text chunk's keyword, and its text when it is stored uncompressed (tEXt, or iTXt
 * without compression); a compressed text is named by its keyword alone, never inflated.
 */
function pngText(b: Uint8Array, c: Chunk): { keyword: string; text?: string } {
  const data = b.subarray(c.start + 8, c.end - 4);
  const nul = data.indexOf(0);
  if (nul < 0) return { keyword: ascii(data, 0, Math.min(data.length, 79)) };
  const keyword = ascii(data, 0, nul);
  if (c.type === 'tEXt') return { keyword, text: ascii(data, nul + 1, Math.min(data.length, nul + 1 + 4096)) };
  if (c.type === 'iTXt' && data[nul + 1] === 0) {
    let at = nul + 3;
    for (let n = 0; n < 2 && at < data.length; n++) at = data.indexOf(0, at) + 1 || data.length; // language, translated keyword
    return { keyword, text: strFromU8(data.subarray(at)) };
  }
  return { keyword };
}

/**
 * exifr inflates a PNG's iCCP colour profile with node:zlib, unbounded, even with `icc`
 * off (on Node only: the server's child). The profile holds no metadata we report.
 */
function withoutIccp(b: Uint8Array): Uint8Array {
  const chunks = pngChunks(b);
  if (!chunks.some((c) => c.type === 'iCCP')) return b;
  return concat([b.subarray(0, 8), ...chunks.filter((c) => c.type !== 'iCCP').map((c) => b.subarray(c.start, c.end))]);
}

export function stripPng(b: Uint8Array): Uint8Array {
  const chunks = pngChunks(b);
  if (chunks.every((c) => PNG_KEEP.has(c.type))) return b;
  return concat([b.subarray(0, 8), ...chunks.filter((c) => PNG_KEEP.has(c.type)).map((c) => b.subarray(c.start, c.end))]);
}

// ---- WebP ------------------------------------------------------------------------------

interface RiffChunk {
  id: string;
  start: number;
  end: number;
}

function webpChunks(b: Uint8Array): RiffChunk[] {
  const out: RiffChunk[] = [];
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let i = 12;
  while (i + 8 <= b.length) {
    const size = view.getUint32(i + 4, true);
    const end = i + 8 + size + (size & 1);
    if (i + 8 + size > b.length) throw new CannotClean('broken WebP chunk');
    out.push({ id: ascii(b, i, i + 4), start: i, end: Math.min(end, b.length) });
    i = end;
  }
  return out;
}

export function stripWebp(b: Uint8Array): Uint8Array {
  const chunks = webpChunks(b);
  const kept = chunks.filter((c) => c.id !== 'EXIF' && c.id !== 'XMP ');
  if (kept.length === chunks.length) return b;
  const body = concat(kept.map((c) => b.subarray(c.start, c.end)));
  const out = concat([b.subarray(0, 12), body]);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  view.setUint32(4, out.length - 8, true);
  const vp8x = kept.find((c) => c.id === 'VP8X');
  if (vp8x) {
    const at = 12 + kept.slice(0, kept.indexOf(vp8x)).reduce((n, c) => n + (c.end - c.start), 0) + 8;
    out[at] = out[at]! & ~(0x08 | 0x04); // the EXIF and XMP flags
  }
  return out;
}

// ---- PDF -------------------------------------------------------------------------------

const PDF_INFO_KIND: Record<string, FindingKind> = {
  Author: 'author',
  Creator: 'software',
  Producer: 'software',
  Title: 'title',
  Subject: 'description',
  Keywords: 'description',
  CreationDate: 'created',
  ModDate: 'modified',
  SourceModified: 'modified',
  Company: 'company',
  Manager: 'manager',
  LastModifiedBy: 'lastModifiedBy',
};

function pdfText(o: unknown): string | undefined {
  if (o instanceof PDFString || o instanceof PDFHexString) return o.decodeText();
  if (o instanceof PDFName) return o.decodeText();
  return undefined;
}

interface InflateBudget {
  left: number;
  maxDepth: number;
  exceeded: boolean;
}

// One budget for every PDF being read at the moment: pdf-lib decodes object and
// cross-reference streams inside PDFDocument.load, with no hook per document. Loads that
// overlap (the SPA's worker may read two files at once) share it, which only makes it stricter.
let budget: InflateBudget | null = null;
let budgetUsers = 0;
let guardInstalled = false;

/**
 * pdf-lib has no size or nesting option for its decoders, and exports none of them; all
 * its filters (Flate, LZW, ASCII85, ASCIIHex, RunLength) grow their output through
 * DecodeStream's ensureBuffer. A decoder made through the public decodePDFRawStream shows
 * that shared prototype, and the guard wrapped around ensureBuffer refuses to grow past
 * the budget or to decode through more filters than allowed, before the memory is taken.
 */
function installInflateGuard(): void {
  if (guardInstalled) return;
  // ASCIIHexDecode: its decoder reads nothing when made (Flate's reads its header).
  const probe = decodePDFRawStream(PDFRawStream.of(PDFContext.create().obj({ Filter: 'ASCIIHexDecode' }), new Uint8Array(0)));
  const proto = Object.getPrototypeOf(Object.getPrototypeOf(probe)) as { ensureBuffer?: (this: DecoderLike, requested: number) => Uint8Array };
  const ensure = proto.ensureBuffer;
  // Fail closed: a pdf-lib that no longer has this shape reads no PDF unguarded.
  if (typeof ensure !== 'function') throw new ScanLimitExceeded('pdf-lib changed: no DecodeStream.ensureBuffer to guard');
  guardInstalled = true;
  proto.ensureBuffer = function (this: DecoderLike, requested: number) {
    const b = budget;
    const have = this.buffer?.byteLength ?? 0;
    if (b && requested > have) {
      // Charged at what ensureBuffer will allocate (it doubles), not at what was asked.
      let size = this.minBufferLength ?? 512;
      while (size < requested) size *= 2;
      b.left -= size - have;
      let depth = 0;
      for (let s: DecoderLike | undefined = this; s && Object.prototype.isPrototypeOf.call(proto, s); s = s.stream) depth++;
      if (b.left < 0 || depth > b.maxDepth) {
        b.exceeded = true;
        throw new ScanLimitExceeded('PDF stream inflates past the limit');
      }
    }
    return ensure.call(this, requested);
  };
}

interface DecoderLike {
  buffer?: Uint8Array;
  minBufferLength?: number;
  /** The stream this one decodes (another decoder when filters are chained). */
  stream?: DecoderLike;
}

/** Runs a PDF read under the inflate budget; pdf-lib skips objects it cannot parse, so a refused stream is found here, not by a throw. */
async function withInflateBudget<T>(limits: ScanLimits, read: () => Promise<T>): Promise<T> {
  installInflateGuard();
  if (budgetUsers++ === 0) budget = { left: limits.maxInflatedBytes, maxDepth: limits.maxFilterDepth, exceeded: false };
  const mine = budget!;
  try {
    const out = await read();
    if (mine.exceeded) throw new ScanLimitExceeded('PDF stream inflates past the limit');
    return out;
  } catch (e) {
    throw mine.exceeded ? new ScanLimitExceeded('PDF stream inflates past the limit') : e;
  } finally {
    if (--budgetUsers === 0) budget = null;
  }
}

async function loadPdf(b: Uint8Array): Promise<PDFDocument> {
  return PDFDocument.load(b, { updateMetadata: false, ignoreEncryption: false, throwOnInvalidObject: false });
}

function isMetadataStream(o: unknown): boolean {
  return o instanceof PDFStream && o.dict.get(PDFName.of('Type')) === PDFName.of('Metadata');
}

function inspectPdf(b: Uint8Array, limits: ScanLimits): Promise<Finding[]> {
  return withInflateBudget(limits, () => readPdf(b));
}

async function readPdf(b: Uint8Array): Promise<Finding[]> {
  const out: Finding[] = [];
  const doc = await loadPdf(b);
  const info = doc.context.lookup(doc.context.trailerInfo.Info);
  if (info instanceof PDFDict) {
    for (const [k, v] of info.entries()) {
      const text = pdfText(v);
      if (text === undefined || text.trim() === '') continue;
      const key = k.decodeText();
      const kind = PDF_INFO_KIND[key] ?? (/Date$/.test(key) ? 'dates' : 'otherMetadata');
      if (kind === 'created' || kind === 'modified' || kind === 'dates') push(out, kind);
      else push(out, kind, text);
    }
  }
  for (const [, obj] of doc.context.enumerateIndirectObjects()) {
    if (isMetadataStream(obj)) {
      inspectXmp(out, obj instanceof PDFRawStream ? safeDecode(obj) : '');
    } else if (isAnnotation(obj)) {
      // An annotation's /T is its author (comments, highlights), /M and /CreationDate its dates.
      const who = pdfText(obj.get(PDFName.of('T')));
      if (who) push(out, 'commentAuthors', who);
      if (pdfText(obj.get(PDFName.of('M'))) || pdfText(obj.get(PDFName.of('CreationDate')))) push(out, 'commentDates');
    }
  }
  return out;
}

function isAnnotation(o: unknown): o is PDFDict {
  if (!(o instanceof PDFDict) || !(o.get(PDFName.of('Subtype')) instanceof PDFName)) return false;
  return o.get(PDFName.of('Type')) === PDFName.of('Annot') || o.has(PDFName.of('Rect'));
}

function safeDecode(s: PDFRawStream): string {
  try {
    const filter = s.dict.get(PDFName.of('Filter'));
    if (!filter) return strFromU8(s.getContents());
    // A compressed packet: decoded under the inflate budget (the guard above).
    if (filter === PDFName.of('FlateDecode')) return strFromU8(decodePDFRawStream(s).decode());
    return '';
  } catch (e) {
    if (e instanceof ScanLimitExceeded) throw e;
    return '';
  }
}

function cleanPdf(b: Uint8Array, limits: ScanLimits): Promise<Cleaned> {
  return withInflateBudget(limits, () => rewritePdf(b));
}

async function rewritePdf(b: Uint8Array): Promise<Cleaned> {
  const found = await readPdf(b);
  const doc = await loadPdf(b);
  const ctx = doc.context;
  const infoRef = ctx.trailerInfo.Info;
  if (infoRef instanceof PDFRef) ctx.delete(infoRef);
  ctx.trailerInfo.Info = undefined;
  ctx.trailerInfo.ID = undefined;
  doc.catalog.delete(PDFName.of('Metadata'));
  doc.catalog.delete(PDFName.of('PieceInfo'));
  for (const [ref, obj] of ctx.enumerateIndirectObjects()) {
    if (isMetadataStream(obj)) ctx.delete(ref);
    else if (obj instanceof PDFDict) {
      obj.delete(PDFName.of('Metadata'));
      obj.delete(PDFName.of('PieceInfo'));
      if (isAnnotation(obj)) {
        if (obj.get(PDFName.of('T'))) obj.set(PDFName.of('T'), PDFString.of(''));
        obj.delete(PDFName.of('M'));
        obj.delete(PDFName.of('CreationDate'));
      }
      // Old Info dictionaries of earlier revisions, no longer referenced.
      if (obj.has(PDFName.of('Author')) || obj.has(PDFName.of('Producer')) || obj.has(PDFName.of('Creator'))) {
        if (!obj.has(PDFName.of('Type'))) ctx.delete(ref);
      }
    }
  }
  const bytes = await doc.save({ useObjectStreams: false, updateFieldAppearances: false });
  return compare(found, await readPdf(bytes), bytes);
}

// ---- OOXML and ODF (zip) ------------------------------------------------------------

const xmlText = (xml: string, tag: string) => new RegExp(`<${tag}[^>]*>([^<]*)</${tag}>`).exec(xml)?.[1];
const xmlUnescape = (s: string | undefined) => s?.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');

/**
 * fflate allocates each entry at the size its header declares and never writes past it,
 * so capping the declared sizes (fflate's filter) caps the memory; an entry that lies
 * about its size costs time only, which the server's child bounds by its time limit.
 */
function unzip(b: Uint8Array, limits: ScanLimits): Record<string, Uint8Array> {
  let entries = 0;
  let total = 0;
  try {
    return unzipSync(b, {
      filter: (f) => {
        total += f.originalSize;
        if (++entries > limits.maxZipEntries || total > limits.maxInflatedBytes) throw new ScanLimitExceeded('zip inflates past the limit');
        return true;
      },
    });
  } catch (e) {
    if (e instanceof ScanLimitExceeded) throw e;
    throw new CannotClean('broken zip');
  }
}

/** The DOS date every entry of a cleaned zip carries (1980-01-01, the earliest a zip can say; Word writes it too). */
const ZIP_EPOCH_DOS_DATE = (0 << 9) | (1 << 5) | 1;

/**
 * Whether any entry of the zip's central directory carries a real modification time
 * (when the file was saved, on the author's clock). Read from the directory itself:
 * fflate does not report entry times.
 */
function zipHasEntryDates(b: Uint8Array): boolean {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let eocd = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 22 - 65_535); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return false;
  const count = view.getUint16(eocd + 10, true);
  let at = view.getUint32(eocd + 16, true);
  for (let n = 0; n < count && at + 46 <= b.length; n++) {
    if (view.getUint32(at, true) !== 0x02014b50) return false;
    if (view.getUint16(at + 14, true) !== ZIP_EPOCH_DOS_DATE || view.getUint16(at + 12, true) !== 0) return true;
    at += 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return false;
}

/** Word's comment parts: removed whole, with their relationships and content types. */
const WORD_COMMENT_PARTS = /^word\/(comments|commentsExtended|commentsIds|commentsExtensible|people)\.xml$/;
/** The parts of a Word document that hold text, comment marks and tracked changes. */
const WORD_TEXT_PART = /^word\/(document|header\d*|footer\d*|footnotes|endnotes|glossary\/document)\.xml$/;
/** Tracked changes in WordprocessingML (ISO/IEC 29500-1 §17.13.5). */
const TRACKED_CHANGE = /<w:(ins|del|moveFrom|moveTo|moveFromRangeStart|moveToRangeStart|cellIns|cellDel|cellMerge|numberingChange|rPrChange|pPrChange|sectPrChange|tblPrChange|trPrChange|tcPrChange|tblGridChange|tblPrExChange|customXmlInsRangeStart|customXmlDelRangeStart|customXmlMoveFromRangeStart|customXmlMoveToRangeStart)\b[^>]*>/g;

function inspectOoxml(files: Record<string, Uint8Array>, bytes: Uint8Array): Finding[] {
  const out: Finding[] = [];
  const text = (name: string) => (files[name] ? strFromU8(files[name]!) : '');
  const core = text('docProps/core.xml');
  const app = text('docProps/app.xml');
  const prop = (xml: string, tag: string) => xmlUnescape(xmlText(xml, tag));
  push(out, 'author', prop(core, 'dc:creator'));
  push(out, 'lastModifiedBy', prop(core, 'cp:lastModifiedBy'));
  push(out, 'manager', prop(app, 'Manager'));
  push(out, 'company', prop(app, 'Company'));
  const total = xmlText(app, 'TotalTime');
  if (total && total !== '0') push(out, 'editingTime', `${total} min`);
  if (xmlText(core, 'dcterms:created')) push(out, 'created');
  if (xmlText(core, 'dcterms:modified') || zipHasEntryDates(bytes)) push(out, 'modified');
  if (xmlText(core, 'cp:lastPrinted')) push(out, 'dates');
  push(out, 'software', prop(app, 'Application'));
  push(out, 'software', prop(app, 'AppVersion'));
  push(out, 'title', prop(core, 'dc:title'));
  for (const tag of ['dc:subject', 'cp:keywords', 'dc:description', 'cp:category']) push(out, 'description', prop(core, tag));
  if (xmlText(core, 'cp:revision')) push(out, 'revisionIds');
  for (const tag of ['cp:contentStatus', 'dc:identifier', 'cp:version']) push(out, 'otherMetadata', prop(core, tag));
  for (const tag of ['Template', 'HyperlinkBase']) push(out, 'otherMetadata', prop(app, tag));
  if (files['docProps/custom.xml'] && /<property /.test(text('docProps/custom.xml'))) push(out, 'otherMetadata');
  const comments = Object.keys(files).some((n) => WORD_COMMENT_PARTS.test(n) && n !== 'word/people.xml');
  for (const name of Object.keys(files)) {
    if (/^docProps\/thumbnail\./.test(name)) push(out, 'thumbnail');
    if (!name.endsWith('.xml') || !/^(word|xl|ppt)\//.test(name)) continue;
    const xml = text(name);
    if (WORD_COMMENT_PARTS.test(name)) {
      if (name === 'word/comments.xml') {
        for (const m of xml.matchAll(/<w:comment\b[^>]*>([\s\S]*?)<\/w:comment>/g)) push(out, 'comments', xmlUnescape(m[1]!.replace(/<[^>]+>/g, ' ')));
        if (/<w:comment\b/.test(xml)) push(out, 'comments');
      }
      for (const m of xml.matchAll(/\bw(?:15)?:author="([^"]+)"/g)) push(out, comments ? 'commentAuthors' : 'changeAuthors', xmlUnescape(m[1]));
      if (/\bw:date="|\bw16cex:dateUtc="/.test(xml)) push(out, 'commentDates');
      continue;
    }
    if (/^word\//.test(name)) {
      if (/<w:comment(?:RangeStart|Reference)\b/.test(xml)) push(out, 'comments');
      for (const m of xml.matchAll(TRACKED_CHANGE)) {
        push(out, 'trackedChanges');
        const who = /\bw:author="([^"]*)"/.exec(m[0])?.[1];
        if (who) push(out, 'changeAuthors', xmlUnescape(who));
        if (/\bw:date="/.test(m[0])) push(out, 'changeDates');
      }
      if (/\bw:rsid\w*="|<w1[45]:docId\b/.test(xml)) push(out, 'revisionIds');
      continue;
    }
    // Excel: legacy comments (authors, text), threaded comments (text, date), persons.
    if (/^xl\/comments\d*\.xml$/.test(name)) {
      for (const m of xml.matchAll(/<author>([^<]+)<\/author>/g)) push(out, 'commentAuthors', xmlUnescape(m[1]));
      if (/<t\b[^>]*>[^<]+<\/t>/.test(xml)) push(out, 'comments');
    }
    if (/^xl\/threadedComments\//.test(name)) {
      if (/<text>[^<]+<\/text>/.test(xml)) push(out, 'comments');
      if (/\bdT="/.test(xml)) push(out, 'commentDates');
    }
    // PowerPoint: comments (text, date) and their authors, old and modern.
    if (/^ppt\/comments\//.test(name)) {
      if (/<p:text>[^<]+<\/p:text>|<a:t>[^<]+<\/a:t>/.test(xml)) push(out, 'comments');
      if (/<p:cm\b[^>]*\bdt="|<\w+:cm\b[^>]*\bcreated="(?!1980-01-01)/.test(xml)) push(out, 'commentDates');
    }
    for (const m of xml.matchAll(/<p:cmAuthor [^>]*name="([^"]+)"/g)) push(out, 'commentAuthors', xmlUnescape(m[1]));
    for (const m of xml.matchAll(/<\w+:author [^>]*name="([^"]+)"/g)) push(out, 'commentAuthors', xmlUnescape(m[1]));
    for (const m of xml.matchAll(/<(?:\w+:)?person [^>]*displayName="([^"]+)"/g)) push(out, 'commentAuthors', xmlUnescape(m[1]));
    if (/\bw:rsid\w*="/.test(xml)) push(out, 'revisionIds');
  }
  return out;
}

const EMPTY_CORE =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:dcmitype="http://purl.org/dc/dcmitype/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/>';
const EMPTY_APP =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties" xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes"/>';
const EMPTY_CUSTOM =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/custom-properties" xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes"/>';

/**
 * Accepts every tracked change of a WordprocessingML part, as Word's "Accept All" does:
 * insertions and moved-to text stay without their marks, deletions and moved-from text
 * go, old formatting and property records go (the current ones stay), and the marks
 * on paragraphs, rows and cells go. Comment anchors are removed with the comments.
 */
function acceptWordChanges(xml: string): string {
  const open = (tag: string) => `<w:${tag}\\b(?:[^>]*[^/>])?>`;
  return (
    xml
      // Self-closing marks: a paragraph mark, row or cell inserted/deleted, a move range, an old numbering.
      .replace(/<w:(ins|del|moveFrom|moveTo|cellIns|cellDel|cellMerge|numberingChange|moveFromRangeStart|moveFromRangeEnd|moveToRangeStart|moveToRangeEnd|customXml(?:Ins|Del|MoveFrom|MoveTo)Range(?:Start|End))\b[^>]*\/>/g, '')
      // Deleted and moved-away content, with its marks.
      .replace(new RegExp(`${open('del')}[\\s\\S]*?</w:del>`, 'g'), '')
      .replace(new RegExp(`${open('moveFrom')}[\\s\\S]*?</w:moveFrom>`, 'g'), '')
      // Inserted and moved-here content stays, without the marks.
      .replace(new RegExp(`${open('(?:ins|moveTo)')}|</w:(?:ins|moveTo)>`, 'g'), '')
      // The properties before a formatting change.
      .replace(/<w:(rPr|pPr|sectPr|tblPr|trPr|tcPr|tblGrid|tblPrEx)Change\b(?:[^>]*[^/>])?>[\s\S]*?<\/w:\1Change>/g, '')
      .replace(/<w:(rPr|pPr|sectPr|tblPr|trPr|tcPr|tblGrid|tblPrEx)Change\b[^>]*\/>/g, '')
      // Comment anchors (the comments part itself is removed).
      .replace(/<w:comment(?:RangeStart|RangeEnd|Reference)\b[^>]*\/>/g, '')
      // Whatever still names a person or a time.
      .replace(/\s(?:w|w15|w16du|w16cex):(?:author|date|dateUtc|initials)="[^"]*"/g, '')
  );
}

function cleanOoxml(files: Record<string, Uint8Array>): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  const dropped = Object.keys(files).filter((n) => WORD_COMMENT_PARTS.test(n) || /^word\/_rels\/(comments|commentsExtended|commentsIds|commentsExtensible|people)\.xml\.rels$/.test(n) || /^docProps\/thumbnail\./.test(n));
  const droppedTarget = (target: string) => dropped.some((n) => n.endsWith(`/${target.replace(/^\/?(word\/)?/, '')}`) || n === target.replace(/^\//, ''));
  for (const [name, data] of Object.entries(files)) {
    if (dropped.includes(name)) continue;
    if (name === 'docProps/core.xml') out[name] = strToU8(EMPTY_CORE);
    else if (name === 'docProps/app.xml') out[name] = strToU8(EMPTY_APP);
    else if (name === 'docProps/custom.xml') out[name] = strToU8(EMPTY_CUSTOM);
    else if (name === '[Content_Types].xml') {
      out[name] = strToU8(strFromU8(data).replace(/<Override [^>]*PartName="([^"]+)"[^>]*\/>/g, (m, part: string) => (dropped.includes(part.replace(/^\//, '')) ? '' : m)));
    } else if (name.endsWith('.rels')) {
      out[name] = strToU8(
        strFromU8(data).replace(/<Relationship [^>]*Target="([^"]+)"[^>]*\/>/g, (m, target: string) => (!/TargetMode="External"/.test(m) && droppedTarget(target) ? '' : m)),
      );
    } else if (name.endsWith('.xml') && /^word\//.test(name)) {
      let xml = strFromU8(data)
        .replace(/\s+w:rsid\w*="[^"]*"/g, '')
        .replace(/<w:rsids>[\s\S]*?<\/w:rsids>/g, '')
        .replace(/<w1[45]:docId\b[^>]*\/>/g, '');
      if (WORD_TEXT_PART.test(name) || name === 'word/settings.xml') xml = acceptWordChanges(xml);
      out[name] = strToU8(xml);
    } else if (name.endsWith('.xml') && /^(xl|ppt)\//.test(name)) {
      let xml = strFromU8(data)
        .replace(/\s+w:rsid\w*="[^"]*"/g, '')
        .replace(/<author>[^<]*<\/author>/g, '<author></author>')
        .replace(/(<p:cmAuthor [^>]*)name="[^"]*"/g, '$1name=""')
        .replace(/(<p:cmAuthor [^>]*)initials="[^"]*"/g, '$1initials=""')
        .replace(/(<\w+:author [^>]*)name="[^"]*"/g, '$1name=""')
        .replace(/(<\w+:author [^>]*)initials="[^"]*"/g, '$1initials=""')
        .replace(/(<\w+:author [^>]*)userId="[^"]*"/g, '$1userId=""')
        .replace(/(<(?:\w+:)?person [^>]*)displayName="[^"]*"/g, '$1displayName=""')
        .replace(/(<(?:\w+:)?person [^>]*)userId="[^"]*"/g, '$1userId=""');
      // Comment texts and dates: blanked, so the parts and the cells' or slides' references stay valid.
      if (/^xl\/comments\d*\.xml$/.test(name)) xml = xml.replace(/(<t\b[^>]*>)[^<]*(<\/t>)/g, '$1$2');
      if (/^xl\/threadedComments\//.test(name)) xml = xml.replace(/<text>[^<]*<\/text>/g, '<text></text>').replace(/\sdT="[^"]*"/g, '');
      if (/^ppt\/comments\//.test(name)) {
        xml = xml
          .replace(/<p:text>[^<]*<\/p:text>/g, '<p:text></p:text>')
          .replace(/(<a:t>)[^<]*(<\/a:t>)/g, '$1$2')
          .replace(/(<p:cm\b[^>]*)\sdt="[^"]*"/g, '$1')
          .replace(/(<\w+:cm\b[^>]*\bcreated=")[^"]*"/g, (_, head: string) => `${head}1980-01-01T00:00:00.000"`);
      }
      out[name] = strToU8(xml);
    } else out[name] = data;
  }
  return out;
}

function inspectOdf(files: Record<string, Uint8Array>, bytes: Uint8Array): Finding[] {
  const out: Finding[] = [];
  const meta = files['meta.xml'] ? strFromU8(files['meta.xml']) : '';
  push(out, 'author', xmlUnescape(xmlText(meta, 'meta:initial-creator')));
  // ODF's dc:creator is whoever saved it last.
  push(out, 'lastModifiedBy', xmlUnescape(xmlText(meta, 'dc:creator')));
  push(out, 'author', xmlUnescape(xmlText(meta, 'meta:printed-by')));
  push(out, 'title', xmlUnescape(xmlText(meta, 'dc:title')));
  push(out, 'description', xmlUnescape(xmlText(meta, 'dc:subject')));
  push(out, 'description', xmlUnescape(xmlText(meta, 'dc:description')));
  push(out, 'software', xmlUnescape(xmlText(meta, 'meta:generator')));
  const cycles = xmlText(meta, 'meta:editing-duration');
  if (cycles) push(out, 'editingTime', cycles);
  if (xmlText(meta, 'meta:creation-date')) push(out, 'created');
  if (xmlText(meta, 'dc:date') || zipHasEntryDates(bytes)) push(out, 'modified');
  if (xmlText(meta, 'meta:print-date')) push(out, 'dates');
  if (xmlText(meta, 'meta:editing-cycles')) push(out, 'revisionIds');
  if (/<meta:user-defined/.test(meta)) push(out, 'otherMetadata');
  if (Object.keys(files).some((n) => n.startsWith('Thumbnails/'))) push(out, 'thumbnail');
  for (const part of ['content.xml', 'styles.xml']) {
    const content = files[part] ? strFromU8(files[part]) : '';
    for (const m of content.matchAll(/<office:annotation\b[\s\S]*?<\/office:annotation>/g)) {
      const who = xmlText(m[0], 'dc:creator');
      if (who) push(out, 'commentAuthors', xmlUnescape(who));
      if (xmlText(m[0], 'dc:date')) push(out, 'commentDates');
    }
    for (const m of content.matchAll(/<office:change-info>[\s\S]*?<\/office:change-info>/g)) {
      const who = xmlText(m[0], 'dc:creator');
      if (who) push(out, 'changeAuthors', xmlUnescape(who));
      if (xmlText(m[0], 'dc:date')) push(out, 'changeDates');
    }
  }
  return out;
}

const EMPTY_ODF_META =
  '<?xml version="1.0" encoding="UTF-8"?>\n<office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" office:version="1.3"><office:meta/></office:document-meta>';

function cleanOdf(files: Record<string, Uint8Array>): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  for (const [name, data] of Object.entries(files)) {
    if (name.startsWith('Thumbnails/')) continue;
    if (name === 'meta.xml') out[name] = strToU8(EMPTY_ODF_META);
    else if (name === 'META-INF/manifest.xml') out[name] = strToU8(strFromU8(data).replace(/<manifest:file-entry [^>]*manifest:full-path="Thumbnails\/[^"]*"[^>]*\/>/g, ''));
    else if (name === 'content.xml' || name === 'styles.xml') {
      out[name] = strToU8(
        strFromU8(data)
          .replace(/(<office:annotation\b[\s\S]*?<dc:creator>)[^<]*(<\/dc:creator>)/g, '$1$2')
          .replace(/(<office:change-info>[\s\S]*?<dc:creator>)[^<]*(<\/dc:creator>)/g, '$1$2')
          .replace(/<dc:date>[^<]*<\/dc:date>/g, ''),
      );
    } else out[name] = data;
  }
  return out;
}

function rezip(files: Record<string, Uint8Array>, odf: boolean): Uint8Array {
  const z: Zippable = {};
  // Every entry dated 1980-01-01 00:00 (local time, as zip dates are): not when it was cleaned or saved.
  const mtime = new Date(1980, 0, 1, 0, 0, 0);
  // ODF: "mimetype" first and stored, as the format requires.
  if (odf && files.mimetype) z.mimetype = [files.mimetype, { level: 0, mtime }];
  for (const [name, data] of Object.entries(files)) if (!(odf && name === 'mimetype')) z[name] = [data, { level: 6, mtime }];
  return zipSync(z, { mtime });
}

/**
 * The cleaner's answer, from what was found before and what is found in the cleaned
 * bytes: `removed` is exactly what is no longer there, `remaining` what still is.
 * A cleaning that removed nothing it found is no cleaning.
 */
function compare(before: Finding[], after: Finding[], bytes: Uint8Array): Cleaned {
  const still = new Set(after.map((f) => f.kind));
  const removed = sortKinds(before.map((f) => f.kind).filter((k) => !still.has(k)));
  if (removed.length === 0 && before.length > 0) throw new CannotClean('nothing found could be removed');
  return { bytes, removed, remaining: sortKinds(still) };
}

// ---- entry points --------------------------------------------------------------------

/** What is there; throws ScanLimitExceeded for a file that inflates past `limits` (other unreadable files: format null). */
export async function inspectFile(bytes: Uint8Array, limits: ScanLimits = DEVICE_SCAN_LIMITS): Promise<Inspection> {
  const format = detectFormat(bytes);
  switch (format) {
    case 'jpeg':
    case 'png':
    case 'webp':
    case 'heic':
      return { format, findings: await inspectImage(bytes, format) };
    case 'pdf':
      try {
        return { format, findings: await inspectPdf(bytes, limits) };
      } catch (e) {
        if (e instanceof ScanLimitExceeded) throw e;
        return { format: null, findings: [] };
      }
    case 'ooxml':
    case 'odf': {
      let files: Record<string, Uint8Array>;
      try {
        files = unzip(bytes, limits);
      } catch (e) {
        if (e instanceof ScanLimitExceeded) throw e;
        return { format: null, findings: [] };
      }
      if (format === 'ooxml' && !files['[Content_Types].xml']) return { format: null, findings: [] };
      return { format, findings: format === 'odf' ? inspectOdf(files, bytes) : inspectOoxml(files, bytes) };
    }
    default:
      return { format: null, findings: [] };
  }
}

/**
 * Removes what `inspectFile` finds; throws CannotClean where that is not possible (HEIC,
 * encrypted PDF, broken files) or where nothing found could be removed. The kinds it
 * answers are read again from the cleaned bytes, so the reporter is told what really
 * left the file (`removed`) and what did not (`remaining`).
 */
export async function cleanFile(bytes: Uint8Array, limits: ScanLimits = DEVICE_SCAN_LIMITS): Promise<Cleaned> {
  const before = await inspectFile(bytes, limits);
  let cleaned: Uint8Array;
  switch (before.format) {
    case 'jpeg':
      cleaned = stripJpeg(bytes);
      break;
    case 'png':
      cleaned = stripPng(bytes);
      break;
    case 'webp':
      cleaned = stripWebp(bytes);
      break;
    case 'pdf':
      try {
        return await cleanPdf(bytes, limits);
      } catch (e) {
        if (e instanceof ScanLimitExceeded || e instanceof CannotClean) throw e;
        throw new CannotClean(`PDF: ${(e as Error).message}`);
      }
    case 'ooxml':
      cleaned = rezip(cleanOoxml(unzip(bytes, limits)), false);
      break;
    case 'odf':
      cleaned = rezip(cleanOdf(unzip(bytes, limits)), true);
      break;
    default:
      throw new CannotClean(`cannot rewrite ${before.format ?? 'this type'}`);
  }
  const after = await inspectFile(cleaned, limits);
  return compare(before.findings, after.findings, cleaned);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
