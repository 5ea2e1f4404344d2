/**
 * The file store: where encrypted file bytes live (DESIGN.md §1). An interface, so
 * a shared volume or S3-compatible storage can replace the folder later; every
 * piece of metadata stays in the database.
 *
 * Uploads are written under a temporary name first (`putTemp`), and only renamed
 * to their final name (`commit`) once the database transaction that records them
 * has committed; a failed upload `discard`s its temporaries, so nothing is left.
 *
 * Two stores (FILE_STORE, docs/decisions/file-store.md): this folder, or chunk rows in
 * the database (server/files/pg-store.ts).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Database } from '../db/database.ts';
import { PostgresFileStore } from './pg-store.ts';

export interface FileStore {
  /** `disk`: FILES_DIR; `postgres`: chunk rows in the database (server/files/pg-store.ts). */
  readonly kind: 'disk' | 'postgres';
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
  /**
   * Resumable uploads (server/uploads/resumable.ts): an object written in place as its
   * encrypted chunks arrive, over several requests and server restarts.
   * `createUpload` makes it with its first bytes (fails when it exists); `openUpload`
   * opens it for writing at `size`, cutting off whatever a crash left beyond it.
   */
  createUpload(key: string, first: Uint8Array): Promise<void>;
  openUpload(key: string, size: number): Promise<UploadWriter>;
  /** A stream of an upload's bytes so far, from byte `start`. */
  readUpload(key: string, start?: number): Readable;
  /** An upload's size in bytes (0 when it is not there). */
  uploadSize(key: string): Promise<number>;
  /** Makes a complete upload a final object (after the transaction that records it committed). */
  commitUpload(key: string): Promise<void>;
  /** Removes an upload; no error when it is not there. */
  discardUpload(key: string): Promise<void>;
  /** Keys of every upload object, with its last change (the sweep's orphans). */
  listUploads(): Promise<{ key: string; mtimeMs: number }[]>;
  /** Keys of temporaries left by a crash: `known` ones are committed, the others older than `maxAgeMs` removed. */
  recover(known: (keys: string[]) => Promise<Set<string>>, maxAgeMs?: number): Promise<{ committed: number; removed: number }>;
}

export interface UploadWriter {
  /** Appends the pieces, in order, at the current end. */
  write(pieces: readonly Uint8Array[]): Promise<void>;
  /** Flushes what was written to the disk (before the database records it). */
  sync(): Promise<void>;
  close(): Promise<void>;
}

const KEY = /^[0-9a-f-]{36}$/;

function checkKey(key: string): string {
  // Keys are uuids chosen by the server; anything else is a bug, never a path.
  if (!KEY.test(key)) throw new Error(`bad storage key ${JSON.stringify(key)}`);
  return key;
}

export class DiskFileStore implements FileStore {
  readonly kind = 'disk' as const;
  readonly tmpDir: string;
  readonly uploadDir: string;

  constructor(readonly root: string) {
    this.tmpDir = path.join(root, 'tmp');
    this.uploadDir = path.join(root, 'uploads');
  }

  async init(): Promise<void> {
    await mkdir(this.tmpDir, { recursive: true, mode: 0o700 });
    await mkdir(this.uploadDir, { recursive: true, mode: 0o700 });
  }

  private uploadPath(key: string) {
    return path.join(this.uploadDir, checkKey(key));
  }

  async createUpload(key: string, first: Uint8Array): Promise<void> {
    const fh = await open(this.uploadPath(key), 'wx', 0o600);
    try {
      await fh.write(first);
      await fh.datasync();
    } finally {
      await fh.close();
    }
  }

