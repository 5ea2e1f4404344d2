import type { Kysely } from 'kysely';

/**
 * Reply templates (issue 38 Build 7, docs/decisions/reply-templates.md): a company's
 * configuration, not case content, so kept in clear like the company file. One row per
 * template: its name and one text per language of the company (`texts`, language code →
 * text). `position` keeps the order the administrator made them in.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('reply_template')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('company.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('texts', 'jsonb', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('reply_template_company_idx').on('reply_template').columns(['company_id', 'position']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('reply_template').execute();
}
