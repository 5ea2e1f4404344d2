/**
 * Encryption at rest (DESIGN.md §4). Every case has its own random 256-bit data
 * key, stored only wrapped (AES-256-GCM) by the master key. Fields are sealed with
 * AES-256-GCM under the data key, with a random nonce and additional data that
 * binds the ciphertext to its case and column, so a value copied into another
 * case or column does not open.
 *
 * Files are encrypted as a stream in 64 KiB chunks (the STREAM construction):
 * a per-file subkey from HKDF(data key, random salt, file id); chunk i uses the
 * nonce `prefix(7) ‖ i (u32 BE) ‖ final (1)` and additional data naming the file,
 * the chunk index and the final flag. Reordered, dropped or truncated chunks fail
 * authentication; a file cut exactly at a chunk boundary fails because its last
 * remaining chunk was not sealed as final.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

const VERSION = 1;
const NONCE = 12;
const TAG = 16;
export const FILE_CHUNK = 64 * 1024;
const FILE_MAGIC = Buffer.from('WBF1');
export const FILE_HEADER = FILE_MAGIC.length + 16 + 7;
/** One sealed chunk of a file on disk: 64 KiB of ciphertext and its tag (the last one may be shorter). */
export const FILE_BLOCK = FILE_CHUNK + TAG;

export class DecryptionError extends Error {}

function gcmSeal(key: Uint8Array, nonce: Buffer, aad: Buffer, plain: Uint8Array): [Buffer, Buffer] {
  const c = createCipheriv('aes-256-gcm', key, nonce);
  c.setAAD(aad);
  const ct = Buffer.concat([c.update(plain), c.final()]);
  return [ct, c.getAuthTag()];
}

function gcmOpen(key: Uint8Array, nonce: Uint8Array, aad: Buffer, ct: Uint8Array, tag: Uint8Array): Buffer {
  try {
    const d = createDecipheriv('aes-256-gcm', key, nonce);
    d.setAAD(aad);
    d.setAuthTag(tag);
    return Buffer.concat([d.update(ct), d.final()]);
  } catch {
    throw new DecryptionError('ciphertext does not authenticate');
  }
}

function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

/** `version ‖ nonce ‖ ciphertext ‖ tag` under `key`, bound to `context`. */
export function seal(key: Uint8Array, context: string, plain: Uint8Array | string): Buffer {
  const nonce = randomBytes(NONCE);
  const data = typeof plain === 'string' ? Buffer.from(plain, 'utf8') : plain;
  const [ct, tag] = gcmSeal(key, nonce, Buffer.from(context, 'utf8'), data);
  return Buffer.concat([Buffer.of(VERSION), nonce, ct, tag]);
}

export function open(key: Uint8Array, context: string, sealed: Uint8Array): Buffer {
  const b = asBuffer(sealed);
  if (b.length < 1 + NONCE + TAG || b[0] !== VERSION) throw new DecryptionError('not a sealed value');
  return gcmOpen(key, b.subarray(1, 1 + NONCE), Buffer.from(context, 'utf8'), b.subarray(1 + NONCE, b.length - TAG), b.subarray(b.length - TAG));
}

const MASTER_CHECK_CONTEXT = 'wb:master-key-check';
const MASTER_CHECK_TEXT = 'whistleblower portal master key';

export class CaseCrypto {
  constructor(private readonly masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error('master key must be 32 bytes');
  }

  /** A fresh data key for a new case and its wrapped form for the database. */
  newCaseKey(caseId: string): { key: Buffer; wrapped: Buffer } {
    const key = randomBytes(32);
    return { key, wrapped: this.wrapCaseKey(caseId, key) };
  }

  wrapCaseKey(caseId: string, key: Uint8Array): Buffer {
    return seal(this.masterKey, `wb:case-key:${caseId}`, key);
  }

  /** The check value kept in `meta`: proves, without any case, which master key the data is under. */
  checkValue(): string {
    return seal(this.masterKey, MASTER_CHECK_CONTEXT, MASTER_CHECK_TEXT).toString('base64');
  }

  opensCheck(value: string): boolean {
    try {
      return open(this.masterKey, MASTER_CHECK_CONTEXT, Buffer.from(value, 'base64')).toString('utf8') === MASTER_CHECK_TEXT;
    } catch {
      return false;
    }
  }

