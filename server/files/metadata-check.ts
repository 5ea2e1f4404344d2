/**
 * The server's second look at hidden data (docs/decisions/metadata-removal.md): the
 * reporter's device removes it before sending, but a client may not have (an old
 * browser, the API used directly, a reporter who kept the original). Images and
 * PDFs are re-checked as they stream past, with the same parsers as the SPA, and the
 * kinds still present are recorded for the handler (never the values).
 *
 * Only files up to MAX_CHECK_BYTES are held for the check, so memory stays bounded;
 * larger ones are recorded as not checked (null).
 */
import { Transform, type TransformCallback } from 'node:stream';
import { fileExtension } from '../../machines/schema.ts';

export const MAX_CHECK_BYTES = 32 * 1024 * 1024;
const CHECKED = new Set(['jpg', 'jpeg', 'png', 'pdf']);

export class MetadataCheck extends Transform {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private collecting: boolean;

  constructor(name: string) {
    super();
    this.collecting = CHECKED.has(fileExtension(name));
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
    if (this.collecting) {
      this.bytes += chunk.length;
      if (this.bytes > MAX_CHECK_BYTES) {
        this.collecting = false;
        this.chunks = [];
      } else this.chunks.push(chunk);
    }
    done(null, chunk);
  }

  /** The kinds of metadata still in the file; [] when none; null when it was not checked. */
  async remaining(): Promise<string[] | null> {
    if (!this.collecting) return null;
    const bytes = new Uint8Array(Buffer.concat(this.chunks));
    this.chunks = [];
    try {
      // The parsers (exifr, pdf-lib, fflate) are loaded with the first file to check,
      // not at start: idle memory (performance.md), and exifr touches `fetch` as it
      // loads, which makes Node load its whole HTTP client.
      const { inspectFile, sortKinds } = await import('../../src/metadata/scan.ts');
      const r = await inspectFile(bytes);
      return r.format ? sortKinds(r.findings.map((f) => f.kind)) : null;
    } catch {
      return null;
    }
  }
}
