/**
 * The file store: where encrypted file bytes live (DESIGN.md §1). An interface, so
 * a shared volume or S3-compatible storage can replace the folder later; every
 * piece of metadata stays in the database.
 *
 * Uploads are written under a temporary name first (`putTemp`), and only renamed
 * to their final name (`commit`) once the database transaction that records them
 * has committed; a failed upload `discard`s its temporaries, so nothing is left.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface FileStore {
  /** Streams `source` (through `through`, in order) into a temporary object named by `key`; resolves with the bytes written. */
  putTemp(key: string, source: Readable, ...through: Transform[]): Promise<number>;
  /** Makes a temporary object final. */
  commit(key: string): Promise<void>;
  /** Removes a temporary object; no error when it is not there. */
  discard(key: string): Promise<void>;
  /** Removes a final object; no error when it is not there. */
  delete(key: string): Promise<void>;
  /** A stream of a final object's bytes. */
  get(key: string): Readable;
  /** Keys of temporaries left by a crash: `known` ones are committed, the others older than `maxAgeMs` removed. */
  recover(known: (keys: string[]) => Promise<Set<string>>, maxAgeMs?: number): Promise<{ committed: number; removed: number }>;
}

const KEY = /^[0-9a-f-]{36}$/;

function checkKey(key: string): string {
  // Keys are uuids chosen by the server; anything else is a bug, never a path.
  if (!KEY.test(key)) throw new Error(`bad storage key ${JSON.stringify(key)}`);
  return key;
}

export class DiskFileStore implements FileStore {
  readonly tmpDir: string;

  constructor(readonly root: string) {
    this.tmpDir = path.join(root, 'tmp');
  }

  async init(): Promise<void> {
    await mkdir(this.tmpDir, { recursive: true, mode: 0o700 });
  }

  private tempPath(key: string) {
    return path.join(this.tmpDir, `${checkKey(key)}.part`);
  }

  private finalPath(key: string) {
    return path.join(this.root, checkKey(key).slice(0, 2), key);
  }

  async putTemp(key: string, source: Readable, ...through: Transform[]): Promise<number> {
    // Bigger buffers than the 16 KiB default: fewer, larger writes; still bounded per upload.
    const out = createWriteStream(this.tempPath(key), { flags: 'wx', mode: 0o600, highWaterMark: 1024 * 1024 });
    try {
      await pipeline([source, ...through, out]);
    } catch (err) {
      // The file is created by an open that may still be under way when the source
      // fails (a client hanging up at once): wait for the stream to close, or a
      // removal now could run before the file exists and leave it behind.
      if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
      await rm(this.tempPath(key), { force: true });
      throw err;
    }
    return out.bytesWritten;
  }

  async commit(key: string): Promise<void> {
    const dest = this.finalPath(key);
    await mkdir(path.dirname(dest), { recursive: true, mode: 0o700 });
    await rename(this.tempPath(key), dest);
  }

  async discard(key: string): Promise<void> {
    await rm(this.tempPath(key), { force: true });
  }

  async delete(key: string): Promise<void> {
    await rm(this.finalPath(key), { force: true });
  }

  get(key: string): Readable {
    return createReadStream(this.finalPath(key));
  }

  async recover(known: (keys: string[]) => Promise<Set<string>>, maxAgeMs = 60 * 60 * 1000) {
    const names = (await readdir(this.tmpDir).catch(() => [] as string[])).filter((n) => n.endsWith('.part'));
    const keys = names.map((n) => n.slice(0, -'.part'.length)).filter((k) => KEY.test(k));
    if (!keys.length) return { committed: 0, removed: 0 };
    const recorded = await known(keys);
    let committed = 0;
    let removed = 0;
    for (const key of keys) {
      if (recorded.has(key)) {
        await this.commit(key);
        committed++;
      } else {
        const s = await stat(this.tempPath(key)).catch(() => null);
        if (s && Date.now() - s.mtimeMs > maxAgeMs) {
          await this.discard(key);
          removed++;
        }
      }
    }
    return { committed, removed };
  }
}
