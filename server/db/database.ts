/**
 * One Kysely handle over PGlite (embedded default, ./data/db) or PostgreSQL
 * (DATABASE_URL). Migrations run at start-up, so a fresh data folder and an empty
 * PostgreSQL database both come up ready.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Kysely, Migrator, PostgresDialect, type Dialect } from 'kysely';
import { PGlite } from '@electric-sql/pglite';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import type { DB } from './schema.ts';
import { migrations } from './migrations/index.ts';

export type Database = Kysely<DB>;

export interface OpenDatabaseOptions {
  dataDir: string;
  databaseUrl?: string;
  /** A PGlite dump to start from (tests clone one migrated template per test file). */
  loadDataDir?: Blob | File;
  onPoolError?: (err: Error) => void;
}

export interface OpenedDatabase {
  db: Database;
  kind: 'pglite' | 'postgres';
  /** Only set for PGlite: where the raw data lives (the encryption test scans it). */
  pgliteDir?: string;
  close(): Promise<void>;
}

export async function openDatabase(opts: OpenDatabaseOptions): Promise<OpenedDatabase> {
  let dialect: Dialect;
  let kind: OpenedDatabase['kind'];
  let pgliteDir: string | undefined;
  if (opts.databaseUrl) {
    kind = 'postgres';
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    // An idle client's connection can die (database restart, admin termination).
    // Without a listener pg re-emits that as an uncaught error and the process
    // exits; the pool already discards the client, so noting it is enough.
    pool.on('error', (err) => opts.onPoolError?.(err));
    dialect = new PostgresDialect({ pool });
  } else {
    kind = 'pglite';
    pgliteDir = path.join(opts.dataDir, 'db');
    // PGlite does not create the parent folder itself (STACK.md).
    mkdirSync(opts.dataDir, { recursive: true });
    const pglite = await PGlite.create({ dataDir: pgliteDir, ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}) });
    dialect = new PGliteDialect(pglite);
  }
  const db = new Kysely<DB>({ dialect });
  await migrate(db);
  return { db, kind, pgliteDir, close: () => db.destroy() };
}

export async function migrate(db: Database): Promise<void> {
  // Core (0002–0099) and identity (0100–0199) migrations are numbered in separate
  // ranges, so a new core migration may sort before an applied identity one.
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}
