import type { Kysely } from 'kysely';

/**
 * Resumable (tus) uploads (docs/decisions/resumable-uploads.md). Upload state lives
 * here, not in memory, so an upload survives a server restart:
 * - `upload_session`: what one solved proof-of-work buys: the case id and data key
 *   (wrapped by the master key, exactly as report_case.wrapped_key) the future case
 *   will have, and a SHA-256 of the session secret (the secret itself is never
 *   stored: a database copy cannot be used to attach uploads);
 * - `file_upload`: one file being received: its sealed name, declared length, the
 *   offset received so far, the sealed plaintext tail not yet filling a 64 KiB chunk,
 *   and, once complete, the checked content type.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('upload_session')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('secret_hash', 'bytea', (c) => c.notNull())
    .addColumn('case_id', 'uuid', (c) => c.notNull().unique())
    .addColumn('wrapped_key', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('touched_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('upload_session_touched_at').on('upload_session').column('touched_at').execute();
  await db.schema
    .createTable('file_upload')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('session_id', 'uuid', (c) => c.notNull().references('upload_session.id').onDelete('cascade'))
    .addColumn('name_enc', 'bytea', (c) => c.notNull())
    .addColumn('length', 'bigint', (c) => c.notNull())
    .addColumn('offset', 'bigint', (c) => c.notNull())
    .addColumn('tail_enc', 'bytea')
    .addColumn('file_header', 'bytea', (c) => c.notNull())
    .addColumn('mime_type', 'text')
    .addColumn('metadata_remaining', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('file_upload_session').on('file_upload').column('session_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('file_upload').execute();
  await db.schema.dropTable('upload_session').execute();
}