  /** A small secret that belongs to no case (a handler's TOTP secret), sealed directly with the master key. */
  sealWithMaster(context: string, value: Uint8Array | string): Buffer {
    return seal(this.masterKey, `wb:master:${context}`, value);
  }

  openWithMaster(context: string, sealed: Uint8Array): Buffer {
    return open(this.masterKey, `wb:master:${context}`, sealed);
  }

  /** A key for one purpose (e.g. the handlers' sign-in throttle), derived from the master key. */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.masterKey, Buffer.alloc(0), `wb:derive:${purpose}`, 32));
  }

  unwrapCaseKey(caseId: string, wrapped: Uint8Array): Buffer {
    return open(this.masterKey, `wb:case-key:${caseId}`, wrapped);
  }

  /** Seals one column of one row; `column` names table and column (`report_case.details_enc`), `rowId` the row when it is not the case. */
  seal(key: Uint8Array, caseId: string, column: string, value: string | Uint8Array, rowId = ''): Buffer {
    return seal(key, `wb:${caseId}:${column}:${rowId}`, value);
  }

  open(key: Uint8Array, caseId: string, column: string, sealed: Uint8Array, rowId = ''): Buffer {
    return open(key, `wb:${caseId}:${column}:${rowId}`, sealed);
  }

  sealJson(key: Uint8Array, caseId: string, column: string, value: unknown, rowId = ''): Buffer {
    return this.seal(key, caseId, column, JSON.stringify(value), rowId);
  }

  openJson<T>(key: Uint8Array, caseId: string, column: string, sealed: Uint8Array, rowId = ''): T {
    return JSON.parse(this.open(key, caseId, column, sealed, rowId).toString('utf8')) as T;
  }

  encryptFile(key: Uint8Array, fileId: string): FileEncryptor {
    return new FileEncryptor(key, fileId);
  }

  decryptFile(key: Uint8Array, fileId: string): FileDecryptor {
    return new FileDecryptor(key, fileId);
  }

  /** Seals a file chunk by chunk, in any number of sittings (resumable uploads): the same format FileEncryptor writes. */
  chunkSealer(key: Uint8Array, fileId: string, header?: Uint8Array): FileChunkSealer {
    return new FileChunkSealer(key, fileId, header);
  }
}

/**
 * The file format of FileEncryptor, for a file whose length is known in advance but
 * whose bytes arrive over several requests: the header is kept (file_upload.file_header)
 * and chunk i is sealed on its own, final when it ends the file.
 */
export class FileChunkSealer {
  readonly header: Buffer;
  private readonly subkey: Buffer;
  private readonly prefix: Buffer;

  constructor(key: Uint8Array, private readonly fileId: string, header?: Uint8Array) {
    if (header) {
      const h = asBuffer(header);
      if (h.length !== FILE_HEADER || !h.subarray(0, 4).equals(FILE_MAGIC)) throw new DecryptionError('not a file header');
      this.header = Buffer.from(h);
    } else {
      this.header = Buffer.concat([FILE_MAGIC, randomBytes(16), randomBytes(7)]);
    }
    this.subkey = fileSubkey(key, this.header.subarray(4, 20), fileId);
    this.prefix = this.header.subarray(20, FILE_HEADER);
  }

  /** Chunk `index` (at most FILE_CHUNK bytes; only the final one may be shorter) as stored: ciphertext ‖ tag. */
  seal(index: number, plain: Uint8Array, final: boolean): Buffer {
    if (plain.length > FILE_CHUNK || (!final && plain.length !== FILE_CHUNK)) throw new Error('a chunk is 64 KiB; only the final one may be shorter');
    const [ct, tag] = gcmSeal(this.subkey, chunkNonce(this.prefix, index, final), chunkAad(this.fileId, index, final), plain);
    return Buffer.concat([ct, tag]);
  }

  /** Chunk `index` as stored, opened; DecryptionError when it is not exactly that chunk (torn, altered). */
  open(index: number, block: Uint8Array, final: boolean): Buffer {
    const b = asBuffer(block);
    if (b.length < TAG) throw new DecryptionError('chunk is truncated');
    return gcmOpen(this.subkey, chunkNonce(this.prefix, index, final), chunkAad(this.fileId, index, final), b.subarray(0, b.length - TAG), b.subarray(b.length - TAG));
  }
}

