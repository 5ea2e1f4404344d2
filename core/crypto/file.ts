/**
 * Files: the STREAM construction of docs/decisions/encryption-at-rest.md, byte for byte
 * server/crypto/case-crypto.ts FileEncryptor / FileDecryptor / FileChunkSealer.
 *
 *     header  = "WBF1" ‖ salt (16, random) ‖ nonce prefix (7, random)
 *     subkey  = HKDF-SHA-256(data key, salt, info "wb:file:<file id>"), 32 bytes
 *     chunk i = AES-256-GCM(subkey, nonce = prefix ‖ i (u32 BE) ‖ final (1 byte),
 *               additional data "wb:file:<file id>:<i>:<0|1>") → ciphertext ‖ tag
 *
 * The plaintext is cut into 64 KiB chunks; every chunk but the last is exactly 64 KiB,
 * the last is sealed final (an empty file is one empty final chunk).
 *
 * Invariants:
 * - Memory per stream is one chunk: the encryptor holds back at most one chunk (so it
 *   can seal the last as final), the decryptor one sealed block.
 * - Any reordering, alteration, truncation (also at a chunk boundary: the remaining
 *   last chunk was not sealed final) or extension past the final chunk fails with
 *   EnvelopeError, and nothing of the failing chunk is released. Its reason is
 *   'truncated' for a cut at a chunk boundary (or inside the header), 'extended' for
 *   bytes after a whole final chunk, else 'authentication' (a short last chunk cut or
 *   followed by bytes cannot be told from an altered one). (Chunks before it were
 *   authentic and have already gone downstream: a consumer that must not show part of a
 *   file keeps it until the stream closes without error.)
 * - The per-file subkey binds every chunk to this file id and this header.
 */
import { bufferSource, concat, equalBytes, randomBytes, utf8, type Bytes } from './bytes.ts';
import { EnvelopeError } from './errors.ts';
import { TAG_BYTES, gcmOpen, gcmSeal } from './aead.ts';
import { DATA_KEY_BYTES } from './field.ts';

export const FILE_CHUNK = 64 * 1024;
export const FILE_MAGIC: Bytes = utf8('WBF1');
const SALT_BYTES = 16;
const PREFIX_BYTES = 7;
export const FILE_HEADER = FILE_MAGIC.length + SALT_BYTES + PREFIX_BYTES;
/** One sealed chunk as stored: 64 KiB of ciphertext and its tag (the last may be shorter). */
export const FILE_BLOCK = FILE_CHUNK + TAG_BYTES;
const MAX_INDEX = 0xffff_ffff;

const subtle = () => globalThis.crypto.subtle;

/** The size of a sealed file of `plainSize` bytes: what a resumable upload announces. */
export function sealedFileSize(plainSize: number): number {
  const chunks = Math.max(1, Math.ceil(plainSize / FILE_CHUNK));
  return FILE_HEADER + plainSize + chunks * TAG_BYTES;
}

/**
 * The plain size a sealed file of `sealed` bytes holds, or null when no plain size
 * seals to exactly that many bytes: what a server without the key can still check.
 */
export function plainFileSize(sealed: number): number | null {
  if (!Number.isSafeInteger(sealed)) return null;
  const body = sealed - FILE_HEADER;
  if (body < TAG_BYTES) return null;
  const chunks = Math.max(1, Math.ceil(body / FILE_BLOCK));
  const plain = body - chunks * TAG_BYTES;
  return plain >= 0 && sealedFileSize(plain) === sealed ? plain : null;
}

/** The data key as non-extractable HKDF key material, for deriving many files' subkeys. */
export async function importFileKey(raw: Uint8Array): Promise<CryptoKey> {
  if (raw.length !== DATA_KEY_BYTES) throw new EnvelopeError('key', 'a data key is 32 bytes');
  return subtle().importKey('raw', bufferSource(raw), 'HKDF', false, ['deriveKey', 'deriveBits']);
}

async function hkdfBase(dataKey: CryptoKey | Uint8Array): Promise<CryptoKey> {
  if (dataKey instanceof Uint8Array) return importFileKey(dataKey);
  if (dataKey.algorithm.name !== 'HKDF') throw new EnvelopeError('key', `files need the data key as HKDF key material (importFileKey), not ${dataKey.algorithm.name}`);
  return dataKey;
}

