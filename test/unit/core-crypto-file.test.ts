// core/crypto file streams: the STREAM format in WHATWG streams, byte-compatible with
// the server's FileEncryptor / FileDecryptor / FileChunkSealer, and every refusal.
import { randomBytes as nodeRandomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { refusal } from './core-crypto.kit.ts';
import {
  EnvelopeError,
  FILE_BLOCK,
  FILE_CHUNK,
  FILE_HEADER,
  FileChunkSealer,
  concat,
  decryptFileStream,
  encryptFileStream,
  importFieldKey,
  importFileKey,
  makeDataKey,
  sealedFileSize,
} from '../../core/crypto/index.ts';
import { FileChunkSealer as ServerChunkSealer, FileDecryptor, FileEncryptor } from '../../server/crypto/case-crypto.ts';

/** `bytes` cut at `cuts` (offsets, any order, duplicates and out-of-range ignored). */
function split(bytes: Uint8Array, cuts: number[] = []): Uint8Array[] {
  const at = [...new Set(cuts.filter((c) => c > 0 && c < bytes.length))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const c of [...at, bytes.length]) {
    out.push(bytes.subarray(prev, c));
    prev = c;
  }
  return out;
}

async function through(stream: TransformStream<Uint8Array, Uint8Array>, pieces: Uint8Array[]): Promise<Uint8Array> {
  const out: Uint8Array[] = [];
  const source = new ReadableStream<Uint8Array>({
    start(c) {
      for (const p of pieces) c.enqueue(p);
      c.close();
    },
  });
  const reader = source.pipeThrough(stream).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    out.push(value);
  }
  return concat(...out);
}

/** Byte equality without vitest's element-by-element deep equality (slow on 200 kB arrays). */
function expectSame(actual: Uint8Array, expected: Uint8Array) {
  expect(actual.length).toBe(expected.length);
  expect(Buffer.from(actual.buffer, actual.byteOffset, actual.length).equals(Buffer.from(expected.buffer, expected.byteOffset, expected.length))).toBe(true);
}


