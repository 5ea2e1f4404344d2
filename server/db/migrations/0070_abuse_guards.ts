import type { Kysely } from 'kysely';

/**
 * Shared state of the abuse guards (docs/decisions/submission-abuse.md), in the
 * database so several server processes on one PostgreSQL agree:
 * - `rate_limit`: one counter per bucket and keyed hash of a client address (never
 *   the address), reset when its window ends;
 * - `pow_spent`: the proof-of-work challenges already used, kept until they expire,
 *   so a solved challenge pays for one submission only.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rate_limit')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('reset_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_limit_reset_at').on('rate_limit').column('reset_at').execute();
  await db.schema
    .createTable('pow_spent')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pow_spent_expires_at').on('pow_spent').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('pow_spent').execute();
  await db.schema.dropTable('rate_limit').execute();
}
