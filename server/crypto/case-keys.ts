/**
 * Case keys that can be destroyed (docs/decisions/deletion.md).
 *
 * A case's data key is stored wrapped in the database (`report_case.wrapped_key`,
 * `upload_session.wrapped_key`), but not under the master key alone: the wrapping
 * key is HKDF(master key, salt = the case's shred key), and the shred key is 32
 * random bytes in a file of its own, outside the database (`FILES_DIR/keys`).
 * Deleting a case unlinks that file. What a database keeps after a row is deleted
 * (dead tuples, free space, write-ahead log segments that are recycled, not
 * wiped) still holds the wrapped key, but nothing anywhere can unwrap it any more:
 * the master key alone does not, and the shred key is gone.
 *
 * Invariants:
 * - a shred key is written and flushed to disk (file and folder) before any row
 *   that needs it commits, so a crash never leaves a case whose key cannot open;
 * - a shred key is created at most once per case id (O_EXCL): two processes that
 *   race agree on one;
 * - a shred key is removed only for a case being deleted, or, by the sweep, for a
 *   case id no row names any more.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { CaseCrypto } from './case-crypto.ts';
import { HttpError } from '../errors.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SHRED_BYTES = 32;
/** Shred keys of recently read cases, so the hot paths (token check, my-case) read no file. */
const CACHE_MAX = 10_000;

/** A case whose key was destroyed: it is being deleted, and answers as gone. */
export class MissingCaseKey extends HttpError {
  constructor(message: string) {
    super(410, 'CASE_DELETED', message);
  }
}

export class CaseKeys {
  private readonly cache = new Map<string, Buffer>();

  /** `crypto` null: a tool that only removes keys (the purge CLI without a server). */
  constructor(
    private readonly crypto: CaseCrypto | null,
    readonly root: string,
  ) {}

  private sealer(): CaseCrypto {
    if (!this.crypto) throw new Error('these case keys were opened without the master key');
    return this.crypto;
  }

  async init(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o700 });
  }

  private dir(caseId: string): string {
    if (!UUID.test(caseId)) throw new Error(`bad case id ${JSON.stringify(caseId)}`);
    return path.join(this.root, caseId.slice(0, 2));
  }

  private file(caseId: string): string {
    return path.join(this.dir(caseId), caseId);
  }

  private remember(caseId: string, shred: Buffer): Buffer {
    if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(caseId, shred);
    return shred;
  }

  /** The case's shred key, made and flushed to disk when it has none yet. */
  private async ensureShred(caseId: string): Promise<Buffer> {
    const known = await this.readShred(caseId);
    if (known) return known;
    const dir = this.dir(caseId);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const shred = randomBytes(SHRED_BYTES);
    let fh;
    try {
      fh = await open(this.file(caseId), 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const other = await this.readShred(caseId);
      if (!other) throw new MissingCaseKey('a case key file is being written by another process');
      return other;
    }
    try {
      await fh.writeFile(shred);
      await fh.sync();
    } finally {
      await fh.close();
    }
    // The file's name must be on disk too before a row relies on it.
    const d = await open(dir, 'r');
    try {
      await d.sync();
    } finally {
      await d.close();
    }
    return this.remember(caseId, shred);
  }

  private async readShred(caseId: string): Promise<Buffer | null> {
    const cached = this.cache.get(caseId);
    if (cached) return cached;
    try {
      const b = await readFile(this.file(caseId));
      if (b.length !== SHRED_BYTES) return null;
      return this.remember(caseId, b);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  /** A fresh data key for a new case (or an upload session's case to come), and its wrapped form for the database. */
  async create(caseId: string): Promise<{ key: Buffer; wrapped: Buffer }> {
    const key = randomBytes(32);
    return { key, wrapped: await this.wrap(caseId, key) };
  }

  async wrap(caseId: string, key: Uint8Array): Promise<Buffer> {
    return this.sealer().wrapShreddable(caseId, key, await this.ensureShred(caseId));
  }

  /** The data key; MissingCaseKey when the case's shred key is gone (the case was deleted). */
  async unwrap(caseId: string, wrapped: Uint8Array | null): Promise<Buffer> {
    // A sealed case (docs/decisions/blind-server.md): the server holds no key to it, by design.
    if (!wrapped) throw new HttpError(409, 'CASE_SEALED', 'This case is sealed: only its reporter and its handlers open it, in their browsers.');
    const shred = await this.readShred(caseId);
    if (!shred) throw new MissingCaseKey('the key of this case was destroyed');
    return this.sealer().unwrapShreddable(caseId, wrapped, shred);
  }

  /** Whether the case still has its shred key. */
  async exists(caseId: string): Promise<boolean> {
    return (await this.readShred(caseId)) !== null;
  }

  /** The shred key, for re-wrapping under another master key (server/crypto/master-key.ts). */
  async shredOf(caseId: string): Promise<Buffer | null> {
    return this.readShred(caseId);
  }

  /** Destroys the case's shred key: every wrapping of its data key, wherever it survives, stops opening. */
  async destroy(caseId: string): Promise<void> {
    this.cache.delete(caseId);
    await rm(this.file(caseId), { force: true });
    try {
      const d = await open(this.dir(caseId), 'r');
      try {
        await d.sync();
      } finally {
        await d.close();
      }
    } catch {
      // the folder is gone or cannot be opened for sync: the unlink itself stands
    }
  }

  /** Case ids with a shred key whose file is older than `olderThanMs` (the sweep's candidates). */
  async listOlderThan(olderThanMs: number, now = Date.now()): Promise<string[]> {
    const out: string[] = [];
    let shards: string[];
    try {
      shards = await readdir(this.root);
    } catch {
      return out;
    }
    for (const shard of shards) {
      let names: string[];
      try {
        names = await readdir(path.join(this.root, shard));
      } catch {
        continue;
      }
      for (const name of names) {
        if (!UUID.test(name)) continue;
        try {
          const s = await stat(path.join(this.root, shard, name));
          if (now - s.mtimeMs > olderThanMs) out.push(name);
        } catch {
          // removed meanwhile
        }
      }
    }
    return out;
  }
}

/** Where the shred keys live by default: beside the encrypted files, on the volume every server process shares. */
export function caseKeysDir(filesDir: string): string {
  return path.join(filesDir, 'keys');
}

/**
 * The shred keys' folder of a configuration: KEYS_DIR, or FILES_DIR/keys. Outside
 * the database whatever FILE_STORE says (docs/decisions/file-store.md): with the
 * files in PostgreSQL, several machines still share this one small folder.
 */
export function keysDirOf(config: { keysDir?: string; filesDir?: string; dataDir: string }): string {
  return config.keysDir ?? caseKeysDir(config.filesDir ?? path.join(config.dataDir, 'files'));
}
