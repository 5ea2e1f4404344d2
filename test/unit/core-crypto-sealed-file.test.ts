// core/crypto/sealed-file.ts: what the pages call for a sealed case's files. A multi-chunk
// Blob sealed for upload (its stream gives exactly the announced size), opened back from
// the bytes alone; the padding's buckets; names bound to case and file; every body that
// is not the file as sealed fails with a SealedFileError naming the file.
import { describe, expect, it } from 'vitest';
import {
  FILE_CHUNK,
  FILE_HEADER,
  SealedFileError,
  SealedFileSource,
  concat,
  makeDataKey,
  openFileName,
  openSealedFile,
  paddedSize,
  plainFileSize,
  sealFileForUpload,
  sealFileName,
  sealedFileSize,
  type Bytes,
} from '../../core/crypto/index.ts';

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Bytes> {
  const parts: Uint8Array[] = [];
  for await (const p of stream as unknown as AsyncIterable<Uint8Array>) parts.push(p);
  return concat(...parts);
}

/** A body as a download gives it: pieces of an odd size. */
function body(bytes: Uint8Array, piece = 50_001): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, at + piece));
      at += piece;
    },
  });
}

function plainBytes(n: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + 7) & 0xff;
  return b;
}

const caseId = '6f1d2a9e-3a5b-4c1d-9e8f-0a1b2c3d4e5f';

describe('sealed files in the browser', () => {
  it('seals a multi-chunk Blob to exactly its announced size and opens it back with its name', async () => {
    const dataKey = makeDataKey();
    const plain = plainBytes(3 * FILE_CHUNK + 12_345);
    const upload = await sealFileForUpload(dataKey, caseId, new File([plain], 'Bericht März.pdf'));
    const sealed = await readAll(upload.stream);
    expect(sealed.length).toBe(upload.size);
    expect(upload.size).toBe(sealedFileSize(paddedSize(plain.length)));
    expect(plainFileSize(upload.size)).toBe(paddedSize(plain.length));
    expect(new TextDecoder().decode(sealed.subarray(0, 4))).toBe('WBF1');
    const name = await openFileName(dataKey, caseId, upload.fileId, upload.name);
    expect(name).toEqual({ name: 'Bericht März.pdf', size: plain.length });
    const opened = await readAll(openSealedFile(dataKey, { id: upload.fileId, ...name }, body(sealed)));
    expect(Buffer.from(opened).equals(Buffer.from(plain))).toBe(true);
  });

  it('opens a download as it arrives: the first plain chunk comes out before most of the body was read, none larger than a chunk', async () => {
    const dataKey = makeDataKey();
    const plain = plainBytes(40 * FILE_CHUNK);
    const upload = await sealFileForUpload(dataKey, caseId, new Blob([plain]));
    const sealed = await readAll(upload.stream);
    let pulled = 0;
    const counted = body(sealed, 10_000).pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ transform(p, c) { pulled += p.length; c.enqueue(p); } }));
    const reader = openSealedFile(dataKey, { id: upload.fileId, size: plain.length }, counted).getReader();
    const first = await reader.read();
    expect(first.value!.length).toBeLessThanOrEqual(FILE_CHUNK);
    expect(pulled).toBeLessThan(sealed.length / 4);
    let total = first.value!.length;
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      expect(r.value.length).toBeLessThanOrEqual(FILE_CHUNK);
      total += r.value.length;
    }
    expect(total).toBe(plain.length);
  });

  it('pads sizes to buckets: one chunk at least, a power of two stays, at most 12.5 % more', () => {
    expect(paddedSize(0)).toBe(FILE_CHUNK);
    expect(paddedSize(1)).toBe(FILE_CHUNK);
    expect(paddedSize(FILE_CHUNK + 1)).toBeGreaterThan(FILE_CHUNK);
    expect(paddedSize(2 ** 31)).toBe(2 ** 31);
    for (const n of [70_000, 1_000_003, 123_456_789, 2_000_000_000, 2 ** 31 - 1]) {
      const p = paddedSize(n);
      expect(p).toBeGreaterThanOrEqual(n);
      expect(p).toBeLessThanOrEqual(Math.max(FILE_CHUNK, n * 1.125));
      expect(paddedSize(p)).toBe(p);
    }
    expect(paddedSize(2 ** 31 - 1)).toBeLessThanOrEqual(2 ** 31);
    // Sizes close together share a bucket: the stored size tells less than the file's.
    expect(paddedSize(1_000_003)).toBe(paddedSize(1_010_000));
  });

  it('binds a name to its case and file', async () => {
    const dataKey = makeDataKey();
    const fileId = crypto.randomUUID();
    const sealed = await sealFileName(dataKey, caseId, fileId, { name: 'a.txt', size: 3 });
    await expect(openFileName(dataKey, caseId, crypto.randomUUID(), sealed)).rejects.toThrow();
    await expect(openFileName(makeDataKey(), caseId, fileId, sealed)).rejects.toThrow();
  });

  it('fails with a SealedFileError naming the file for a truncated, altered or another file\'s body', async () => {
    const dataKey = makeDataKey();
    const plain = plainBytes(2 * FILE_CHUNK + 99);
    const upload = await sealFileForUpload(dataKey, caseId, new Blob([plain]), { name: 'minutes.docx' });
    const sealed = await readAll(upload.stream);
    const meta = { id: upload.fileId, name: 'minutes.docx', size: plain.length };
    const fails = async (bytes: Uint8Array, file = meta) => {
      const err = await readAll(openSealedFile(dataKey, file, body(bytes))).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(SealedFileError);
      expect((err as SealedFileError).file).toBe(file.name ?? file.id);
      expect((err as Error).message).toContain(file.name ?? file.id);
      return err as SealedFileError;
    };
    expect((await fails(sealed.subarray(0, FILE_HEADER + (FILE_CHUNK + 16)))).reason).toBe('truncated');
    await fails(sealed.subarray(0, sealed.length - 1));
    const altered = Uint8Array.from(sealed);
    altered[FILE_HEADER + 5] = altered[FILE_HEADER + 5]! ^ 1;
    expect((await fails(altered)).reason).toBe('authentication');
    await fails(sealed, { id: crypto.randomUUID(), name: 'other.txt', size: plain.length });
  });
});

