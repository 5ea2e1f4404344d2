/**
 * A sealed case's files as the pages send and open them (docs/decisions/blind-server.md
 * "Sealed files"): the file, after metadata removal, padded and sealed chunk by chunk
 * (file.ts, the STREAM format under the per-file subkey of the case's data key) as a
 * ReadableStream of known size for a tus upload; its name and true size sealed as one
 * field bound to case and file; a downloaded body opened back to the plain bytes.
 *
 * Invariants:
 * - Memory is one chunk per stream either way: nothing here reads a file whole.
 * - The stored size tells only the padded size's bucket (`paddedSize`): the true size
 *   is inside the sealed name, and opening cuts the padding off.
 * - Opening fails with SealedFileError, naming the file, for anything but the file as
 *   sealed (altered, cut, extended, another file's bytes or key); the plain bytes
 *   released before the failing chunk were authentic, so a page that must not keep part
 *   of a file discards what it wrote when the stream errors.
 */
import { fromBase64, toBase64, type Bytes } from './bytes.ts';
import { EnvelopeError, type EnvelopeReason } from './errors.ts';
import { fieldContext, openFieldText, sealField } from './field.ts';
import { FILE_BLOCK, FILE_CHUNK, FILE_HEADER, FileChunkSealer, decryptFileStream, encryptFileStream, importFileKey, sealedFileSize } from './file.ts';

/** The column a file name's additional data names: `wb:<case id>:case_file.name_enc:<file id>`. */
export const FILE_NAME_COLUMN = 'case_file.name_enc';

/**
 * The size a file of `size` bytes is padded to before sealing: at least one chunk
 * (64 KiB), above it Padmé (Nikitin et al., "Reducing metadata leakage from encrypted
 * files and communication with PURBs", 2019): the size rounded up so that only
 * O(log log n) bits of it remain, at most 12 % more bytes. A power of two stays as it
 * is, so no file within a power-of-two limit (2 GiB) is padded past it.
 */
export function paddedSize(size: number): number {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError('a file size is a whole number of bytes');
  if (size <= FILE_CHUNK) return FILE_CHUNK;
  const e = Math.floor(Math.log2(size));
  const s = Math.floor(Math.log2(e)) + 1;
  const step = 2 ** (e - s);
  return Math.ceil(size / step) * step;
}

/** A file that could not be opened, named so the page can say which one. */
export class SealedFileError extends Error {
  override readonly name = 'SealedFileError';
  constructor(
    /** The file's name when it was opened, else its id. */
    readonly file: string,
    readonly reason: EnvelopeReason,
  ) {
    super(`the file "${file}" could not be opened (${reason})`);
  }
}

export interface SealedFileName {
  name: string;
  /** The plain size before padding; null for a file sealed without padding (the server's sealing on arrival). */
  size: number | null;
  /** The type the sending browser gave the file (its File.type), when it gave one: sealed with the name, never in clear. */
  type?: string;
}

/** The name, true size and (when given) type, sealed under the data key, bound to this case and file (base64). */
export async function sealFileName(dataKey: CryptoKey | Uint8Array, caseId: string, fileId: string, file: { name: string; size: number; type?: string }): Promise<string> {
  const body = { name: file.name, size: file.size, ...(file.type ? { type: file.type.slice(0, 200) } : {}) };
  return toBase64(await sealField(dataKey, fieldContext(caseId, FILE_NAME_COLUMN, fileId), JSON.stringify(body)));
}

/**
 * Opens a sealed name (base64); EnvelopeError when it does not open. A name the server
 * sealed on arrival is the bare name (its file is not padded): size null.
 */
export async function openFileName(dataKey: CryptoKey | Uint8Array, caseId: string, fileId: string, envelope: string): Promise<SealedFileName> {
  const text = await openFieldText(dataKey, fieldContext(caseId, FILE_NAME_COLUMN, fileId), fromBase64(envelope));
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && typeof (parsed as SealedFileName).name === 'string' && Number.isSafeInteger((parsed as SealedFileName).size) && (parsed as { size: number }).size >= 0) {
      const type = (parsed as { type?: unknown }).type;
      return { name: (parsed as SealedFileName).name, size: (parsed as { size: number }).size, ...(typeof type === 'string' && type ? { type } : {}) };
    }
  } catch {
    // not JSON: a bare name
  }
  return { name: text, size: null };
}

export interface SealedUpload {
  fileId: string;
  /** The sealed name (base64): the `name` of the upload's metadata. */
  name: string;
  /** The exact number of bytes `stream` gives: the upload's Upload-Length. */
  size: number;
  stream: ReadableStream<Uint8Array>;
}

/** Zeros after the last byte, up to `total`, one chunk at a time. */
function padTo(total: number): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  return new TransformStream({
    transform(piece, controller) {
      seen += piece.length;
      if (seen > total) throw new RangeError('the file grew while it was read');
      controller.enqueue(piece);
    },
    flush(controller) {
      while (seen < total) {
        const n = Math.min(FILE_CHUNK, total - seen);
        controller.enqueue(new Uint8Array(n));
        seen += n;
      }
    },
  });
}

/**
 * A file (after metadata removal) sealed for upload under the case's data key: padded to
 * `paddedSize`, sealed chunk by chunk; `size` is what the stream will give.
 * `fileId`: the id the server will store it under (the upload's `fileId`), fresh by default.
 */
