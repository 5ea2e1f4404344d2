import type { Kysely } from 'kysely';

/**
 * Assignment, sharing and sittings (issue 38, docs/decisions/handler-everyday-work.md):
 * - `report_case.assignee_id`: the handler who runs the case, among those entitled to it
 *   (server/handlers/cases.ts `visibleCases`); null while unassigned. An account's
 *   deletion leaves the case unassigned.
 * - `case_share`: colleagues a case is shared with, beside the assignee.
 * - `handler_case_sitting`: which sitting (a workspace session, or an API token on one UTC
 *   day) already wrote "opened the case", so a sitting writes it once, not once per reload.
 *   Kept no longer than a session can last (server/handlers/auth.ts sweep).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('report_case').addColumn('assignee_id', 'uuid', (c) => c.references('handler_account.id').onDelete('set null')).execute();
  await db.schema.createIndex('report_case_assignee_idx').on('report_case').columns(['assignee_id']).execute();
  await db.schema
    .createTable('case_share')
    .addColumn('case_id', 'uuid', (c) => c.notNull().references('report_case.id').onDelete('cascade'))
    .addColumn('handler_id', 'uuid', (c) => c.notNull().references('handler_account.id').onDelete('cascade'))
    .addColumn('shared_by', 'uuid', (c) => c.references('handler_account.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('case_share_pk', ['case_id', 'handler_id'])
    .execute();
  await db.schema.createIndex('case_share_handler_idx').on('case_share').columns(['handler_id']).execute();
  await db.schema
    .createTable('handler_case_sitting')
    .addColumn('sitting', 'text', (c) => c.notNull())
    .addColumn('case_id', 'uuid', (c) => c.notNull().references('report_case.id').onDelete('cascade'))
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('handler_case_sitting_pk', ['sitting', 'case_id'])
    .execute();
  await db.schema.createIndex('handler_case_sitting_at_idx').on('handler_case_sitting').columns(['at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('handler_case_sitting').execute();
  await db.schema.dropTable('case_share').execute();
  await db.schema.alterTable('report_case').dropColumn('assignee_id').execute();
}
