/**
 * Tells the process, at once, when one of its own statements has changed rows of
 * the tables it keeps in memory (the case view and token caches,
 * server/cases/view-cache.ts): a Kysely dialect around the real one that looks at
 * every statement it sends.
 *
 * Why not only NOTIFY: on PostgreSQL a notification reaches this process's listening
 * connection some time after the commit, and a reader must see a write the moment
 * the writer's answer has gone out. Here the watchers are called after the write
 * statement, again after its transaction commits, and again when its connection is
 * released (covers hand-written `begin`/`commit`), so no read that starts after the
 * commit can find the old copy. A watcher called too often costs a reload; once too
 * few would serve stale data, so anything that is not a plain SELECT and names a
 * watched table counts.
 */
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, Kysely, QueryResult, TransactionSettings } from 'kysely';

export type WriteWatcher = () => void;

const READ_ONLY = /^\s*(select|show|explain|listen|unlisten|set\s+(local\s+)?\w+\s*(=|to))\b/i;

class WatchedConnection implements DatabaseConnection {
  dirty = false;
  constructor(
    readonly inner: DatabaseConnection,
    private readonly touches: (sql: string) => boolean,
    private readonly notify: () => void,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const write = !READ_ONLY.test(query.sql) && this.touches(query.sql);
    if (write) this.dirty = true;
    try {
      return await this.inner.executeQuery<R>(query);
    } finally {
      if (write) this.notify();
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    if (!READ_ONLY.test(query.sql) && this.touches(query.sql)) {
      this.dirty = true;
      this.notify();
    }
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

class WatchedDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly touches: (sql: string) => boolean,
    private readonly notify: () => void,
  ) {}
  init() {
    return this.inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    return new WatchedConnection(await this.inner.acquireConnection(), this.touches, this.notify);
  }
  beginTransaction(c: DatabaseConnection, settings: TransactionSettings) {
    return this.inner.beginTransaction((c as WatchedConnection).inner, settings);
  }
  async commitTransaction(c: DatabaseConnection) {
    try {
      await this.inner.commitTransaction((c as WatchedConnection).inner);
    } finally {
      if ((c as WatchedConnection).dirty) this.notify();
    }
  }
  rollbackTransaction(c: DatabaseConnection) {
    return this.inner.rollbackTransaction((c as WatchedConnection).inner);
  }
  async releaseConnection(c: DatabaseConnection) {
    const w = c as WatchedConnection;
    if (w.dirty) {
      w.dirty = false;
      this.notify();
    }
    return this.inner.releaseConnection(w.inner);
  }
  destroy() {
    return this.inner.destroy();
  }
}

/** The dialect's savepoint methods are optional; passed through only where the real driver has them. */
function withSavepoints(d: WatchedDriver, inner: Driver): Driver {
  const out = d as Driver;
  const unwrap = (c: DatabaseConnection) => (c as WatchedConnection).inner;
  if (inner.savepoint) out.savepoint = (c, n, q) => inner.savepoint!(unwrap(c), n, q);
  if (inner.rollbackToSavepoint) out.rollbackToSavepoint = (c, n, q) => inner.rollbackToSavepoint!(unwrap(c), n, q);
  if (inner.releaseSavepoint) out.releaseSavepoint = (c, n, q) => inner.releaseSavepoint!(unwrap(c), n, q);
  return out;
}

export interface WriteWatch {
  dialect: Dialect;
  /** Calls `watcher` after every own write that names one of `tables`; returns a function that stops it. */
  watch(tables: readonly string[], watcher: WriteWatcher): () => void;
}

export function watchWrites(inner: Dialect): WriteWatch {
  const watchers = new Set<{ pattern: RegExp; watcher: WriteWatcher }>();
  const touches = (sql: string) => {
    for (const w of watchers) if (w.pattern.test(sql)) return true;
    return false;
  };
  // Commit and release do not know which statement made the connection dirty: every watcher hears a write.
  const notify = () => {
    for (const w of watchers) w.watcher();
  };
  const dialect: Dialect = {
    createAdapter: () => inner.createAdapter(),
    createIntrospector: (db: Kysely<any>) => inner.createIntrospector(db),
    createQueryCompiler: () => inner.createQueryCompiler(),
    createDriver: () => {
      const driver = inner.createDriver();
      return withSavepoints(new WatchedDriver(driver, touches, notify), driver);
    },
  };
  return {
    dialect,
    watch(tables, watcher) {
      const entry = { pattern: new RegExp(`\\b(${tables.map((t) => t.replace(/\W/g, '')).join('|')})\\b`, 'i'), watcher };
      watchers.add(entry);
      return () => void watchers.delete(entry);
    },
  };
}
