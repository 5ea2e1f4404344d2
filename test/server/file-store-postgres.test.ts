/**
 * The file store in the database (FILE_STORE=postgres, server/files/pg-store.ts), on
 * the database the run gives (PGlite, or PostgreSQL in CI's PostgreSQL pass): the
 * disk store's contract, kept by chunk rows: bytes across row boundaries, reads from
 * any offset, nothing visible of a write that failed or was not committed, a
 * resumable upload cut back after a crash, recovery, and a read that comes up short
 * failing instead of serving a shorter file.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { CHUNK_ROW_BYTES, PostgresFileStore } from '../../server/files/pg-store.ts';
import { DiskFileStore } from '../../server/files/store.ts';
import { importFiles } from '../../server/db/copy.ts';
import { openDatabase, type Database } from '../../server/db/database.ts';
import { companyByHost } from '../../server/companies/service.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { call, listFiles } from './api.ts';
import { newCase } from './identity-flow.ts';
import { configFromEnv } from '../../server/config.ts';
import { keysDirOf } from '../../server/crypto/case-keys.ts';

let server: TestServer;
let store: PostgresFileStore;
const MiB = 1024 * 1024;

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, jobs: false, fileStore: 'postgres' });
  expect(server.ctx.files.kind).toBe('postgres');
  store = server.ctx.files as PostgresFileStore;
});
afterAll(async () => server?.cleanup());

/** `bytes` as a stream of uneven pieces, as a socket delivers them. */
function pieces(bytes: Buffer, size = 100_003): Readable {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return Readable.from(out);
}

const rowsOf = async (key: string) =>
  (await server.ctx.db.selectFrom('file_chunk').select(['pos', sql<number>`octet_length(data)`.as('n')]).where('key', '=', key).orderBy('pos').execute()).map((r) => [Number(r.pos), Number(r.n)]);
const objectOf = (key: string) => server.ctx.db.selectFrom('file_object').selectAll().where('key', '=', key).executeTakeFirst();