describe('SealedFileSource (random access for resumable uploads)', () => {
  it('gives any range of one sealed file, the same bytes each time; the whole opens to the file, its name with size and type', async () => {
    const dk = makeDataKey();
    const caseId = crypto.randomUUID();
    const plain = new Uint8Array(2 * FILE_CHUNK + 12_345).map((_, i) => (i * 31 + 7) & 0xff);
    const source = await SealedFileSource.create(dk, caseId, new Blob([plain], { type: 'application/pdf' }), { name: 'Bilag.pdf' });
    expect(source.size).toBe(sealedFileSize(paddedSize(plain.length)));
    expect(plainFileSize(source.size)).toBe(paddedSize(plain.length));
    const whole = await source.slice(0, source.size);
    expect(whole.length).toBe(source.size);
    // Cut where an upload may stop: inside the header, inside a chunk, at a block boundary.
    const cuts = [0, 5, FILE_HEADER, FILE_HEADER + 100, FILE_HEADER + FILE_CHUNK + 16, 70_001, source.size - 3, source.size];
    const pieces: Uint8Array[] = [];
    for (let i = 1; i < cuts.length; i++) pieces.push(await source.slice(cuts[i - 1]!, cuts[i]!));
    expect(Buffer.from(concat(...pieces)).equals(Buffer.from(whole))).toBe(true);
    // Sealed again at a resumed offset: the same ciphertext, so the stored head and the new tail are one file.
    expect(Buffer.from(await source.slice(70_001, source.size)).equals(Buffer.from(whole.subarray(70_001)))).toBe(true);
    const name = await openFileName(dk, caseId, source.fileId, source.name);
    expect(name).toEqual({ name: 'Bilag.pdf', size: plain.length, type: 'application/pdf' });
    const opened = await readAll(openSealedFile(dk, { id: source.fileId, ...name }, body(whole)));
    expect(Buffer.from(opened).equals(Buffer.from(plain))).toBe(true);
    // A small (padded) and an empty file seal to one chunk.
    for (const bytes of [new Uint8Array(10).fill(9), new Uint8Array(0)]) {
      const s = await SealedFileSource.create(dk, caseId, new Blob([bytes]), { name: 'x.txt' });
      const out = await readAll(openSealedFile(dk, { id: s.fileId, size: bytes.length }, body(await s.slice(0, s.size))));
      expect(Buffer.from(out).equals(Buffer.from(bytes))).toBe(true);
    }
  });
});
