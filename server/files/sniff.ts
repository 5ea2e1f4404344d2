/**
 * Content sniffing: a file's first bytes must match what its extension promises
 * (ALLOWED_FILE_TYPES in machines/schema.ts). The name alone is never trusted:
 * a `.pdf` whose bytes are a PNG is refused. Text files (`txt`, `csv`) must be
 * valid UTF-8 without NUL bytes all the way through, which is checked as the
 * bytes stream past.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { ALLOWED_FILE_TYPES, fileExtension, type AllowedExtension } from '../../machines/schema.ts';

const HEAD = 64;

const startsWith = (b: Buffer, sig: number[], at = 0) => b.length >= at + sig.length && sig.every((x, i) => b[at + i] === x);
const ascii = (b: Buffer, s: string, at = 0) => b.length >= at + s.length && b.toString('latin1', at, at + s.length) === s;

const ASF_GUID = [0x30, 0x26, 0xb2, 0x75, 0x8e, 0x66, 0xcf, 0x11, 0xa6, 0xd9, 0x00, 0xaa, 0x00, 0x62, 0xce, 0x6c];
const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const QUICKTIME_ATOMS = ['moov', 'mdat', 'wide', 'free', 'skip', 'pnot'];

/** Does `head` (the first bytes) look like a file of extension `ext`? Text types are judged by the stream check instead. */
export function headMatches(ext: AllowedExtension, head: Buffer): boolean {
  switch (ext) {
    case 'pdf':
      return ascii(head, '%PDF-');
    case 'png':
      return startsWith(head, PNG);
    case 'jpg':
    case 'jpeg':
      return startsWith(head, [0xff, 0xd8, 0xff]);
    case 'docx':
    case 'xlsx':
      return startsWith(head, [0x50, 0x4b, 0x03, 0x04]);
    case 'xls':
      return startsWith(head, OLE);
    case 'mp4':
      return ascii(head, 'ftyp', 4);
    case 'mov':
      return ascii(head, 'ftyp', 4) || QUICKTIME_ATOMS.some((a) => ascii(head, a, 4));
    case 'avi':
      return ascii(head, 'RIFF') && ascii(head, 'AVI ', 8);
    case 'wmv':
      return startsWith(head, ASF_GUID);
    case 'txt':
    case 'csv':
      return true;
  }
}

/**
 * A pass-through that keeps the first bytes and, for text types, checks every
 * byte. After the stream ends, `verdict()` says whether the content fits the name.
 */
export class ContentSniffer extends Transform {
  readonly ext: string;
  private head: Buffer[] = [];
  private headBytes = 0;
  private readonly isText: boolean;
  private decoder?: TextDecoder;
  private textOk = true;

  constructor(fileName: string) {
    super({ highWaterMark: 256 * 1024 });
    this.ext = fileExtension(fileName);
    this.isText = this.ext === 'txt' || this.ext === 'csv';
    if (this.isText) this.decoder = new TextDecoder('utf-8', { fatal: true });
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) {
    if (this.headBytes < HEAD) {
      this.head.push(chunk.subarray(0, HEAD - this.headBytes));
      this.headBytes += Math.min(chunk.length, HEAD - this.headBytes);
    }
    if (this.isText && this.textOk) this.checkText(chunk, true);
    cb(null, chunk);
  }

  override _flush(cb: TransformCallback) {
    if (this.isText && this.textOk) this.checkText(new Uint8Array(0), false);
    cb();
  }

  private checkText(chunk: Uint8Array, more: boolean) {
    if (chunk.includes(0)) {
      this.textOk = false;
      return;
    }
    try {
      this.decoder!.decode(chunk, { stream: more });
    } catch {
      this.textOk = false;
    }
  }

  /** The content type to store, or null when the bytes do not fit the extension (or the extension is not allowed). */
  verdict(): string | null {
    if (!Object.hasOwn(ALLOWED_FILE_TYPES, this.ext)) return null;
    const ext = this.ext as AllowedExtension;
    const ok = this.isText ? this.textOk : headMatches(ext, Buffer.concat(this.head));
    return ok ? ALLOWED_FILE_TYPES[ext][0] : null;
  }
}
