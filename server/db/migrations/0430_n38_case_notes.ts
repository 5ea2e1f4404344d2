import type { Kysely } from 'kysely';

/**
 * Internal notes (issue 38 Build 1, docs/decisions/internal-notes.md): what the case's
 * handlers write for each other and the reporter never sees. One row per note, its
 * current text sealed in `body_enc` (a sealed case: the envelope the handler's browser
 * made under the case's data key of `epoch`; a server-keyed case: sealed by the server
 * under the case's key), bound to `<note id>:<version>`. `version` counts saves; a save
 * names the version it was written over, so two handlers never overwrite each other.
 * Author and last editor are kept with their names as they were, so a deleted account
 * still names who wrote.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('case_note')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('case_id', 'uuid', (c) => c.notNull().references('report_case.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('body_enc', 'bytea', (c) => c.notNull())
    .addColumn('epoch', 'integer')
    .addColumn('author_id', 'uuid', (c) => c.references('handler_account.id').onDelete('set null'))
    .addColumn('author_name', 'text', (c) => c.notNull())
    .addColumn('edited_by_id', 'uuid', (c) => c.references('handler_account.id').onDelete('set null'))
    .addColumn('edited_by_name', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('case_note_case_idx').on('case_note').columns(['case_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('case_note').execute();
}
