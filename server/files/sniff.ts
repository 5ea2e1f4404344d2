/**
 * Content sniffing: a file's first bytes must match what its extension promises
 * (ALLOWED_FILE_TYPES in machines/schema.ts). The name alone is never trusted:
 * a `.pdf` whose bytes are a PNG is refused. Text files (`txt`, `csv`) must be
 * valid UTF-8 without NUL bytes all the way through, which is checked as the
 * bytes stream past.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { ALLOWED_FILE_TYPES, FILE_HEAD_BYTES, fileExtension, headMatches, isTextExtension, type AllowedExtension } from '../../machines/schema.ts';

// The signatures are the shared rule of machines/schema.ts: the browser checks the same before sending.
export { headMatches };

const HEAD = FILE_HEAD_BYTES;

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
    this.isText = isTextExtension(this.ext);
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
