/**
 * The core tables: companies (tenants) with their host names and images, cases
 * with their status history, messages, files and comments, reporters' follow
 * accounts and handler accounts (docs/architecture.md "Data model").
 *
 * Columns ending in `_enc` hold AES-256-GCM ciphertext sealed with the case's own
 * data key (server/crypto); `wrapped_key` is that data key wrapped by the master key.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('company')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('default_language', 'text', (c) => c.notNull())
    .addColumn('settings', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('company_host')
    .addColumn('host', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('company.id').onDelete('cascade'))
    .execute();

  await db.schema
    .createTable('company_asset')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('company.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bytea', (c) => c.notNull())
    .addUniqueConstraint('company_asset_kind_name', ['company_id', 'kind', 'name'])
    .execute();

  await db.schema
    .createTable('report_case')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('company.id'))
    .addColumn('case_number', 'text', (c) => c.notNull().unique())
    .addColumn('submission_type', 'text', (c) => c.notNull())
    .addColumn('creation_channel', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('approved_at', 'timestamptz')
    .addColumn('pending_whistleblower_action', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('protection_officer_id', 'text', (c) => c.notNull())
    .addColumn('subsidiary_id', 'text')
    .addColumn('wrapped_key', 'bytea', (c) => c.notNull())
    .addColumn('details_enc', 'bytea', (c) => c.notNull())
    .addColumn('whistleblower_enc', 'bytea')
    .addColumn('report_enc', 'bytea')
    .addColumn('report_updated_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('report_case_company').on('report_case').columns(['company_id', 'created_at']).execute();

  await db.schema
    .createTable('case_status_event')
    .addColumn('id', 'integer', (c) => c.generatedAlwaysAsIdentity().primaryKey())
    .addColumn('case_id', 'uuid', (c) => c.notNull().references('report_case.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('case_status_event_case').on('case_status_event').column('case_id').execute();

  await db.schema
    .createTable('case_message')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('case_id', 'uuid', (c) => c.notNull().references('report_case.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('body_enc', 'bytea', (c) => c.notNull())
    .addColumn('answer_wanted', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema.createIndex('case_message_case').on('case_message').columns(['case_id', 'created_at']).execute();

  await db.schema
    .createTable('case_file')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('case_id', 'uuid', (c) => c.notNull().references('report_case.id').onDelete('cascade'))
    .addColumn('message_id', 'uuid', (c) => c.references('case_message.id').onDelete('cascade'))
    .addColumn('name_enc', 'bytea', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('case_file_case').on('case_file').column('case_id').execute();

  await db.schema
    .createTable('case_comment')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('case_id', 'uuid', (c) => c.notNull().references('report_case.id').onDelete('cascade'))
    .addColumn('body_enc', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('case_comment_case').on('case_comment').column('case_id').execute();

  await db.schema
    .createTable('case_account')
    .addColumn('case_id', 'uuid', (c) => c.primaryKey().references('report_case.id').onDelete('cascade'))
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_login_at', 'timestamptz')
    .addColumn('must_change_password', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();

  await db.schema
    .createTable('handler_account')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('company.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['handler_account', 'case_account', 'case_comment', 'case_file', 'case_message', 'case_status_event', 'report_case', 'company_asset', 'company_host', 'company']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