async function nodeThrough(t: FileEncryptor | FileDecryptor, pieces: Uint8Array[]): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const c of Readable.from(pieces.map((p) => Buffer.from(p))).pipe(t)) chunks.push(c as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

const encrypt = (key: Uint8Array | CryptoKey, id: string, plain: Uint8Array, cuts?: number[]) => through(encryptFileStream(key, id), split(plain, cuts));
const decrypt = (key: Uint8Array | CryptoKey, id: string, sealed: Uint8Array, cuts?: number[]) => through(decryptFileStream(key, id), split(sealed, cuts));

// Sizes around the chunk boundaries, where the held-back last chunk matters, and in between.
const size = fc.oneof(fc.integer({ min: 0, max: 3 * FILE_CHUNK + 10 }), fc.constantFrom(0, 1, FILE_CHUNK - 1, FILE_CHUNK, FILE_CHUNK + 1, 2 * FILE_CHUNK, 3 * FILE_CHUNK));
const cuts = fc.array(fc.integer({ min: 0, max: 3 * FILE_CHUNK + 200 }), { maxLength: 8 });

describe('core file streams', () => {
  it('property: any size in any pieces round-trips, at the size sealedFileSize says', async () => {
    const key = makeDataKey();
    await fc.assert(
      fc.asyncProperty(size, cuts, cuts, async (n, inCuts, outCuts) => {
        const plain = new Uint8Array(nodeRandomBytes(n));
        const sealed = await encrypt(key, 'f1', plain, inCuts);
        expect(sealed.length).toBe(sealedFileSize(n));
        expectSame(await decrypt(key, 'f1', sealed, outCuts), plain);
      }),
      { numRuns: 40 },
    );
  });

  it('property: the server decrypts what core encrypted, and core what the server encrypted', async () => {
    const key = makeDataKey();
    await fc.assert(
      fc.asyncProperty(size, cuts, cuts, async (n, inCuts, outCuts) => {
        const plain = new Uint8Array(nodeRandomBytes(n));
        const fromCore = await encrypt(key, 'file-a', plain, inCuts);
        expectSame(await nodeThrough(new FileDecryptor(key, 'file-a'), split(fromCore, outCuts)), plain);
        const fromServer = await nodeThrough(new FileEncryptor(key, 'file-a'), split(plain, inCuts));
        expectSame(await decrypt(key, 'file-a', fromServer, outCuts), plain);
      }),
      { numRuns: 30 },
    );
  });

  it('takes the data key as an HKDF CryptoKey and refuses an AES one', async () => {
    const raw = makeDataKey();
    const plain = new Uint8Array(nodeRandomBytes(1000));
    const sealed = await encrypt(await importFileKey(raw), 'f', plain);
    expectSame(await decrypt(raw, 'f', sealed), plain);
    expect(await refusal(encrypt(await importFieldKey(raw), 'f', plain))).toBe('key');
  });

  it('releases each chunk as soon as the next byte arrives: it holds back at most one chunk', async () => {
    const stream = encryptFileStream(makeDataKey(), 'f');
    const writer = stream.writable.getWriter();
    const reader = stream.readable.getReader();
    void writer.write(new Uint8Array(3 * FILE_CHUNK + 1));
    expect((await reader.read()).value!.length).toBe(FILE_HEADER);
    for (let i = 0; i < 3; i++) expect((await reader.read()).value!.length).toBe(FILE_BLOCK);
    void writer.close();
    expect((await reader.read()).value!.length).toBe(1 + 16);
    expect((await reader.read()).done).toBe(true);
  });

  describe('refusals', () => {
    const key = makeDataKey();
    const plain = new Uint8Array(nodeRandomBytes(3 * FILE_CHUNK)); // three whole chunks, the last final
    const sealedP = encrypt(key, 'f', plain);
    const block = (s: Uint8Array, i: number) => s.subarray(FILE_HEADER + i * FILE_BLOCK, FILE_HEADER + (i + 1) * FILE_BLOCK);

    it('an altered byte in the header, a chunk or a tag', async () => {
      const sealed = await sealedP;
      for (const at of [0, 5, 24, FILE_HEADER, FILE_HEADER + FILE_CHUNK + 3, sealed.length - 1]) {
        const bad = sealed.slice();
        bad[at]! ^= 0x80;
        expect(await refusal(decrypt(key, 'f', bad))).toBe(at < 4 ? 'format' : 'authentication');
      }
    });

    it('a file cut at a chunk boundary, inside a chunk, or inside the header', async () => {
      const sealed = await sealedP;
      expect(await refusal(decrypt(key, 'f', sealed.subarray(0, FILE_HEADER + 2 * FILE_BLOCK)))).toBe('truncated');
      expect(await refusal(decrypt(key, 'f', sealed.subarray(0, FILE_HEADER + FILE_BLOCK)))).toBe('truncated');
      expect(await refusal(decrypt(key, 'f', sealed.subarray(0, FILE_HEADER)))).toBe('truncated');
      expect(await refusal(decrypt(key, 'f', sealed.subarray(0, FILE_HEADER + 10)))).toBe('truncated');
      expect(await refusal(decrypt(key, 'f', sealed.subarray(0, 10)))).toBe('truncated');
      expect(await refusal(decrypt(key, 'f', new Uint8Array(0)))).toBe('format');
      expect(await refusal(decrypt(key, 'f', sealed.subarray(0, sealed.length - 100)))).toBe('authentication');
    });

    it('reordered or repeated chunks', async () => {
      const sealed = await sealedP;
      const header = sealed.subarray(0, FILE_HEADER);
      expect(await refusal(decrypt(key, 'f', concat(header, block(sealed, 1), block(sealed, 0), block(sealed, 2))))).toBe('authentication');
      expect(await refusal(decrypt(key, 'f', concat(header, block(sealed, 0), block(sealed, 0), block(sealed, 2))))).toBe('authentication');
    });

    it('a stream extended past its final chunk', async () => {
      const sealed = await sealedP;
      expect(await refusal(decrypt(key, 'f', concat(sealed, Uint8Array.of(0))))).toBe('extended');
      expect(await refusal(decrypt(key, 'f', concat(sealed, block(sealed, 1))))).toBe('extended');
      // A short final chunk with bytes after it cannot be told from an altered one.
      const short = await encrypt(key, 'f', plain.subarray(0, FILE_CHUNK + 5));
      expect(await refusal(decrypt(key, 'f', concat(short, Uint8Array.of(1, 2, 3))))).toBe('authentication');
    });

    it('the wrong key or the wrong file id', async () => {
      const sealed = await sealedP;
      expect(await refusal(decrypt(makeDataKey(), 'f', sealed))).toBe('authentication');
      expect(await refusal(decrypt(key, 'g', sealed))).toBe('authentication');
    });
  });
});

describe('core file chunk sealer (resumable uploads)', () => {
  it('seals the same bytes as the server’s FileChunkSealer for the same header', async () => {
    const key = makeDataKey();
    const core = await FileChunkSealer.create(key, 'up-1');
    const server = new ServerChunkSealer(key, 'up-1', core.header);
    const full = new Uint8Array(nodeRandomBytes(FILE_CHUNK));
    const last = new Uint8Array(nodeRandomBytes(777));
    expectSame(await core.seal(0, full, false), new Uint8Array(server.seal(0, full, false)));
    expectSame(await core.seal(1, last, true), new Uint8Array(server.seal(1, last, true)));
    expectSame(await core.open(1, server.seal(1, last, true), true), last);
  });

  it('chunks sealed in any order, in separate sittings, make a file the stream decryptor and the server open', async () => {
    const key = makeDataKey();
    const plain = new Uint8Array(nodeRandomBytes(2 * FILE_CHUNK + 123));
    const first = await FileChunkSealer.create(key, 'up-2');
    const c2 = await first.seal(2, plain.subarray(2 * FILE_CHUNK), true);
    const c0 = await first.seal(0, plain.subarray(0, FILE_CHUNK), false);
    // A later sitting: the header kept by the server is all the sealer needs.
    const later = await FileChunkSealer.create(key, 'up-2', first.header);
    const c1 = await later.seal(1, plain.subarray(FILE_CHUNK, 2 * FILE_CHUNK), false);
    const file = concat(first.header, c0, c1, c2);
    expect(file.length).toBe(sealedFileSize(plain.length));
    expectSame(await decrypt(key, 'up-2', file), plain);
    expectSame(await nodeThrough(new FileDecryptor(key, 'up-2'), [file]), plain);
  });

  it('refuses a short chunk that is not final, a chunk opened at another index or flag, and a bad header', async () => {
    const key = makeDataKey();
    const sealer = await FileChunkSealer.create(key, 'up-3');
    await expect(sealer.seal(0, new Uint8Array(10), false)).rejects.toThrow(RangeError);
    await expect(sealer.seal(0, new Uint8Array(FILE_CHUNK + 1), true)).rejects.toThrow(RangeError);
    const c = await sealer.seal(0, new Uint8Array(FILE_CHUNK), false);
    expect(await refusal(sealer.open(1, c, false))).toBe('authentication');
    expect(await refusal(sealer.open(0, c, true))).toBe('authentication');
    expect(await refusal(sealer.open(0, c.subarray(0, 10), false))).toBe('truncated');
    expect(await refusal(FileChunkSealer.create(key, 'up-3', new Uint8Array(FILE_HEADER)))).toBe('format');
  });
});
