import type { Kysely } from 'kysely';

/**
 * Files of internal notes (issue 38 Build 1, docs/decisions/internal-notes.md "Files"):
 * a case file that belongs to a note of its case rather than to the report or a message.
 * Stored, sealed, downloaded and deleted as every case file (the one file store, the one
 * purge); only `note_id` sets it apart, and every reporter read of case_file takes the
 * rows where it is null (server/cases/service.ts loadCaseView, sealed.ts sealedCaseView,
 * server/routes/files.ts sendCaseFile, server/uploads/quotas.ts caseBytes).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('case_file').addColumn('note_id', 'uuid', (c) => c.references('case_note.id').onDelete('cascade')).execute();
  await db.schema.createIndex('case_file_note_idx').on('case_file').column('note_id').where('note_id', 'is not', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('case_file_note_idx').execute();
  await db.schema.alterTable('case_file').dropColumn('note_id').execute();
}
