import type { Kysely } from 'kysely';

/**
 * Every version of the handler's record of an oral or meeting report, sealed, with
 * the SHA-256 of its text and the time the reporter approved it, if they did
 * (docs/decisions/record-versions.md).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('case_record_version')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('case_id', 'uuid', (c) => c.notNull().references('report_case.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('text_enc', 'bytea', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('approved_at', 'timestamptz')
    .addUniqueConstraint('case_record_version_case_version', ['case_id', 'version'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('case_record_version').execute();
}
