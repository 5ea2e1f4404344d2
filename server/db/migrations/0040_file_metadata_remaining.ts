import type { Kysely } from 'kysely';

/**
 * What hidden data the server still found in a received image or PDF
 * (docs/decisions/metadata-removal.md): a JSON array of kinds (no values), or null
 * when the file was not checked.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('case_file').addColumn('metadata_remaining', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('case_file').dropColumn('metadata_remaining').execute();
}
