import { sql, type Kysely } from 'kysely';

/**
 * Limits on uploads that hold under parallel requests and count bytes (issue 36,
 * finding 2; docs/decisions/resumable-uploads.md "Limits"):
 * - `upload_session.company_id`: the company whose host made the session; it is used
 *   at that company only (finding 6). A reporter's session (bound to a case) takes
 *   its case's company; an anonymous session made before this migration has none and
 *   is refused everywhere until the sweep takes it.
 * - `upload_quota`: bytes per keyed hash of a client address (never the address) in
 *   a 24-hour window, counted up by one conditional upsert, so the daily quota holds
 *   across parallel requests and server processes.
 * - indexes for the sweep, which now goes by a session's creation and an upload's
 *   last bytes rather than a session's last activity.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('upload_session')
    .addColumn('company_id', 'text', (c) => c.references('company.id').onDelete('cascade'))
    .execute();
  await sql`update upload_session set company_id = report_case.company_id from report_case where upload_session.bound_case_id = report_case.id`.execute(db);
  await db.schema.createIndex('upload_session_created_at').on('upload_session').column('created_at').execute();
  await db.schema.createIndex('file_upload_updated_at').on('file_upload').column('updated_at').execute();
  await db.schema
    .createTable('upload_quota')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('reset_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('upload_quota_reset_at').on('upload_quota').column('reset_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('upload_quota').execute();
  await db.schema.dropIndex('file_upload_updated_at').execute();
  await db.schema.dropIndex('upload_session_created_at').execute();
  await db.schema.alterTable('upload_session').dropColumn('company_id').execute();
}
