import type { Kysely } from 'kysely';

/**
 * The author of each version of an oral report's record (issue 38, docs/decisions/record-versions.md
 * "Authors and conflicts"): the handler account that saved it. Null for a version written
 * before authors were kept, and after the account's deletion (the version and its hash
 * stay; only the name goes).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('case_record_version').addColumn('created_by', 'uuid', (c) => c.references('handler_account.id').onDelete('set null')).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('case_record_version').dropColumn('created_by').execute();
}
