import { sql, type Kysely } from 'kysely';

/**
 * The file store in the database (FILE_STORE=postgres, docs/decisions/file-store.md):
 * - `file_object`: one stored object (a sealed case file, a resumable upload, or a
 *   temporary still being written) and its state. Only a `final` object is ever read
 *   as a case file; `size` is set when it becomes final, so a read that ends short
 *   is an error, never a shorter file.
 * - `file_chunk`: the object's bytes in rows of up to 1 MiB, keyed by the byte
 *   offset of their first byte (`pos`), read in order of that key.
 * The bytes are sealed already (server/crypto/case-crypto.ts): compressing them
 * gains nothing, so their column is stored out of line uncompressed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('file_object')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('temp', 'upload', 'final')`))
    .addColumn('size', 'bigint')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('file_object_state_updated_at').on('file_object').columns(['state', 'updated_at']).execute();
  await db.schema
    .createTable('file_chunk')
    .addColumn('key', 'text', (c) => c.notNull().references('file_object.key').onDelete('cascade'))
    .addColumn('pos', 'bigint', (c) => c.notNull())
    .addColumn('data', 'bytea', (c) => c.notNull())
    .addPrimaryKeyConstraint('file_chunk_pk', ['key', 'pos'])
    .execute();
  await sql`alter table file_chunk alter column data set storage external`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('file_chunk').execute();
  await db.schema.dropTable('file_object').execute();
}
