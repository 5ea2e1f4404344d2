/**
 * A store for @fastify/rate-limit on the project's database (PGlite or PostgreSQL),
 * so the budgets hold across every server process on one PostgreSQL. One row per
 * key, counted up in a single atomic upsert that also starts a new window when the
 * old one has ended. Keys are `<bucket>:<keyed hash>`; no client address is stored.
 */
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';

type Callback = (err: Error | null, res?: { current: number; ttl: number }) => void;

export interface RateLimitStore {
  incr(key: string, cb: Callback, timeWindow: number, max: number): void;
  read(key: string, cb: Callback, timeWindow: number, max: number): void;
  child(routeOptions: unknown): RateLimitStore;
}

/** The store class @fastify/rate-limit instantiates (`new Store(globalParams)`), bound to a database. */
export function databaseRateLimitStore(db: Database) {
  let calls = 0;
  async function incr(key: string, windowMs: number): Promise<{ current: number; ttl: number }> {
    const row = await sql<{ count: number; ttl: number }>`
      INSERT INTO rate_limit (key, count, reset_at)
      VALUES (${key}, 1, now() + make_interval(secs => ${windowMs / 1000}))
      ON CONFLICT (key) DO UPDATE SET
        count = CASE WHEN rate_limit.reset_at <= now() THEN 1 ELSE rate_limit.count + 1 END,
        reset_at = CASE WHEN rate_limit.reset_at <= now() THEN excluded.reset_at ELSE rate_limit.reset_at END
      RETURNING count, (extract(epoch FROM (reset_at - now())) * 1000)::float8 AS ttl`.execute(db);
    const r = row.rows[0]!;
    // Ended windows are cleared now and then, so the table stays small.
    if (++calls % 200 === 0) await db.deleteFrom('rate_limit').where('reset_at', '<', sql<Date>`now()`).execute();
    return { current: Number(r.count), ttl: Math.max(0, Math.ceil(Number(r.ttl))) };
  }
  async function read(key: string): Promise<{ current: number; ttl: number }> {
    const r = await sql<{ count: number; ttl: number }>`
      SELECT count, (extract(epoch FROM (reset_at - now())) * 1000)::float8 AS ttl FROM rate_limit WHERE key = ${key} AND reset_at > now()`.execute(db);
    const row = r.rows[0];
    return row ? { current: Number(row.count), ttl: Math.ceil(Number(row.ttl)) } : { current: 0, ttl: 0 };
  }
  class DatabaseStore implements RateLimitStore {
    incr(key: string, cb: Callback, timeWindow: number) {
      incr(key, timeWindow).then((r) => cb(null, r), (err: Error) => cb(err));
    }
    read(key: string, cb: Callback) {
      read(key).then((r) => cb(null, r), (err: Error) => cb(err));
    }
    child() {
      return new DatabaseStore();
    }
  }
  return DatabaseStore;
}