async function fileSubkey(dataKey: CryptoKey | Uint8Array, salt: Uint8Array, fileId: string): Promise<CryptoKey> {
  return subtle().deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: bufferSource(salt), info: utf8(`wb:file:${fileId}`) },
    await hkdfBase(dataKey),
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

function chunkNonce(prefix: Uint8Array, index: number, final: boolean): Bytes {
  if (!Number.isInteger(index) || index < 0 || index > MAX_INDEX) throw new RangeError('chunk index out of range');
  const n = new Uint8Array(12);
  n.set(prefix, 0);
  new DataView(n.buffer).setUint32(PREFIX_BYTES, index, false);
  n[11] = final ? 1 : 0;
  return n;
}

function chunkAad(fileId: string, index: number, final: boolean): Bytes {
  return utf8(`wb:file:${fileId}:${index}:${final ? 1 : 0}`);
}

function parseHeader(header: Uint8Array): { salt: Bytes; prefix: Bytes } {
  if (header.length !== FILE_HEADER || !equalBytes(header.subarray(0, FILE_MAGIC.length), FILE_MAGIC)) throw new EnvelopeError('format', 'not an encrypted file');
  return { salt: header.slice(4, 4 + SALT_BYTES), prefix: header.slice(4 + SALT_BYTES, FILE_HEADER) };
}

/** A file's subkey and nonce prefix: what sealing and opening its chunks needs. */
class FileKeys {
  constructor(
    private readonly subkey: CryptoKey,
    private readonly prefix: Uint8Array,
    private readonly fileId: string,
  ) {}

  static async of(dataKey: CryptoKey | Uint8Array, fileId: string, header: Uint8Array): Promise<FileKeys> {
    const { salt, prefix } = parseHeader(header);
    return new FileKeys(await fileSubkey(dataKey, salt, fileId), prefix, fileId);
  }

  async seal(index: number, plain: Uint8Array, final: boolean): Promise<Bytes> {
    return gcmSeal(this.subkey, chunkNonce(this.prefix, index, final), chunkAad(this.fileId, index, final), plain);
  }

  async open(index: number, block: Uint8Array, final: boolean): Promise<Bytes> {
    if (block.length < TAG_BYTES) throw new EnvelopeError('truncated', 'chunk is shorter than its tag');
    return gcmOpen(this.subkey, chunkNonce(this.prefix, index, final), chunkAad(this.fileId, index, final), block);
  }

  /** Whether `block` is chunk `index` sealed with the other final flag: tells a cut or an extended stream from an altered one. */
  async opensAs(index: number, block: Uint8Array, final: boolean): Promise<boolean> {
    try {
      await this.open(index, block, final);
      return true;
    } catch {
      return false;
    }
  }
}

function newHeader(): Bytes {
  return concat(FILE_MAGIC, randomBytes(SALT_BYTES), randomBytes(PREFIX_BYTES));
}

/**
 * The format for a file whose bytes arrive over several sittings (resumable uploads):
 * keep `header`, seal chunk i on its own, final when it ends the file. Pass the header
 * back to continue a file later.
 */
export class FileChunkSealer {
  private constructor(
    readonly header: Bytes,
    private readonly keys: FileKeys,
  ) {}

  static async create(dataKey: CryptoKey | Uint8Array, fileId: string, header?: Uint8Array): Promise<FileChunkSealer> {
    const h = header ? new Uint8Array(header) : newHeader();
    return new FileChunkSealer(h, await FileKeys.of(dataKey, fileId, h));
  }

  /** Chunk `index` (64 KiB; only the final one may be shorter) as stored: ciphertext ‖ tag. */
  async seal(index: number, plain: Uint8Array, final: boolean): Promise<Bytes> {
    if (plain.length > FILE_CHUNK || (!final && plain.length !== FILE_CHUNK)) throw new RangeError('a chunk is 64 KiB; only the final one may be shorter');
    return this.keys.seal(index, plain, final);
  }

  /** Chunk `index` as stored, opened; EnvelopeError when it is not exactly that chunk. */
  open(index: number, block: Uint8Array, final: boolean): Promise<Bytes> {
    return this.keys.open(index, block, final);
  }
}

