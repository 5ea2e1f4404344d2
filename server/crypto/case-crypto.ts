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

/**
 * AES-256-GCM of the plaintext given in pieces: the ciphertext's pieces, then the tag.
 * Nothing is joined here, so each byte is copied once, by the cipher (a 1 GiB upload
 * seals 16,384 file chunks; every copy is garbage until the next GC).
 */
function gcmSeal(key: Uint8Array, nonce: Buffer, aad: Buffer, pieces: readonly Uint8Array[]): Buffer[] {
  const c = createCipheriv('aes-256-gcm', key, nonce);
  c.setAAD(aad);
  const out: Buffer[] = [];
  for (const piece of pieces) {
    const ct = c.update(piece);
    if (ct.length) out.push(ct);
  }
  const rest = c.final(); // GCM gives no bytes here
  if (rest.length) out.push(rest);
  out.push(c.getAuthTag());
  return out;
}

function gcmOpen(key: Uint8Array, nonce: Uint8Array, aad: Buffer, ct: Uint8Array, tag: Uint8Array): Buffer {
  try {
    const d = createDecipheriv('aes-256-gcm', key, nonce);
    d.setAAD(aad);
    d.setAuthTag(tag);
    const body = d.update(ct);
    const rest = d.final(); // checks the tag; GCM gives no bytes here
    return rest.length ? Buffer.concat([body, rest]) : body;
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
  return Buffer.concat([Buffer.of(VERSION), nonce, ...gcmSeal(key, nonce, Buffer.from(context, 'utf8'), [data])]);
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

  /**
   * A case's data key wrapped so that it opens only while the case's shred key exists
   * (server/crypto/case-keys.ts): the wrapping key is HKDF over the master key with the
   * shred key as salt, so neither alone unwraps it.
   */
  wrapShreddable(caseId: string, key: Uint8Array, shred: Uint8Array): Buffer {
    return seal(this.shreddableKek(caseId, shred), `wb:case-key2:${caseId}`, key);
  }

  unwrapShreddable(caseId: string, wrapped: Uint8Array, shred: Uint8Array): Buffer {
    return open(this.shreddableKek(caseId, shred), `wb:case-key2:${caseId}`, wrapped);
  }

  private shreddableKek(caseId: string, shred: Uint8Array): Buffer {
    if (shred.length !== 32) throw new Error('a shred key is 32 bytes');
    return Buffer.from(hkdfSync('sha256', this.masterKey, shred, `wb:case-kek:${caseId}`, 32));
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
    return Buffer.concat(this.sealPieces(index, [plain], final));
  }

  /**
   * The same, for a chunk given in pieces (the buffers it arrived in), as the pieces of
   * what is stored, to be written in order: no buffer is made to join them.
   */
  sealPieces(index: number, pieces: readonly Uint8Array[], final: boolean): Buffer[] {
    const size = pieces.reduce((n, p) => n + p.length, 0);
    if (size > FILE_CHUNK || (!final && size !== FILE_CHUNK)) throw new Error('a chunk is 64 KiB; only the final one may be shorter');
    return sealChunkPieces(this.subkey, this.prefix, this.fileId, index, pieces, final);
  }

  /** Chunk `index` as stored, opened; DecryptionError when it is not exactly that chunk (torn, altered). */
  open(index: number, block: Uint8Array, final: boolean): Buffer {
    const b = asBuffer(block);
    if (b.length < TAG) throw new DecryptionError('chunk is truncated');
    return gcmOpen(this.subkey, chunkNonce(this.prefix, index, final), chunkAad(this.fileId, index, final), b.subarray(0, b.length - TAG), b.subarray(b.length - TAG));
  }
}

/** File chunk `index` sealed from the pieces it arrived in, as the pieces of ciphertext ‖ tag. */
function sealChunkPieces(subkey: Buffer, prefix: Uint8Array, fileId: string, index: number, pieces: readonly Uint8Array[], final: boolean): Buffer[] {
  return gcmSeal(subkey, chunkNonce(prefix, index, final), chunkAad(fileId, index, final), pieces);
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

/**
 * Plain bytes in, encrypted file out; counts the plain bytes in `plainBytes`. Each
 * chunk is sealed from the buffers as they came in, a chunk that straddles two of them
 * from both pieces, without gathering them into a new buffer first: memory under a
 * large upload is what is in flight plus the garbage the next GC takes, and that
 * garbage was mostly copies (bench/upload.ts, performance.md twenty-first round).
 */
export class FileEncryptor extends Transform {
  plainBytes = 0;
  private readonly subkey: Buffer;
  private readonly prefix: Buffer;
  /**
   * What is not sealed yet, as pieces of the buffers that came in: fewer than
   * FILE_CHUNK bytes, or a whole chunk kept back until more bytes arrive (the last
   * chunk is sealed as final, so one is sealed as not final only once something
   * follows it).
   */
  private held: Buffer[] = [];
  private heldBytes = 0;
  private index = 0;

  constructor(key: Uint8Array, private readonly fileId: string) {
    super({ highWaterMark: 4 * FILE_CHUNK });
    const salt = randomBytes(16);
    this.prefix = randomBytes(7);
    this.subkey = fileSubkey(key, salt, fileId);
    this.push(Buffer.concat([FILE_MAGIC, salt, this.prefix]));
  }

  /** Seals one chunk given in pieces; stored as ciphertext ‖ tag, pushed piece by piece. */
  private seal(pieces: readonly Buffer[], final: boolean) {
    for (const out of sealChunkPieces(this.subkey, this.prefix, this.fileId, this.index++, pieces, final)) this.push(out);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) {
    this.plainBytes += chunk.length;
    let off = 0;
    if (this.heldBytes > 0 && this.heldBytes < FILE_CHUNK) {
      off = Math.min(FILE_CHUNK - this.heldBytes, chunk.length);
      this.held.push(chunk.subarray(0, off));
      this.heldBytes += off;
    }
    if (off === chunk.length) return cb();
    // Bytes follow what is held, so a whole held chunk is not the last one.
    if (this.heldBytes === FILE_CHUNK) this.seal(this.held, false);
    // Keep at least one byte back for the final chunk.
    while (chunk.length - off > FILE_CHUNK) {
      this.seal([chunk.subarray(off, off + FILE_CHUNK)], false);
      off += FILE_CHUNK;
    }
    this.held = [chunk.subarray(off)];
    this.heldBytes = chunk.length - off;
    cb();
  }

  override _flush(cb: TransformCallback) {
    this.seal(this.held, true);
    this.held = [];
    this.heldBytes = 0;
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
      let data = chunk;
      if (!this.subkey) {
        this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
        if (this.buf.length < FILE_HEADER) return cb();
        if (!this.buf.subarray(0, 4).equals(FILE_MAGIC)) throw new DecryptionError('not an encrypted file');
        this.subkey = fileSubkey(this.key, this.buf.subarray(4, 20), this.fileId);
        this.prefix = Buffer.from(this.buf.subarray(20, FILE_HEADER));
        data = this.buf.subarray(FILE_HEADER);
        this.buf = Buffer.alloc(0);
      }
      // As the encryptor: whole blocks are opened where they lie in the buffer read
      // (1 MiB from the file store), and only a block that straddles two reads is
      // pieced together, instead of a copy of every read joined to what was left.
      const BLOCK = FileDecryptor.BLOCK;
      let off = 0;
      if (this.buf.length > 0 && this.buf.length < BLOCK) {
        off = Math.min(BLOCK - this.buf.length, data.length);
        this.buf = Buffer.concat([this.buf, data.subarray(0, off)]);
      }
      if (off === data.length) return cb();
      // Bytes follow what is held, so a whole held block is not the last one.
      if (this.buf.length === BLOCK) this.open1(this.buf, false);
      // Keep at least one block back: the last one is opened as final.
      while (data.length - off > BLOCK) {
        this.open1(data.subarray(off, off + BLOCK), false);
        off += BLOCK;
      }
      this.buf = data.subarray(off);
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