export async function sealFileForUpload(dataKey: Uint8Array, caseId: string, file: Blob & { name?: string }, opts: { fileId?: string; name?: string } = {}): Promise<SealedUpload> {
  const fileId = opts.fileId ?? globalThis.crypto.randomUUID();
  const name = opts.name ?? file.name ?? '';
  const padded = paddedSize(file.size);
  const key = await importFileKey(dataKey);
  const stream = file.stream().pipeThrough(padTo(padded)).pipeThrough(encryptFileStream(key, fileId));
  return { fileId, name: await sealFileName(dataKey, caseId, fileId, { name, size: file.size }), size: sealedFileSize(padded), stream };
}

/**
 * A file sealed for a resumable upload as random access (the report form's tus
 * uploads): any byte range of the sealed file, made on demand from the plain file
 * (after metadata removal) padded to `paddedSize`, under a header kept for the
 * file's lifetime. So an upload that stopped (a lost connection, a failed send)
 * continues at the server's offset with exactly the bytes it would have sent: a
 * chunk sealed again under the same header and index has the same nonce and the same
 * plaintext, hence the same ciphertext, and never a second ciphertext under one nonce.
 * The plaintext must not change meanwhile: a cleaned copy is in memory, and a browser
 * refuses to read a picked file that changed on disk (NotReadableError), which fails
 * the upload rather than sealing other bytes.
 *
 * Memory: one range at a time (the upload's request size), read in one go and sealed
 * chunk by chunk.
 */
export class SealedFileSource {
  private constructor(
    readonly fileId: string,
    /** The sealed name, true size and type (base64): the `name` of the upload's metadata. */
    readonly name: string,
    /** The sealed size: the upload's Upload-Length. */
    readonly size: number,
    private readonly padded: number,
    private readonly file: Blob,
    private readonly sealer: FileChunkSealer,
  ) {}

  static async create(dataKey: Uint8Array, caseId: string, file: Blob & { name?: string; type?: string }, opts: { fileId?: string; name?: string; type?: string } = {}): Promise<SealedFileSource> {
    const fileId = opts.fileId ?? globalThis.crypto.randomUUID();
    const padded = paddedSize(file.size);
    const sealer = await FileChunkSealer.create(await importFileKey(dataKey), fileId);
    const name = await sealFileName(dataKey, caseId, fileId, { name: opts.name ?? file.name ?? '', size: file.size, type: opts.type ?? file.type ?? '' });
    return new SealedFileSource(fileId, name, sealedFileSize(padded), padded, file, sealer);
  }

  /** The file's header (its salt and nonce prefix): keep the source, not only this, to continue. */
  get header(): Bytes {
    return this.sealer.header;
  }

  private get chunks(): number {
    return Math.ceil(this.padded / FILE_CHUNK);
  }

  /**
   * Plain chunks `first` up to `last` of the padded file (the file's bytes, then zeros),
   * read from the file in one go: a Blob read per 64 KiB chunk costs the page a round
   * trip to the browser's blob store each, which made reading (not sealing) the sealed
   * upload's bottleneck (`npm run bench -- crypto --browser`).
   */
  private async plainChunks(first: number, last: number): Promise<Bytes> {
    const start = first * FILE_CHUNK;
    const out = new Uint8Array(Math.min((last + 1) * FILE_CHUNK, this.padded) - start);
    if (start < this.file.size) out.set(new Uint8Array(await this.file.slice(start, Math.min(start + out.length, this.file.size)).arrayBuffer()));
    return out;
  }

  /** Bytes `start` up to (not including) `end` of the sealed file. */
  async slice(start: number, end: number): Promise<Bytes> {
    const from = Math.max(0, Math.min(start, this.size));
    const to = Math.max(from, Math.min(end, this.size));
    const out = new Uint8Array(to - from);
    let at = from;
    if (at < FILE_HEADER) {
      const n = Math.min(FILE_HEADER, to) - at;
      out.set(this.header.subarray(at, at + n), 0);
      at += n;
    }
    if (at >= to) return out;
    const first = Math.floor((at - FILE_HEADER) / FILE_BLOCK);
    const last = Math.floor((to - 1 - FILE_HEADER) / FILE_BLOCK);
    const plain = await this.plainChunks(first, last);
    for (let i = first; at < to; i++) {
      const blockStart = FILE_HEADER + i * FILE_BLOCK;
      const offset = (i - first) * FILE_CHUNK;
      const block = await this.sealer.seal(i, plain.subarray(offset, Math.min(offset + FILE_CHUNK, plain.length)), i === this.chunks - 1);
      const piece = block.subarray(at - blockStart, Math.min(block.length, to - blockStart));
      out.set(piece, at - from);
      at += piece.length;
    }
    return out;
  }
}

/** Passes the first `size` bytes (the file before its padding) and drops the rest. */
function cutTo(size: number): TransformStream<Uint8Array, Uint8Array> {
  let left = size;
  return new TransformStream({
    transform(piece, controller) {
      if (left <= 0) return;
      const out = piece.length > left ? piece.subarray(0, left) : piece;
      left -= out.length;
      controller.enqueue(out);
    },
  });
}

/**
 * A downloaded body (the stored ciphertext) opened as the file's plain bytes, one chunk
 * at a time; the stream errors with SealedFileError naming `file.name` (or the id) when
 * any part fails to open. `file.size`: the true size from `openFileName` (null: none to cut).
 */
export function openSealedFile(dataKey: Uint8Array, file: { id: string; name?: string; size?: number | null }, body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const label = file.name || file.id;
  let opened: ReadableStream<Uint8Array> = body.pipeThrough(decryptFileStream(dataKey, file.id));
  if (typeof file.size === 'number') opened = opened.pipeThrough(cutTo(file.size));
  const reader = opened.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (err) {
        controller.error(err instanceof EnvelopeError ? new SealedFileError(label, err.reason) : err);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

export type { Bytes };
