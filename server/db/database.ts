/**
 * One Kysely handle over PGlite (embedded default, ./data/db) or PostgreSQL
 * (DATABASE_URL). Migrations run at start-up, so a fresh data folder and an empty
 * PostgreSQL database both come up ready.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Kysely, Migrator, PostgresDialect, type Dialect } from 'kysely';
import { PGlite } from '@electric-sql/pglite';
import { PGliteDialect } from 'kysely-pglite-dialect';
import type PgModule from 'pg';
import type { DB } from './schema.ts';
import { migrations } from './migrations/index.ts';
import { watchWrites, type WriteWatch } from './write-watch.ts';

export type Database = Kysely<DB>;

export const PGLITE_SHARED_BUFFERS = '16MB';
const PGLITE_DEFAULTS = (PGlite as unknown as { defaultStartParams?: string[] }).defaultStartParams;

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
  /**
   * Calls `onNotify` for every notification on `channel` (PostgreSQL LISTEN; PGlite's
   * own listener). `onState(false)` says notifications may be missed (the listening
   * connection is gone; it is re-opened), `onState(true)` that they arrive again.
   * Resolves with a function that stops listening.
   */
  listen(channel: string, onNotify: (payload: string) => void, onState?: (live: boolean) => void): Promise<() => Promise<void>>;
  /** This process's own writes to the named tables, reported at once (server/db/write-watch.ts). */
  watchWrites: WriteWatch['watch'];
}

export async function openDatabase(opts: OpenDatabaseOptions): Promise<OpenedDatabase> {
  let dialect: Dialect;
  let kind: OpenedDatabase['kind'];
  let pgliteDir: string | undefined;
  let listen: OpenedDatabase['listen'];
  if (opts.databaseUrl) {
    const url = opts.databaseUrl;
    // The driver is loaded only for PostgreSQL: the embedded default never needs it,
    // and every module loaded at start stays in the idle server's memory.
    const { default: pg } = await import('pg');
    listen = (channel, onNotify, onState) => listenPostgres(pg, url, channel, onNotify, onState);
    kind = 'postgres';
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    // An idle client's connection can die (database restart, admin termination).
    // Without a listener pg re-emits that as an uncaught error and the process
    // exits; the pool already discards the client, so noting it is enough.
    pool.on('error', (err) => opts.onPoolError?.(err));
    // The same for a client checked out between two statements (a transaction doing
    // its sealing, the job runner holding its advisory lock): the server's
    // "terminating connection" on a restart came as an unhandled 'error' and ended the
    // process (the soak, test/server/soak.test.ts). The statement that follows fails,
    // and the pool drops the client on its release (no longer queryable).
    pool.on('connect', (client) => client.on('error', (err) => opts.onPoolError?.(err)));
    dialect = new PostgresDialect({ pool });
  } else {
    kind = 'pglite';
    pgliteDir = path.join(opts.dataDir, 'db');
    // PGlite does not create the parent folder itself (STACK.md).
    mkdirSync(opts.dataDir, { recursive: true });
    // PostgreSQL's default 128 MB of shared buffers lives inside the WebAssembly
    // memory, which never shrinks: ~120 MB of the idle server's RSS. A portal's
    // working set is far smaller, and the operating system caches the files.
    // (A custom list replaces PGlite's own, so it extends them.)
    const startParams = PGLITE_DEFAULTS ? [...PGLITE_DEFAULTS, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`] : undefined;
    if (!opts.loadDataDir && !existsSync(path.join(pgliteDir, 'PG_VERSION'))) await createPGliteApart(pgliteDir, startParams);
    const pglite = await PGlite.create({
      dataDir: pgliteDir,
      ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
      ...(startParams ? { startParams } : {}),
    });
    dialect = new PGliteDialect(pglite);
    // One process, one connection: a notification is delivered with the answer to
    // the statement whose commit sent it, so nothing is ever missed.
    listen = async (channel, onNotify, onState) => {
      const stop = await pglite.listen(channel, (payload) => onNotify(payload));
      onState?.(true);
      return async () => {
        if (!pglite.closed) await stop();
      };
    };
  }
  const watched = watchWrites(dialect);
  const db = new Kysely<DB>({ dialect: watched.dialect });
  await migrate(db);
  return { db, kind, pgliteDir, close: () => db.destroy(), listen, watchWrites: watched.watch };
}

const INITDB_SCRIPT = fileURLToPath(new URL('./pglite-initdb.mjs', import.meta.url));

/**
 * A new data folder's initdb runs in a short-lived process of its own. In this one it
 * runs a second WebAssembly instance whose allocations stay behind in glibc's heap
 * after it is gone: the first start idled ≈ 40 MB above every later one (224 against
 * 181 MB, docs/decisions/performance.md). It writes to a folder beside the target
 * that is renamed into place only once the database is complete, so a start that was
 * cut off leaves no half-made database to open.
 */
async function createPGliteApart(pgliteDir: string, startParams: string[] | undefined): Promise<void> {
  const making = `${pgliteDir}.initdb`;
  rmSync(making, { recursive: true, force: true });
  try {
    // Nothing of the server's environment (a MASTER_KEY, DATABASE_URL, NODE_OPTIONS) is
    // handed to it: initdb needs none of it.
    await promisify(execFile)(process.execPath, [INITDB_SCRIPT, making, JSON.stringify(startParams ?? null)], { timeout: 300_000, env: {} });
  } catch (err) {
    rmSync(making, { recursive: true, force: true });
    const { stderr } = err as { stderr?: string };
    throw new Error(`creating the embedded database in ${pgliteDir} failed${stderr ? `: ${stderr.trim().split('\n').slice(-3).join(' ')}` : ''}`, { cause: err });
  }
  renameSync(making, pgliteDir);
}

/** A dedicated connection that LISTENs, re-opened after a loss (each loss reported through `onState`). */
async function listenPostgres(pg: typeof PgModule, url: string, channel: string, onNotify: (payload: string) => void, onState?: (live: boolean) => void): Promise<() => Promise<void>> {
  let stopped = false;
  let client: PgModule.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (!stopped) retry = setTimeout(() => void connect(), 1000);
  };
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    let dead = false;
    const lost = () => {
      if (dead) return;
      dead = true;
      if (client === c) client = undefined;
      onState?.(false);
      c.end().catch(() => undefined);
      schedule();
    };
    c.on('error', lost);
    c.on('end', lost);
    c.on('notification', (n) => {
      if (n.channel === channel) onNotify(n.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch {
      lost();
      return;
    }
    if (stopped) {
      await c.end().catch(() => undefined);
      return;
    }
    client = c;
    onState?.(true);
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const c = client;
    client = undefined;
    await c?.end().catch(() => undefined);
  };
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
