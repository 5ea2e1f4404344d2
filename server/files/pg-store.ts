/**
 * The file store in the database (FILE_STORE=postgres; docs/decisions/file-store.md):
 * sealed bytes in `file_chunk` rows of up to 1 MiB beside the rows that name them,
 * so several processes on several machines share files through PostgreSQL alone and
 * one `pg_dump` holds rows and files of one moment.
 *
 * Invariants (the disk store's, kept by states instead of folders and renames):
 * - an object is `temp` (putTemp), `upload` (a resumable upload being received) or
 *   `final`; only a final one is read as a case file, and it records its size, so a
 *   read that comes up short fails instead of serving a shorter file. A crash while
 *   writing leaves a temp or upload object that no case names: `recover` and the
 *   upload sweep remove it;
 * - every byte is streamed: a write reuses one row's buffer, a read one slice of
 *   rows; no statement holds a connection longer than one row's round trip, so a
 *   slow client never pins a pooled connection;
 * - the per-case shred keys are NOT here (server/crypto/case-keys.ts): they stay in
 *   KEYS_DIR outside the database, or deleting a case would not destroy its key.
 */
import { Readable, Writable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { FileStore, UploadWriter } from './store.ts';

/** Bytes per chunk row: few rows and round trips per file, one bounded buffer per stream. */
export const CHUNK_ROW_BYTES = 1024 * 1024;
/**
 * Bytes one read statement answers: 24 KiB, so the answer (the driver receives a
 * `bytea` as hex text, 48 KiB, with its few framing bytes) comes within one 64 KiB
 * socket read. A bigger answer is gathered by the driver's protocol parser in a buffer
 * it doubles as the message comes in, which stays alive across socket reads, is
 * promoted by the scavenger and is then freed only when dead Buffers pass V8's
 * external-memory limit, as big as the 64 MiB budget: with 256 KiB slices a 2 GiB
 * download went over it (docs/decisions/file-store.md, "Measured").
 */
const READ_SLICE_BYTES = 24 * 1024;

const KEY = /^[0-9a-f-]{36}$/;

function checkKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`bad storage key ${JSON.stringify(key)}`);
  return key;
}

/** What the disk store's reads fail with for a missing object, so callers see one error. */
/** Runs a recovery step; true when the object was no longer there to act on (another process got to it first). */
async function settledElsewhere(step: () => Promise<void>): Promise<boolean> {
  try {
    await step();
    return false;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw err;
  }
}

