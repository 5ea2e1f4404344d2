/**
 * The export's files (src/handler/export/files.ts): each file's SHA-256 over the bytes the
 * browser holds, computed in the same pass that writes the zip; names redacted and unique.
 */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { unzipSync } from 'fflate';
import { entryNames, hashAndZip } from '../../src/handler/export/files.ts';
import { redactor, REDACTION_BAR } from '../../src/handler/export/redact.ts';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const streamOf = (b: Uint8Array, chunk: number) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < b.length; i += chunk) c.enqueue(b.slice(i, i + chunk));
      c.close();
    },
  });

describe('export files', () => {
  it('hashes each file and zips it byte for byte, from a buffer or a stream of chunks', async () => {
    const a = new Uint8Array(randomBytes(300_001));
    const b = new TextEncoder().encode('Łódź, Ærø, Straße');
    const out = await hashAndZip(
      [
        { name: 'scan of Jan Kowalski.pdf', size: a.length, open: async () => streamOf(a, 65_536) },
        { name: 'notes.txt', size: b.length, open: async () => b },
        { name: 'NOTES.txt', size: b.length, open: async () => b },
      ],
      redactor(['Jan Kowalski']),
      true,
    );
    expect(out.files.map((f) => [f.entry, f.size, f.sha256])).toEqual([
      [`scan of ${REDACTION_BAR}.pdf`, a.length, sha(a)],
      ['notes.txt', b.length, sha(b)],
      ['NOTES (2).txt', b.length, sha(b)],
    ]);
    const entries = unzipSync(new Uint8Array(await out.zip!.arrayBuffer()));
    expect(Object.keys(entries)).toEqual([`scan of ${REDACTION_BAR}.pdf`, 'notes.txt', 'NOTES (2).txt']);
    expect(sha(entries[`scan of ${REDACTION_BAR}.pdf`]!)).toBe(sha(a));
    expect(sha(entries['notes.txt']!)).toBe(sha(b));
  });

  it('hashes without a zip when the files are not exported', async () => {
    const b = new Uint8Array([1, 2, 3]);
    const out = await hashAndZip([{ name: 'x', size: 3, open: async () => b }], (s) => s, false);
    expect(out.zip).toBeNull();
    expect(out.files[0]!.sha256).toBe(sha(b));
  });

  it('names a file that does not open and goes on: nothing in the zip when it fails before its first chunk, an incomplete entry after', async () => {
    const good = new TextEncoder().encode('kept whole');
    const first = new Uint8Array(randomBytes(70_000));
    class Broken extends Error {}
    const breaking = new ReadableStream<Uint8Array>({
      pull(c) {
        if (!(this as { sent?: boolean }).sent) {
          (this as { sent?: boolean }).sent = true;
          c.enqueue(first);
        } else c.error(new Broken('chunk 2 does not open'));
      },
    });
    const out = await hashAndZip(
      [
        { name: 'refused.txt', size: 10, open: async () => Promise.reject(new Error('404')) },
        { name: 'broken.bin', size: 140_000, open: async () => breaking, failureOf: (e) => (e instanceof Broken ? 'unopened' : 'failed') },
        { name: 'good.txt', size: good.length, open: async () => good },
      ],
      (s) => s,
      true,
    );
    expect(out.files.map((f) => [f.name, f.entry, f.sha256, f.failure])).toEqual([
      ['refused.txt', null, null, 'failed'],
      ['broken.bin', 'broken.bin', null, 'unopened'],
      ['good.txt', 'good.txt', sha(good), undefined],
    ]);
    const entries = unzipSync(new Uint8Array(await out.zip!.arrayBuffer()));
    expect(Object.keys(entries)).toEqual(['broken.bin', 'good.txt']);
    expect(sha(entries['good.txt']!)).toBe(sha(good));
    expect(entries['broken.bin']!.length).toBe(first.length);
  });

  it('keeps entry names flat: no folders, no leading dots', () => {
    expect(entryNames(['../../etc/passwd', '.hidden', 'a\\b.txt', ''], (s) => s)).toEqual(['__.._etc_passwd', '_hidden', 'a_b.txt', 'file']);
  });
});
