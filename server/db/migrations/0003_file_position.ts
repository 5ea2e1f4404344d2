import type { Kysely } from 'kysely';

/** Files keep the order they were sent in (several share one created_at). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('case_file').addColumn('position', 'smallint', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('case_file').dropColumn('position').execute();
}
