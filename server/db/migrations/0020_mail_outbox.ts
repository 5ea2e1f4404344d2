/**
 * Mail (issue 15): the durable outbox, the deadline reminders already queued, and
 * the reporter's language for mails.
 *
 * - `mail_outbox`: one row per mail waiting to go. The whole mail (recipient,
 *   subject, text) is sealed with the case's data key in `message_enc`, so the
 *   address is no more readable at rest than the identity it came from; the row is
 *   deleted once the SMTP server has taken the mail. `coalesce_key` is unique: a
 *   second event while a mail of the same key waits adds nothing (one mail per burst).
 *   Rows go with their case (on delete cascade).
 * - `deadline_reminder`: which reminder (deadline, stage, due date) has been queued
 *   for a case, so each is queued once.
 * - `report_case.language_enc`: the interface language at submission, sealed.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('case_id', 'uuid', (c) => c.notNull().references('report_case.id').onDelete('cascade'))
    .addColumn('coalesce_key', 'text', (c) => c.notNull().unique())
    .addColumn('message_enc', 'bytea', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('due_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_error', 'text')
    .execute();
  await db.schema.createIndex('mail_outbox_due').on('mail_outbox').column('due_at').execute();
  await db.schema.createIndex('mail_outbox_case').on('mail_outbox').column('case_id').execute();

  await db.schema
    .createTable('deadline_reminder')
    .addColumn('case_id', 'uuid', (c) => c.notNull().references('report_case.id').onDelete('cascade'))
    .addColumn('reminder', 'text', (c) => c.notNull())
    .addColumn('due_at', 'timestamptz', (c) => c.notNull())
    .addColumn('queued_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('deadline_reminder_pk', ['case_id', 'reminder', 'due_at'])
    .execute();

  await db.schema.alterTable('report_case').addColumn('language_enc', 'bytea').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('report_case').dropColumn('language_enc').execute();
  await db.schema.dropTable('deadline_reminder').ifExists().execute();
  await db.schema.dropTable('mail_outbox').ifExists().execute();
}
