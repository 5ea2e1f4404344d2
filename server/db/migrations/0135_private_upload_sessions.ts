import { sql, type Kysely } from 'kysely';

/**
 * Upload sessions of a signed-in reporter (docs/decisions/resumable-uploads.md,
 * "Files with a private message"): a session bound to an existing case, whose uploads
 * a message of that case takes. `bound_case_id` names that case (and equals
 * `case_id`); null for the anonymous session of a case still to come. A case may have
 * many bound sessions (one per message with files), so `case_id` stays unique only
 * among the anonymous ones. A deleted case takes its sessions and uploads with it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('upload_session')
    .addColumn('bound_case_id', 'uuid', (c) => c.references('report_case.id').onDelete('cascade'))
    .execute();
  await db.schema.alterTable('upload_session').dropConstraint('upload_session_case_id_key').execute();
  await sql`create unique index upload_session_new_case on upload_session (case_id) where bound_case_id is null`.execute(db);
  await db.schema.createIndex('upload_session_bound_case').on('upload_session').column('bound_case_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('upload_session').where('bound_case_id', 'is not', null).execute();
  await db.schema.dropIndex('upload_session_bound_case').execute();
  await db.schema.dropIndex('upload_session_new_case').execute();
  await db.schema.alterTable('upload_session').addUniqueConstraint('upload_session_case_id_key', ['case_id']).execute();
  await db.schema.alterTable('upload_session').dropColumn('bound_case_id').execute();
}