describe('the database file store', () => {
  it("starts while another process commits or removes the same objects: its recovery and the owner's commit both go through", async () => {
    const temp = randomUUID();
    const upload = randomUUID();
    const gone = randomUUID();
    const bytes = randomBytes(3000);
    await store.putTemp(temp, pieces(bytes, 700));
    await store.putTemp(gone, pieces(bytes, 700));
    await store.createUpload(upload, bytes);
    // The other process acts on each object between this one's listing and its commit (a kill -9 and restart under load).
    await expect(
      store.recover(async (keys) => {
        for (const k of keys) await (k === upload ? store.commitUpload(k) : k === gone ? store.discard(k) : store.commit(k));
        return new Set(keys);
      }),
    ).resolves.toMatchObject({ removed: 0 });
    // The owner's own commit after a recovery got there first is no error either.
    await store.commit(temp);
    await store.commitUpload(upload);
    expect((await buffer(store.get(temp))).equals(bytes)).toBe(true);
    expect((await buffer(store.get(upload))).equals(bytes)).toBe(true);
    // What is gone, or never was, stays an error for its owner.
    await expect(store.commit(gone)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(store.commit(randomUUID())).rejects.toMatchObject({ code: 'ENOENT' });
    await store.delete(temp);
    await store.delete(upload);
  });

  it('streams a file into 1 MiB rows, reads it only once committed, whole, and deletes its rows', async () => {
    const key = randomUUID();
    const bytes = randomBytes(2 * MiB + 12_345);
    expect(await store.putTemp(key, pieces(bytes))).toBe(bytes.length);
    expect(await rowsOf(key)).toEqual([
      [0, CHUNK_ROW_BYTES],
      [MiB, CHUNK_ROW_BYTES],
      [2 * MiB, 12_345],
    ]);
    // Not final yet: not readable as a file.
    await expect(buffer(store.get(key))).rejects.toMatchObject({ code: 'ENOENT' });
    await store.commit(key);
    expect((await buffer(store.get(key))).equals(bytes)).toBe(true);
    expect(Number((await objectOf(key))!.size)).toBe(bytes.length);
    // An upload's removal does not touch a final file.
    await store.discardUpload(key);
    await store.discard(key);
    expect((await buffer(store.get(key))).equals(bytes)).toBe(true);
    await store.delete(key);
    await store.delete(key);
    expect(await objectOf(key)).toBeUndefined();
    expect(await rowsOf(key)).toEqual([]);
    await expect(buffer(store.get(key))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('passes the bytes through the given transforms; an empty file is one object with no rows', async () => {
    const key = randomUUID();
    const upper = new Transform({ transform: (c: Buffer, _e, cb) => cb(null, Buffer.from(c.toString('latin1').toUpperCase(), 'latin1')) });
    expect(await store.putTemp(key, Readable.from([Buffer.from('hello '), Buffer.from('world')]), upper)).toBe(11);
    await store.commit(key);
    expect((await buffer(store.get(key))).toString()).toBe('HELLO WORLD');
    const empty = randomUUID();
    expect(await store.putTemp(empty, Readable.from([]))).toBe(0);
    await store.commit(empty);
    expect((await buffer(store.get(empty))).length).toBe(0);
    expect(await rowsOf(empty)).toEqual([]);
  });

  it('leaves nothing of a write whose source fails midway; refuses keys that are not ids and a key twice', async () => {
    const key = randomUUID();
    async function* failing() {
      yield randomBytes(MiB + 10);
      yield randomBytes(MiB);
      throw new Error('the client went away');
    }
    await expect(store.putTemp(key, Readable.from(failing()))).rejects.toThrow('the client went away');
    expect(await objectOf(key)).toBeUndefined();
    expect(await rowsOf(key)).toEqual([]);
    await expect(store.putTemp('../../etc/passwd', Readable.from(['x']))).rejects.toThrow(/bad storage key/);
    const twice = randomUUID();
    await store.putTemp(twice, Readable.from(['x']));
    await expect(store.putTemp(twice, Readable.from(['y']))).rejects.toMatchObject({ code: 'EEXIST' });
  });

  it('fails a read that comes up short instead of serving a shorter file', async () => {
    const key = randomUUID();
    await store.putTemp(key, pieces(randomBytes(3 * MiB)));
    await store.commit(key);
    await server.ctx.db.deleteFrom('file_chunk').where('key', '=', key).where('pos', '=', 2 * MiB).execute();
    await expect(buffer(store.get(key))).rejects.toThrow(/ends at byte/);
  });

  it('keeps a resumable upload in rows: appends, reads from any offset, cuts back what a crash left, becomes final', async () => {
    const key = randomUUID();
    const head = randomBytes(43);
    await store.createUpload(key, head);
    await expect(store.createUpload(key, head)).rejects.toMatchObject({ code: 'EEXIST' });
    const a = randomBytes(700_000);
    const b = randomBytes(900_000);
    let w = await store.openUpload(key, 43);
    await w.write([a.subarray(0, 300_000), a.subarray(300_000), b]);
    await w.sync();
    await w.close();
    const all = Buffer.concat([head, a, b]);
    expect(await store.uploadSize(key)).toBe(all.length);
    expect((await buffer(store.readUpload(key))).equals(all)).toBe(true);
    expect((await buffer(store.readUpload(key, 500_000))).equals(all.subarray(500_000))).toBe(true);
    expect(await store.listUploads()).toContainEqual({ key, mtimeMs: expect.any(Number) });

    // A restart that saved offset 600,000 only: what came after is cut off, inside a row.
    const kept = 600_000;
    w = await store.openUpload(key, kept);
    expect(await store.uploadSize(key)).toBe(kept);
    const c = randomBytes(50_000);
    await w.write([c]);
    await w.close();
    const now = Buffer.concat([all.subarray(0, kept), c]);
    expect((await buffer(store.readUpload(key))).equals(now)).toBe(true);
    await expect(buffer(store.get(key))).rejects.toMatchObject({ code: 'ENOENT' });

    await store.commitUpload(key);
    expect((await buffer(store.get(key))).equals(now)).toBe(true);
    expect(await store.uploadSize(key)).toBe(0);
    expect((await store.listUploads()).map((u) => u.key)).not.toContain(key);
    await expect(store.openUpload(key, 0)).rejects.toMatchObject({ code: 'ENOENT' });
    await store.delete(key);
    const gone = randomUUID();
    await store.createUpload(gone, head);
    await store.discardUpload(gone);
    expect(await objectOf(gone)).toBeUndefined();
  });

  it('recovers after a crash: recorded temporaries and uploads are committed, old unrecorded ones removed, fresh ones kept', async () => {
    const [recorded, stale, fresh, taken] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    for (const k of [recorded, stale, fresh]) await store.putTemp(k, Readable.from([Buffer.from(k)]));
    await store.createUpload(taken, Buffer.from(taken));
    await server.ctx.db.updateTable('file_object').set({ updated_at: new Date(Date.now() - 2 * 3600_000) }).where('key', '=', stale).execute();
    const result = await store.recover(async (keys) => new Set(keys.filter((k) => k === recorded || k === taken)));
    expect(result).toEqual({ committed: 2, removed: 1 });
    expect((await buffer(store.get(recorded))).toString()).toBe(recorded);
    expect((await buffer(store.get(taken))).toString()).toBe(taken);
    expect(await objectOf(stale)).toBeUndefined();
    expect((await objectOf(fresh))!.state).toBe('temp');
  });
});

describe('switching a portal with files on disk to FILE_STORE=postgres', () => {
  it('refuses to start while the case files are in FILES_DIR, and serves them once they were moved into chunk rows', async () => {
    const text = 'moved line\n'.repeat(50_000);
    const first = await startTestServer({ fileStore: 'disk' });
    let second: TestServer | undefined;
    try {
      const number = await newCase(first, { password: 'move-pass', files: [{ name: 'moved.txt', bytes: text }] });
      await first.stop();
      const same = { dataDir: first.dataDir, databaseUrl: first.config.databaseUrl, fileStore: 'postgres' as const };
      await expect(startTestServer(same)).rejects.toThrow(/files-to-postgres/);
      // What `npm run db -- files-to-postgres` does, on this database.
      const filesDir = path.join(first.dataDir, 'files');
      const opened = await openDatabase({ dataDir: first.dataDir, databaseUrl: first.config.databaseUrl });
      try {
        const moved = await opened.db.transaction().execute((trx) => importFiles(trx as unknown as Database, new DiskFileStore(filesDir)));
        expect(moved.objects).toBe(1);
      } finally {
        await opened.close();
      }
      // Served from the rows: the folder's copy is removed (the shred keys stay).
      const onDisk = listFiles(filesDir).filter((f) => !path.relative(filesDir, f).startsWith(`keys${path.sep}`));
      expect(onDisk.length).toBe(1);
      rmSync(onDisk[0]!);
      second = await startTestServer(same);
      const company = (await companyByHost(second.ctx.db, 'localhost'))!;
      const token = (await createHandlerAccount(second.ctx.db, company.id, 'Mover')).token;
      const view = await call(second, 'GET', `/api/handler/cases/${number}`, { token });
      expect(view.status).toBe(200);
      const file = await fetch(`${second.url}/api/handler/cases/${number}/files/${view.data.files[0].id}`, { headers: { authorization: `Bearer ${token}` } });
      expect(await file.text()).toBe(text);
    } finally {
      await second?.stop();
      await first.cleanup();
    }
  });
});

describe('choosing the store', () => {
  it('is postgres with DATABASE_URL and disk without, unless FILE_STORE says; the shred keys are in KEYS_DIR or FILES_DIR/keys, never the database', () => {
    expect(configFromEnv({}).fileStore).toBe('disk');
    expect(configFromEnv({ DATABASE_URL: 'postgres://x/y' }).fileStore).toBe('postgres');
    expect(configFromEnv({ DATABASE_URL: 'postgres://x/y', FILE_STORE: 'disk' }).fileStore).toBe('disk');
    expect(configFromEnv({ FILE_STORE: 'postgres' }).fileStore).toBe('postgres');
    expect(() => configFromEnv({ FILE_STORE: 's3' })).toThrow(/FILE_STORE must be "disk" or "postgres"/);
    expect(keysDirOf(configFromEnv({ DATA_DIR: '/srv/wb', DATABASE_URL: 'postgres://x/y' }))).toBe('/srv/wb/files/keys');
    expect(keysDirOf(configFromEnv({ DATA_DIR: '/srv/wb', FILES_DIR: '/mnt/files' }))).toBe('/mnt/files/keys');
    expect(keysDirOf(configFromEnv({ DATA_DIR: '/srv/wb', KEYS_DIR: '/mnt/shared/keys' }))).toBe('/mnt/shared/keys');
    expect(server.ctx.caseKeys.root).toBe(path.join(server.dataDir, 'files', 'keys'));
  });
});
