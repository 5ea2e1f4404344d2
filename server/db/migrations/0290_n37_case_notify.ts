import type { Kysely } from 'kysely';

/**
 * The reporter's notification address of a sealed case (issue 37 Build 3,
 * docs/decisions/sealed-migration.md "Mail for sealed cases"): a sealed box to the mail
 * key (core/crypto/mail.ts), one row per case, apart from the identity envelope, which
 * only the case's own keys open. Deleted when the case closes (server/cases/service.ts
 * setStatus) and with the case (cascade).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('case_notify')
    .addColumn('case_id', 'uuid', (c) => c.primaryKey().references('report_case.id').onDelete('cascade'))
    // keyId of the mail key the box is sealed to (a rotation seals every box again).
    .addColumn('mail_key_id', 'text', (c) => c.notNull())
    .addColumn('box', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('case_notify').execute();
}
