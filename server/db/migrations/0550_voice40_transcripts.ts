import { sql, type Kysely } from 'kysely';

/**
 * A transcript of a voice message is a record (issue 40 item 5, docs/decisions/voice-messages.md
 * "Transcript", record-versions.md "Subjects"): its versions are rows of
 * `case_record_version` and the reporter's comments on it rows of `case_comment`, each
 * naming the voice file it is of (`file_id`); null is the oral report's record, as before.
 * Version numbers count per subject: the one record of a case and one per voice file.
 * The transcript goes with its file (`on delete cascade`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('case_record_version').addColumn('file_id', 'uuid', (c) => c.references('case_file.id').onDelete('cascade')).execute();
  await db.schema.alterTable('case_comment').addColumn('file_id', 'uuid', (c) => c.references('case_file.id').onDelete('cascade')).execute();
  await db.schema.alterTable('case_record_version').dropConstraint('case_record_version_case_version').execute();
  await sql`create unique index case_record_version_record on case_record_version (case_id, version) where file_id is null`.execute(db);
  await sql`create unique index case_record_version_transcript on case_record_version (file_id, version) where file_id is not null`.execute(db);
  await db.schema.createIndex('case_comment_file').on('case_comment').column('file_id').where(sql.ref('file_id'), 'is not', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('case_record_version').where('file_id', 'is not', null).execute();
  await db.deleteFrom('case_comment').where('file_id', 'is not', null).execute();
  await sql`drop index case_record_version_transcript`.execute(db);
  await sql`drop index case_record_version_record`.execute(db);
  await db.schema.dropIndex('case_comment_file').execute();
  await db.schema.alterTable('case_record_version').addUniqueConstraint('case_record_version_case_version', ['case_id', 'version']).execute();
  await db.schema.alterTable('case_comment').dropColumn('file_id').execute();
  await db.schema.alterTable('case_record_version').dropColumn('file_id').execute();
}
