/**
 * Copies every row of one portal database into another, empty one: the move from
 * the embedded PGlite to PostgreSQL (docs/operations.md "Switching to PostgreSQL").
 *
 * Rows travel as JSON (`row_to_json` out, `json_populate_recordset` in), so every
 * column type, bytea and jsonb included, goes through PostgreSQL's own text forms
 * and nothing is reinterpreted by a driver. Sealed columns are copied as they are:
 * the same master key opens them on the other side. Tables go parents first (by
 * their foreign keys), identity sequences are moved past the copied ids, and the
 * target is checked table by table to hold exactly the source's row counts.
 *
 * The files go too (`files`): every case file and unfinished upload of the source's
 * disk store becomes chunk rows of the target (FILE_STORE=postgres,
 * docs/decisions/file-store.md), in the same transaction as the rows, so the copy
 * has all of them or nothing. Files already in chunk rows travel with their table,
 * a few rows per statement.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './database.ts';
import type { FileStore } from '../files/store.ts';
import { PostgresFileStore } from '../files/pg-store.ts';

const BATCH = 500;
/** Chunk rows are up to 1 MiB each: a few per statement keeps the copy's memory small. */
const CHUNK_BATCH = 4;

/** A table's rows as JSON, in batches in key order. */
async function copyRows(source: AnyDb, target: AnyDb, table: string, order: ReturnType<typeof sql.join>): Promise<number> {
  let copied = 0;
  for (;;) {
    const { rows } = await sql<{ j: string }>`
      select row_to_json(t)::text as j from ${ident(table)} t order by ${order} limit ${BATCH} offset ${copied}`.execute(source);
    if (!rows.length) break;
    const json = `[${rows.map((r) => r.j).join(',')}]`;
    await sql`insert into ${ident(table)} overriding system value
      select * from json_populate_recordset(null::${ident(table)}, ${json}::json)`.execute(target);
    copied += rows.length;
    if (rows.length < BATCH) break;
  }
  return copied;
}

/** file_chunk, object by object and by position (an offset would read every skipped row's bytes again). */
async function copyChunks(source: AnyDb, target: AnyDb): Promise<number> {
  let copied = 0;
  const keys = (await source.selectFrom('file_object').select('key').orderBy('key').execute()) as { key: string }[];
  for (const { key } of keys) {
    let last = -1;
    for (;;) {
      const rows = (await source.selectFrom('file_chunk').select(['key', 'pos', 'data']).where('key', '=', key).where('pos', '>', last).orderBy('pos').limit(CHUNK_BATCH).execute()) as { key: string; pos: string | number; data: Uint8Array }[];
      if (!rows.length) break;
      await target.insertInto('file_chunk').values(rows).execute();
      copied += rows.length;
      last = Number(rows[rows.length - 1]!.pos);
    }
  }
  return copied;
}
// server_process: rows of processes on the source, meaningless on the target.
const SKIP = new Set(['kysely_migration', 'kysely_migration_lock', 'server_process']);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export class CopyRefused extends Error {}

const ident = (name: string) => sql.id(name);

