import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiskFileStore } from '../../server/files/store.ts';
import { ContentSniffer, headMatches } from '../../server/files/sniff.ts';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';

let dir: string;
let store: DiskFileStore;
beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'wb-store-'));
  store = new DiskFileStore(dir);
  await store.init();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the disk file store', () => {
  it('writes a temporary, commits it to its final name, reads it back and deletes it', async () => {
    const key = randomUUID();
    expect(await store.putTemp(key, Readable.from([Buffer.from('hello '), Buffer.from('world')]))).toBe(11);
    expect(existsSync(path.join(dir, 'tmp', `${key}.part`))).toBe(true);
    await store.commit(key);
    expect(existsSync(path.join(dir, 'tmp', `${key}.part`))).toBe(false);
    expect(await text(store.get(key))).toBe('hello world');
    await store.delete(key);
    await store.delete(key); // twice is fine
    await expect(text(store.get(key))).rejects.toThrow(/ENOENT/);
  });

  it('discards a temporary; refuses keys that are not ids', async () => {
    const key = randomUUID();
    await store.putTemp(key, Readable.from(['x']));
    await store.discard(key);
    await store.discard(key);
    expect(existsSync(path.join(dir, 'tmp', `${key}.part`))).toBe(false);
    await expect(store.putTemp('../../etc/passwd', Readable.from(['x']))).rejects.toThrow(/bad storage key/);
  });

  it('recovers after a crash: recorded temporaries are committed, old unrecorded ones removed, fresh ones kept', async () => {
    const [recorded, stale, fresh] = [randomUUID(), randomUUID(), randomUUID()];
    for (const k of [recorded, stale, fresh]) await store.putTemp(k, Readable.from([k]));
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(path.join(dir, 'tmp', `${stale}.part`), old, old);
    const result = await store.recover(async (keys) => {
      expect(keys.sort()).toEqual([recorded, stale, fresh].sort());
      return new Set([recorded]);
    });
    expect(result).toEqual({ committed: 1, removed: 1 });
    expect(await text(store.get(recorded))).toBe(recorded);
    expect(existsSync(path.join(dir, 'tmp', `${stale}.part`))).toBe(false);
    expect(existsSync(path.join(dir, 'tmp', `${fresh}.part`))).toBe(true);
  });
});

describe('content sniffing', () => {
  const sniff = async (name: string, ...chunks: (string | Buffer)[]) => {
    const s = new ContentSniffer(name);
    await pipeline(Readable.from(chunks.map((c) => Buffer.from(c))), s, new Writable({ write: (_c, _e, cb) => cb() }));
    return s.verdict();
  };
  const asf = Buffer.from('3026b2758e66cf11a6d900aa0062ce6c', 'hex');

  it('accepts each allowed type by its magic bytes and names the stored type', async () => {
    expect(await sniff('a.pdf', '%PDF-1.7')).toBe('application/pdf');
    expect(await sniff('a.jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(await sniff('a.docx', 'PK\x03\x04rest')).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(await sniff('a.xlsx', 'PK\x03\x04rest')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(await sniff('a.xls', Buffer.from('d0cf11e0a1b11ae1', 'hex'))).toBe('application/vnd.ms-excel');
    expect(await sniff('a.mp4', Buffer.from([0, 0, 0, 0x18]), 'ftypmp42')).toBe('video/mp4');
    expect(await sniff('a.mov', Buffer.from([0, 0, 0, 0x14]), 'ftypqt  ')).toBe('video/quicktime');
    expect(await sniff('a.avi', 'RIFF\x00\x00\x00\x00AVI LIST')).toBe('video/x-msvideo');
    expect(await sniff('a.wmv', asf)).toBe('video/x-ms-wmv');
    expect(await sniff('a.csv', 'a;b\n', 'æ;ø\n')).toBe('text/csv');
    expect(await sniff('a.txt', '')).toBe('text/plain');
  });

  it('refuses bytes that do not fit the extension, and extensions not allowed', async () => {
    expect(await sniff('a.pdf', 'PK\x03\x04')).toBeNull();
    expect(await sniff('a.docx', '%PDF-1.7')).toBeNull();
    expect(await sniff('a.wmv', 'RIFF\x00\x00\x00\x00AVI ')).toBeNull();
    expect(await sniff('a.png', '')).toBeNull();
    expect(await sniff('a.exe', 'MZ')).toBeNull();
    // A UTF-8 character split across two chunks is fine; a NUL late in the file is not.
    expect(await sniff('a.txt', Buffer.from([0xc3]), Buffer.from([0xa6]))).toBe('text/plain');
    expect(await sniff('a.txt', 'x'.repeat(100_000), '\0')).toBeNull();
    expect(await sniff('a.txt', Buffer.from([0xc3]))).toBeNull();
    expect(headMatches('mov', Buffer.from('\x00\x00\x00\x08moov'))).toBe(true);
  });
});