  async openUpload(key: string, size: number): Promise<UploadWriter> {
    const fh: FileHandle = await open(this.uploadPath(key), 'r+');
    try {
      await fh.truncate(size);
    } catch (err) {
      await fh.close();
      throw err;
    }
    let position = size;
    return {
      // One writev for the pieces, not a buffer made to join them; a short write
      // continues where it stopped.
      write: async (pieces) => {
        let rest = pieces.filter((p) => p.length);
        while (rest.length) {
          const { bytesWritten } = await fh.writev(rest, position);
          position += bytesWritten;
          let n = bytesWritten;
          while (rest.length && n >= rest[0]!.length) {
            n -= rest[0]!.length;
            rest = rest.slice(1);
          }
          if (n) rest = [rest[0]!.subarray(n), ...rest.slice(1)];
        }
      },
      sync: () => fh.datasync(),
      close: () => fh.close(),
    };
  }

  readUpload(key: string, start = 0): Readable {
    return createReadStream(this.uploadPath(key), { highWaterMark: 1024 * 1024, start });
  }

  async uploadSize(key: string): Promise<number> {
    return (await stat(this.uploadPath(key)).catch(() => null))?.size ?? 0;
  }

  async commitUpload(key: string): Promise<void> {
    const dest = this.finalPath(key);
    await mkdir(path.dirname(dest), { recursive: true, mode: 0o700 });
    await rename(this.uploadPath(key), dest);
  }

  async discardUpload(key: string): Promise<void> {
    await rm(this.uploadPath(key), { force: true });
  }

  async listUploads(): Promise<{ key: string; mtimeMs: number }[]> {
    const names = (await readdir(this.uploadDir).catch(() => [] as string[])).filter((n) => KEY.test(n));
    const out: { key: string; mtimeMs: number }[] = [];
    for (const key of names) {
      const s = await stat(this.uploadPath(key)).catch(() => null);
      if (s) out.push({ key, mtimeMs: s.mtimeMs });
    }
    return out;
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

  /** Whether a final object is here. */
  async exists(key: string): Promise<boolean> {
    return (await stat(this.finalPath(key)).catch(() => null)) !== null;
  }

  async recover(known: (keys: string[]) => Promise<Set<string>>, maxAgeMs = 60 * 60 * 1000) {
    // Resumable uploads a case took whose rename did not happen (a crash after the commit).
    // The others are the upload sweep's (server/uploads/sweep.ts), which knows their age.
    const uploads = (await this.listUploads()).map((u) => u.key);
    let moved = 0;
    if (uploads.length) {
      const taken = await known(uploads);
      for (const key of uploads) {
        if (!taken.has(key)) continue;
        await this.commitUpload(key);
        moved++;
      }
    }
    const names = (await readdir(this.tmpDir).catch(() => [] as string[])).filter((n) => n.endsWith('.part'));
    const keys = names.map((n) => n.slice(0, -'.part'.length)).filter((k) => KEY.test(k));
    if (!keys.length) return { committed: moved, removed: 0 };
    const recorded = await known(keys);
    let committed = moved;
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

/** The store a configuration names, ready for use. */
export async function openFileStore(config: { fileStore: 'disk' | 'postgres'; filesDir?: string; dataDir: string }, db: Database): Promise<FileStore> {
  const store = config.fileStore === 'postgres' ? new PostgresFileStore(db) : new DiskFileStore(config.filesDir ?? path.join(config.dataDir, 'files'));
  await store.init();
  return store;
}

/**
 * A portal switched to FILE_STORE=postgres (the default with DATABASE_URL) whose files
 * are still in FILES_DIR: the message that says what to do, or null. One case file no
 * chunk row holds, found in the folder, is enough to tell.
 */
export async function filesLeftOnDisk(db: Database, filesDir: string): Promise<string | null> {
  const missing = await db
    .selectFrom('case_file')
    .select('storage_key')
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('file_object').select('file_object.key').whereRef('file_object.key', '=', 'case_file.storage_key'))))
    .limit(1)
    .executeTakeFirst();
  if (!missing || !(await new DiskFileStore(filesDir).exists(missing.storage_key))) return null;
  return `FILE_STORE=postgres, but the case files are in ${filesDir}: move them with \`npm run db -- files-to-postgres\` (every server stopped), or set FILE_STORE=disk (docs/operations.md, "Several servers")`;
}