function fileSubkey(key: Uint8Array, salt: Uint8Array, fileId: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key, salt, `wb:file:${fileId}`, 32));
}

function chunkNonce(prefix: Uint8Array, index: number, final: boolean): Buffer {
  const n = Buffer.alloc(NONCE);
  n.set(prefix, 0);
  n.writeUInt32BE(index, 7);
  n[11] = final ? 1 : 0;
  return n;
}

function chunkAad(fileId: string, index: number, final: boolean): Buffer {
  return Buffer.from(`wb:file:${fileId}:${index}:${final ? 1 : 0}`);
}

/** Plain bytes in, encrypted file out; counts the plain bytes in `plainBytes`. */
export class FileEncryptor extends Transform {
  plainBytes = 0;
  private readonly subkey: Buffer;
  private readonly prefix: Buffer;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private index = 0;

  constructor(key: Uint8Array, private readonly fileId: string) {
    super({ highWaterMark: 4 * FILE_CHUNK });
    const salt = randomBytes(16);
    this.prefix = randomBytes(7);
    this.subkey = fileSubkey(key, salt, fileId);
    this.push(Buffer.concat([FILE_MAGIC, salt, this.prefix]));
  }

  private emit1(plain: Buffer, final: boolean) {
    const [ct, tag] = gcmSeal(this.subkey, chunkNonce(this.prefix, this.index, final), chunkAad(this.fileId, this.index, final), plain);
    this.index++;
    this.push(Buffer.concat([ct, tag]));
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) {
    this.plainBytes += chunk.length;
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    // Keep at least one byte back: the last chunk must be sealed as final.
    if (this.pendingBytes > FILE_CHUNK) {
      let all = Buffer.concat(this.pending, this.pendingBytes);
      let off = 0;
      while (all.length - off > FILE_CHUNK) {
        this.emit1(all.subarray(off, off + FILE_CHUNK), false);
        off += FILE_CHUNK;
      }
      all = all.subarray(off);
      this.pending = [all];
      this.pendingBytes = all.length;
    }
    cb();
  }

  override _flush(cb: TransformCallback) {
    this.emit1(Buffer.concat(this.pending, this.pendingBytes), true);
    this.pending = [];
    cb();
  }
}

/** Encrypted file in, plain bytes out; fails with DecryptionError on any tampering or truncation. */
export class FileDecryptor extends Transform {
  private subkey?: Buffer;
  private prefix?: Buffer;
  private buf: Buffer = Buffer.alloc(0);
  private index = 0;
  private static readonly BLOCK = FILE_CHUNK + TAG;

  constructor(private readonly key: Uint8Array, private readonly fileId: string) {
    super();
  }

  private open1(block: Buffer, final: boolean) {
    const plain = gcmOpen(
      this.subkey!,
      chunkNonce(this.prefix!, this.index, final),
      chunkAad(this.fileId, this.index, final),
      block.subarray(0, block.length - TAG),
      block.subarray(block.length - TAG),
    );
    this.index++;
    if (plain.length) this.push(plain);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) {
    try {
      this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
      if (!this.subkey) {
        if (this.buf.length < FILE_HEADER) return cb();
        if (!this.buf.subarray(0, 4).equals(FILE_MAGIC)) throw new DecryptionError('not an encrypted file');
        this.subkey = fileSubkey(this.key, this.buf.subarray(4, 20), this.fileId);
        this.prefix = Buffer.from(this.buf.subarray(20, FILE_HEADER));
        this.buf = this.buf.subarray(FILE_HEADER);
      }
      let off = 0;
      while (this.buf.length - off > FileDecryptor.BLOCK) {
        this.open1(this.buf.subarray(off, off + FileDecryptor.BLOCK), false);
        off += FileDecryptor.BLOCK;
      }
      this.buf = this.buf.subarray(off);
      cb();
    } catch (err) {
      cb(err as Error);
    }
  }

  override _flush(cb: TransformCallback) {
    try {
      if (!this.subkey || this.buf.length < TAG) throw new DecryptionError('encrypted file is truncated');
      this.open1(this.buf, true);
      cb();
    } catch (err) {
      cb(err as Error);
    }
  }
}