function notFound(key: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOENT: no stored object ${key}`), { code: 'ENOENT' });
}

type State = 'temp' | 'upload' | 'final';

export class PostgresFileStore implements FileStore {
  readonly kind = 'postgres' as const;

  constructor(private readonly db: Database) {}

  async init(): Promise<void> {
    // The table comes with the migrations; nothing to prepare.
  }

  private async insertObject(key: string, state: State): Promise<void> {
    try {
      await this.db.insertInto('file_object').values({ key: checkKey(key), state, size: null, updated_at: new Date() }).execute();
    } catch (err) {
      if ((err as { code?: string }).code === '23505') throw Object.assign(new Error(`EEXIST: stored object ${key} exists`), { code: 'EEXIST' });
      throw err;
    }
  }

  private async remove(key: string, state: State): Promise<void> {
    // The chunk rows go with it (on delete cascade), in the same statement.
    await this.db.deleteFrom('file_object').where('key', '=', checkKey(key)).where('state', '=', state).execute();
  }

  private async insertChunk(key: string, pos: number, data: Buffer, touch: boolean): Promise<void> {
    if (!touch) {
      await this.db.insertInto('file_chunk').values({ key, pos, data }).execute();
      return;
    }
    // The object's last change moves with its bytes (the stalled-upload sweep reads it), in one round trip.
    await sql`with touched as (update file_object set updated_at = ${new Date()} where key = ${key})
      insert into file_chunk (key, pos, data) values (${key}, ${pos}, ${data})`.execute(this.db);
  }

  /**
   * A Writable that cuts what it is given into chunk rows from byte `start`. The row is
   * gathered in one buffer made once per stream and reused for every row: a fresh 1 MiB
   * buffer per row lives across the insert's round trip, is promoted, and is then freed
   * only when dead Buffers pass V8's external-memory limit, as big as the 64 MiB budget
   * (file-store.md, "Measured"). The driver has copied the row into its own message by
   * the time the insert resolves, so the next row may overwrite it.
   */
  private chunkWriter(key: string, start: number, touch: boolean): Writable & { bytesWritten: () => number } {
    let row: Buffer | undefined;
    let rowBytes = 0;
    let pos = start;
    const flush = async () => {
      if (!rowBytes || !row) return;
      const n = rowBytes;
      await this.insertChunk(key, pos, row.subarray(0, n), touch);
      rowBytes = 0;
      pos += n;
    };
    const w = new Writable({
      highWaterMark: CHUNK_ROW_BYTES,
      write: (chunk: Buffer, _enc, cb) => {
        let at = 0;
        const step = async () => {
          while (at < chunk.length) {
            row ??= Buffer.allocUnsafeSlow(CHUNK_ROW_BYTES);
            const n = chunk.copy(row, rowBytes, at, Math.min(chunk.length, at + CHUNK_ROW_BYTES - rowBytes));
            rowBytes += n;
            at += n;
            if (rowBytes === CHUNK_ROW_BYTES) await flush();
          }
        };
        step().then(() => cb(), cb);
      },
      final: (cb) => {
        flush().then(() => cb(), cb);
      },
    });
    return Object.assign(w, { bytesWritten: () => pos - start + rowBytes });
  }

  async putTemp(key: string, source: Readable, ...through: Transform[]): Promise<number> {
    await this.insertObject(key, 'temp');
    const out = this.chunkWriter(key, 0, false);
    try {
      await pipeline([source, ...through, out]);
    } catch (err) {
      await this.remove(key, 'temp').catch(() => undefined);
      throw err;
    }
    const size = out.bytesWritten();
    await this.db.updateTable('file_object').set({ size, updated_at: new Date() }).where('key', '=', key).execute();
    return size;
  }

  async commit(key: string): Promise<void> {
    const r = await this.db.updateTable('file_object').set({ state: 'final', updated_at: new Date() }).where('key', '=', checkKey(key)).where('state', '=', 'temp').executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1 && !(await this.isFinal(key))) throw notFound(key);
  }

  /** Whether `key` is already final: another process's start-up recovery may commit a temporary first (recover). */
  private async isFinal(key: string): Promise<boolean> {
    const row = await this.db.selectFrom('file_object').select('state').where('key', '=', key).executeTakeFirst();
    return row?.state === 'final';
  }

  discard(key: string): Promise<void> {
    return this.remove(key, 'temp');
  }

  delete(key: string): Promise<void> {
    return this.remove(key, 'final');
  }

  get(key: string): Readable {
    return this.reader(checkKey(key), 0, 'final');
  }

  /**
   * Bytes of `key` from byte `start`, one slice (READ_SLICE_BYTES) per statement. A final object's
   * recorded size is checked against what the rows hold.
   */
  private reader(key: string, start: number, state: State): Readable {
    const db = this.db;
    // Where the next slice starts: row `rowPos`, `rowOff` bytes in. Rows are read in
    // slices: the column is stored uncompressed out of line, so PostgreSQL fetches only
    // a slice's part of the row, and no statement's answer is bigger than one slice.
    let rowPos: number | undefined;
    let rowOff = 0;
    let expectEnd: number | null = null;
    let at = start;
    let busy = false;
    let done = false;
    const fetch = async (): Promise<Buffer[]> => {
      if (rowPos === undefined) {
        const obj = await db.selectFrom('file_object').select(['state', 'size']).where('key', '=', key).executeTakeFirst();
        if (!obj || obj.state !== state) throw notFound(key);
        expectEnd = obj.size === null ? null : Number(obj.size);
        // The row that holds byte `start`: the last one beginning at or before it.
        const first = await db.selectFrom('file_chunk').select('pos').where('key', '=', key).where('pos', '<=', start).orderBy('pos', 'desc').limit(1).executeTakeFirst();
        rowPos = first ? Number(first.pos) : 0;
        rowOff = first ? start - Number(first.pos) : 0;
      }
      const row = await db
        .selectFrom('file_chunk')
        .select(['pos', sql<number>`octet_length(data)`.as('len'), sql<Uint8Array>`substring(data from ${rowOff + 1}::integer for ${READ_SLICE_BYTES}::integer)`.as('part')])
        .where('key', '=', key)
        // Inside a row: that row; at a row's start: the next row from there.
        .where('pos', rowOff ? '=' : '>=', rowPos)
        .orderBy('pos')
        .limit(1)
        .executeTakeFirst();
      if (!row) {
        if (expectEnd !== null && at !== expectEnd) throw new Error(`stored object ${key} ends at byte ${at}, not ${expectEnd}`);
        done = true;
        return [];
      }
      const data = Buffer.from(row.part.buffer, row.part.byteOffset, row.part.byteLength);
      const pos = Number(row.pos);
      if (!rowOff && expectEnd !== null && pos !== at) throw new Error(`stored object ${key} has a gap at byte ${at}`);
      rowOff += data.length;
      if (rowOff >= Number(row.len)) {
        rowPos = pos + 1;
        rowOff = 0;
      } else {
        rowPos = pos;
      }
      at += data.length;
      return data.length ? [data] : [];
    };
    const stream: Readable = new Readable({
      highWaterMark: CHUNK_ROW_BYTES,
      read() {
        more();
      },
    });
    // One statement at a time: a read asked for while a batch is on its way is
    // answered by that batch's pushes (which ask again while there is room).
    const more = () => {
      if (busy || done) return;
      busy = true;
      fetch().then(
        (pieces) => {
          busy = false;
          const end = done;
          for (const p of pieces) stream.push(p);
          if (end) stream.push(null);
          else if (!pieces.length) more();
        },
        (err: Error) => {
          busy = false;
          stream.destroy(err);
        },
      );
    };
    return stream;
  }

  /**
   * Writes a whole object from `source` in the state it has elsewhere (a final file or
   * an upload in progress): the move of a disk store's files into rows
   * (server/db/copy.ts). Resolves with its size.
   */
  async importObject(key: string, state: 'final' | 'upload', source: Readable): Promise<number> {
    await this.insertObject(key, state);
    const out = this.chunkWriter(key, 0, false);
    await pipeline(source, out);
    const size = out.bytesWritten();
    if (state === 'final') await this.db.updateTable('file_object').set({ size }).where('key', '=', key).execute();
    return size;
  }

  // ---- resumable uploads -------------------------------------------------------

  async createUpload(key: string, first: Uint8Array): Promise<void> {
    await this.insertObject(key, 'upload');
    if (first.length) await this.insertChunk(key, 0, Buffer.from(first), false);
  }

  async openUpload(key: string, size: number): Promise<UploadWriter> {
    checkKey(key);
    const obj = await this.db.selectFrom('file_object').select('state').where('key', '=', key).executeTakeFirst();
    if (obj?.state !== 'upload') throw notFound(key);
    // Cuts off whatever a killed process wrote after `size`: whole rows beyond it, and the end of the row that straddles it.
    await this.db.deleteFrom('file_chunk').where('key', '=', key).where('pos', '>=', size).execute();
    await sql`update file_chunk set data = substring(data from 1 for (${size}::bigint - pos)::integer)
      where key = ${key} and pos < ${size} and pos + octet_length(data) > ${size}`.execute(this.db);
    let position = size;
    return {
      write: async (pieces) => {
        const parts = pieces.filter((p) => p.length);
        let i = 0;
        // Rows of at most CHUNK_ROW_BYTES, each one round trip; the pieces are joined per row only.
        while (i < parts.length) {
          const row: Uint8Array[] = [];
          let n = 0;
          while (i < parts.length && (n === 0 || n + parts[i]!.length <= CHUNK_ROW_BYTES)) {
            row.push(parts[i]!);
            n += parts[i]!.length;
            i++;
          }
          await this.insertChunk(key, position, row.length === 1 ? Buffer.from(row[0]!.buffer, row[0]!.byteOffset, row[0]!.byteLength) : Buffer.concat(row, n), true);
          position += n;
        }
      },
      // Each row is committed when its statement returns: nothing is waiting to be flushed.
      sync: async () => undefined,
      close: async () => undefined,
    };
  }

  readUpload(key: string, start = 0): Readable {
    return this.reader(checkKey(key), start, 'upload');
  }

  async uploadSize(key: string): Promise<number> {
    const { rows } = await sql<{ end: string | number }>`
      select c.pos + octet_length(c.data) as end from file_chunk c join file_object o on o.key = c.key
      where c.key = ${checkKey(key)} and o.state = 'upload' order by c.pos desc limit 1`.execute(this.db);
    return rows[0] ? Number(rows[0].end) : 0;
  }

  async commitUpload(key: string): Promise<void> {
    const size = await this.uploadSize(key);
    const r = await this.db.updateTable('file_object').set({ state: 'final', size, updated_at: new Date() }).where('key', '=', checkKey(key)).where('state', '=', 'upload').executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1 && !(await this.isFinal(key))) throw notFound(key);
  }

  discardUpload(key: string): Promise<void> {
    return this.remove(key, 'upload');
  }

  async listUploads(): Promise<{ key: string; mtimeMs: number }[]> {
    const rows = await this.db.selectFrom('file_object').select(['key', 'updated_at']).where('state', '=', 'upload').execute();
    return rows.map((r) => ({ key: r.key, mtimeMs: new Date(r.updated_at).getTime() }));
  }

  async recover(known: (keys: string[]) => Promise<Set<string>>, maxAgeMs = 60 * 60 * 1000) {
    // As the disk store: uploads a case took whose commit did not happen are finished;
    // temporaries a case names are committed, others older than `maxAgeMs` removed.
    // Other processes share these rows and keep working while this one starts: an
    // object one of them committed or removed since it was listed is theirs, not a
    // reason to refuse to start (a kill -9 and restart under load found it).
    const uploads = (await this.listUploads()).map((u) => u.key);
    let committed = 0;
    if (uploads.length) {
      const taken = await known(uploads);
      for (const key of uploads) {
        if (!taken.has(key)) continue;
        if (await settledElsewhere(() => this.commitUpload(key))) continue;
        committed++;
      }
    }
    const temps = await this.db.selectFrom('file_object').select(['key', 'updated_at']).where('state', '=', 'temp').execute();
    if (!temps.length) return { committed, removed: 0 };
    const recorded = await known(temps.map((t) => t.key));
    let removed = 0;
    for (const t of temps) {
      if (recorded.has(t.key)) {
        if (await settledElsewhere(() => this.commit(t.key))) continue;
        committed++;
      } else if (Date.now() - new Date(t.updated_at).getTime() > maxAgeMs) {
        await this.discard(t.key);
        removed++;
      }
    }
    return { committed, removed };
  }
}
