import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/**
 * Reports a handler entered (issue 38 Build 8, docs/decisions/handler-entered-reports.md):
 * `report_case.entry_channel` names how the report reached the company (LETTER, EMAIL,
 * IN_PERSON) when a handler entered it; null for every case the reporter sent herself.
 * The case's submission type stays ONLINE_FORM (the same content and clocks as the form).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('report_case').addColumn('entry_channel', 'text').execute();
  await sql`alter table report_case add constraint report_case_entry_channel_check check (entry_channel is null or entry_channel in ('LETTER', 'EMAIL', 'IN_PERSON'))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('report_case').dropColumn('entry_channel').execute();
}