async function tables(db: AnyDb): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind = 'r' order by c.relname`.execute(db);
  return rows.map((r) => r.name).filter((n) => !SKIP.has(n));
}

/** Parents before children, so every foreign key finds its row. */
async function inDependencyOrder(db: AnyDb, names: string[]): Promise<string[]> {
  const { rows } = await sql<{ child: string; parent: string }>`
    select cc.relname as child, pc.relname as parent from pg_constraint k
    join pg_class cc on cc.oid = k.conrelid join pg_class pc on pc.oid = k.confrelid
    join pg_namespace n on n.oid = cc.relnamespace
    where k.contype = 'f' and n.nspname = current_schema()`.execute(db);
  const parents = new Map(names.map((n) => [n, new Set<string>()]));
  for (const r of rows) if (r.child !== r.parent) parents.get(r.child)?.add(r.parent);
  const order: string[] = [];
  const visiting = new Set<string>();
  const visit = (n: string) => {
    if (order.includes(n)) return;
    if (visiting.has(n)) throw new Error(`foreign keys form a cycle through ${n}`);
    visiting.add(n);
    for (const p of parents.get(n) ?? []) if (parents.has(p)) visit(p);
    visiting.delete(n);
    order.push(n);
  };
  for (const n of names) visit(n);
  return order;
}

async function primaryKey(db: AnyDb, table: string): Promise<string[]> {
  const { rows } = await sql<{ col: string }>`
    select a.attname as col from pg_index i
    join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
    where i.indrelid = ${table}::regclass and i.indisprimary order by array_position(i.indkey, a.attnum)`.execute(db);
  return rows.map((r) => r.col);
}

async function count(db: AnyDb, table: string): Promise<number> {
  const { rows } = await sql<{ n: string | number }>`select count(*) as n from ${ident(table)}`.execute(db);
  return Number(rows[0]!.n);
}

export interface CopyReport {
  tables: { name: string; rows: number }[];
  /** Objects moved from the source's disk store into chunk rows, and their bytes. */
  files: { objects: number; bytes: number };
}

/**
 * Every object the rows of `db` name (case files and unfinished uploads) that is in
 * `from` and not yet in `db`'s chunk rows, written into them. A case file that is in
 * neither is an error: the copy would serve a case without its file.
 */
export async function importFiles(db: Database, from: FileStore): Promise<{ objects: number; bytes: number }> {
  const to = new PostgresFileStore(db);
  const have = new Set((await db.selectFrom('file_object').select('key').execute()).map((r) => r.key));
  const files = (await db.selectFrom('case_file').select('storage_key').orderBy('storage_key').execute()).map((r) => r.storage_key);
  const uploads = (await db.selectFrom('file_upload').select('id').orderBy('id').execute()).map((r) => r.id);
  let objects = 0;
  let bytes = 0;
  for (const key of files) {
    if (have.has(key)) continue;
    try {
      bytes += await to.importObject(key, 'final', from.get(key));
    } catch (err) {
      if ((err as { code?: string }).code === 'ENOENT') throw new CopyRefused(`the file ${key} of a case is not in the file store: is FILES_DIR the folder the portal used?`);
      throw err;
    }
    objects++;
  }
  for (const key of uploads) {
    if (have.has(key) || !(await from.uploadSize(key))) continue;
    bytes += await to.importObject(key, 'upload', from.readUpload(key));
    objects++;
  }
  return { objects, bytes };
}

export async function copyDatabase(source: AnyDb, target: AnyDb, opts: { files?: FileStore } = {}): Promise<CopyReport> {
  const names = await inDependencyOrder(source, await tables(source));
  const targetNames = new Set(await tables(target));
  const missing = names.filter((n) => !targetNames.has(n));
  if (missing.length) throw new CopyRefused(`the target lacks the tables ${missing.join(', ')}: is it on an older version?`);
  for (const n of targetNames) {
    if ((await count(target, n)) > 0) throw new CopyRefused(`the target is not empty (table ${n} has rows): copy only into a new database`);
  }

  const report: CopyReport = { tables: [], files: { objects: 0, bytes: 0 } };
  await target.transaction().execute(async (trx) => {
    for (const table of names) {
      const key = await primaryKey(source, table);
      const order = key.length ? sql.join(key.map(ident)) : sql`ctid`;
      const copied = table === 'file_chunk' ? await copyChunks(source, trx) : await copyRows(source, trx, table, order);
      // Identity columns continue after the copied ids.
      const { rows: identities } = await sql<{ col: string }>`
        select column_name as col from information_schema.columns
        where table_schema = current_schema() and table_name = ${table} and is_identity = 'YES'`.execute(trx);
      for (const { col } of identities) {
        await sql`select setval(pg_get_serial_sequence(${table}, ${col}), coalesce((select max(${ident(col)}) from ${ident(table)}), 0) + 1, false)`.execute(trx);
      }
      const landed = await count(trx, table);
      const expected = await count(source, table);
      if (landed !== expected) throw new Error(`table ${table}: ${landed} rows arrived of ${expected}`);
      report.tables.push({ name: table, rows: landed });
    }
    if (opts.files) report.files = await importFiles(trx as unknown as Database, opts.files);
  });
  return report;
}
