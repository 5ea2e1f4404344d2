/**
 * A new data folder's embedded database is made by initdb in a process of its own
 * (server/db/database.ts), renamed into place once complete: the first start opens a
 * migrated database, a folder left half-made by a start that was cut off is made
 * again, and an existing database is opened as it is, never made anew.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/database.ts';

const dirs: string[] = [];
const fresh = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'wb-first-start-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const tables = async (db: Awaited<ReturnType<typeof openDatabase>>['db']) =>
  (await sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_schema = 'public'`.execute(db)).rows[0]!.n;

describe('the embedded database on a first start', () => {
  it('a new data folder gets a complete, migrated database and nothing beside it', async () => {
    const dataDir = path.join(fresh(), 'not-yet-made');
    const opened = await openDatabase({ dataDir });
    try {
      expect(await tables(opened.db)).toBeGreaterThan(5);
    } finally {
      await opened.close();
    }
    expect(existsSync(path.join(dataDir, 'db', 'PG_VERSION'))).toBe(true);
    expect(readdirSync(dataDir)).toEqual(['db']);
  }, 120_000);

  it('a database half made by a start that was cut off is made again, not opened', async () => {
    const dataDir = fresh();
    mkdirSync(path.join(dataDir, 'db.initdb', 'base'), { recursive: true });
    writeFileSync(path.join(dataDir, 'db.initdb', 'base', 'garbage'), 'cut off here');
    const opened = await openDatabase({ dataDir });
    try {
      expect(await tables(opened.db)).toBeGreaterThan(5);
    } finally {
      await opened.close();
    }
    expect(readdirSync(dataDir)).toEqual(['db']);
    expect(existsSync(path.join(dataDir, 'db', 'base', 'garbage'))).toBe(false);
  }, 120_000);

  it('an existing database is opened with its rows, not made anew', async () => {
    const dataDir = fresh();
    const first = await openDatabase({ dataDir });
    await sql`create table kept (v text)`.execute(first.db);
    await sql`insert into kept values ('still here')`.execute(first.db);
    await first.close();
    const again = await openDatabase({ dataDir });
    try {
      expect((await sql<{ v: string }>`select v from kept`.execute(again.db)).rows).toEqual([{ v: 'still here' }]);
    } finally {
      await again.close();
    }
  }, 120_000);
});