/** Plain bytes in, the sealed file out (header first). */
export function encryptFileStream(dataKey: CryptoKey | Uint8Array, fileId: string): TransformStream<Uint8Array, Uint8Array> {
  let keys: FileKeys;
  let index = 0;
  // What is not sealed yet: fewer than FILE_CHUNK bytes, or a whole chunk kept back
  // until a byte follows it (only then is it known not to be the last).
  let held = new Uint8Array(FILE_CHUNK);
  let fill = 0;
  return new TransformStream<Uint8Array, Uint8Array>({
    async start(controller) {
      const header = newHeader();
      keys = await FileKeys.of(dataKey, fileId, header);
      controller.enqueue(header);
    },
    async transform(piece, controller) {
      let off = 0;
      while (off < piece.length) {
        if (fill === FILE_CHUNK) {
          controller.enqueue(await keys.seal(index++, held, false));
          // A new buffer: WebCrypto copied the old one, but a consumer may still read it.
          held = new Uint8Array(FILE_CHUNK);
          fill = 0;
        }
        // Whole chunks in the middle of a large piece are sealed where they lie (WebCrypto
        // copies its input), still keeping the piece's last chunk back.
        if (fill === 0 && piece.length - off > FILE_CHUNK) {
          controller.enqueue(await keys.seal(index++, piece.subarray(off, off + FILE_CHUNK), false));
          off += FILE_CHUNK;
          continue;
        }
        const n = Math.min(FILE_CHUNK - fill, piece.length - off);
        held.set(piece.subarray(off, off + n), fill);
        fill += n;
        off += n;
      }
    },
    async flush(controller) {
      controller.enqueue(await keys.seal(index++, held.subarray(0, fill), true));
    },
  });
}

/** A sealed file in, its plain bytes out; EnvelopeError (errors the stream) on anything but the file as sealed. */
export function decryptFileStream(dataKey: CryptoKey | Uint8Array, fileId: string): TransformStream<Uint8Array, Uint8Array> {
  let keys: FileKeys | undefined;
  const header = new Uint8Array(FILE_HEADER);
  let headerFill = 0;
  let index = 0;
  let block = new Uint8Array(FILE_BLOCK);
  let fill = 0;

  async function openNonFinal(controller: TransformStreamDefaultController<Uint8Array>, sealed: Uint8Array) {
    try {
      controller.enqueue(await keys!.open(index, sealed, false));
    } catch (err) {
      // Bytes follow this block; if it is the final chunk, the stream was extended.
      if (err instanceof EnvelopeError && (await keys!.opensAs(index, sealed, true))) throw new EnvelopeError('extended', 'bytes follow the final chunk');
      throw err;
    }
    index++;
  }

  return new TransformStream<Uint8Array, Uint8Array>({
    async transform(piece, controller) {
      let off = 0;
      if (!keys) {
        const n = Math.min(FILE_HEADER - headerFill, piece.length);
        header.set(piece.subarray(0, n), headerFill);
        headerFill += n;
        off = n;
        if (headerFill < FILE_HEADER) return;
        keys = await FileKeys.of(dataKey, fileId, header);
      }
      while (off < piece.length) {
        // A whole block is opened as not final only once a byte follows it.
        if (fill === FILE_BLOCK) {
          await openNonFinal(controller, block);
          block = new Uint8Array(FILE_BLOCK);
          fill = 0;
        }
        // Whole blocks inside a large piece are opened where they lie, as the encryptor does.
        if (fill === 0 && piece.length - off > FILE_BLOCK) {
          await openNonFinal(controller, piece.subarray(off, off + FILE_BLOCK));
          off += FILE_BLOCK;
          continue;
        }
        const n = Math.min(FILE_BLOCK - fill, piece.length - off);
        block.set(piece.subarray(off, off + n), fill);
        fill += n;
        off += n;
      }
    },
    async flush(controller) {
      if (!keys) throw new EnvelopeError(headerFill === 0 ? 'format' : 'truncated', 'the file ends inside its header');
      if (fill < TAG_BYTES) throw new EnvelopeError('truncated', 'the file ends before its final chunk');
      const last = block.subarray(0, fill);
      try {
        controller.enqueue(await keys.open(index, last, true));
      } catch (err) {
        // A whole chunk sealed as not final: the file was cut at a chunk boundary.
        if (err instanceof EnvelopeError && fill === FILE_BLOCK && (await keys.opensAs(index, last, false))) throw new EnvelopeError('truncated', 'the file was cut at a chunk boundary');
        throw err;
      }
    },
  });
}
