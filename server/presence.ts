/**
 * Each server process keeps a row in `server_process` fresh while it runs and removes
 * it when it stops. PGlite admits one process anyway; on PostgreSQL this is how a
 * command that needs every server stopped (`npm run keys -- rotate-master`) sees the
 * processes on other machines, which DATA_DIR/server.json cannot show.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { sql } from 'kysely';
import type { Database } from './db/database.ts';

/** How often a process refreshes its row, and after how long a row counts as dead. */
export const HEARTBEAT_MS = 10_000;
export const STALE_AFTER_MS = 3 * HEARTBEAT_MS;

export class Presence {
  readonly id = randomUUID();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly db: Database,
    private readonly onError: (err: unknown) => void,
  ) {}

  async start(): Promise<void> {
    // Rows of processes that died without stopping (a crash, SIGKILL) are swept by the next start.
    await this.db.deleteFrom('server_process').where(sql<boolean>`seen_at < now() - interval '1 day'`).execute();
    await this.db.insertInto('server_process').values({ id: this.id, hostname: os.hostname(), pid: process.pid }).execute();
    this.timer = setInterval(() => {
      this.db
        .updateTable('server_process')
        .set({ seen_at: sql`now()` })
        .where('id', '=', this.id)
        .execute()
        .catch(this.onError);
    }, HEARTBEAT_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.db.deleteFrom('server_process').where('id', '=', this.id).execute().catch(this.onError);
  }
}

/** Server processes seen recently on this database (rows of dead ones age out). */
export async function runningServers(db: Database): Promise<{ hostname: string; pid: number }[]> {
  return db
    .selectFrom('server_process')
    .select(['hostname', 'pid'])
    .where(sql<boolean>`seen_at > now() - make_interval(secs => ${STALE_AFTER_MS / 1000})`)
    .orderBy('started_at')
    .execute();
}
