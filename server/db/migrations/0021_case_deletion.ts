/**
 * Retention (issue 15): what is left of a case deleted when its retention period
 * ended. No personal data and nothing sealed: a keyed hash of the case number (so
 * an operator who is given a number can tell it was deleted, and nobody can list
 * the numbers), the channel and the dates.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('case_deletion')
    .addColumn('id', 'integer', (c) => c.generatedAlwaysAsIdentity().primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('case_number_hash', 'text', (c) => c.notNull().unique())
    .addColumn('submission_type', 'text', (c) => c.notNull())
    .addColumn('creation_channel', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('created_on', 'date', (c) => c.notNull())
    .addColumn('closed_on', 'date')
    .addColumn('deleted_at', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('case_deletion').ifExists().execute();
}
