import { sql, type Kysely } from 'kysely';

/**
 * Running server processes, each refreshing its row every few seconds
 * (server/presence.ts), so a command that needs every server stopped (master-key
 * rotation) can see servers on other machines sharing this database.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('server_process')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('hostname', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('server_process').execute();
}
