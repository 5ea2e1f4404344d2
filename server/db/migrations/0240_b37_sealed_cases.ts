import { sql, type Kysely } from 'kysely';

/**
 * Sealed cases (issue 37, docs/decisions/sealed-cases.md "Sealed cases"): a case whose
 * data key the server never knew. `report_case.sealed` marks it; its `wrapped_key` is
 * null (no server wrapping exists), and `case_key_wrap` holds the data key as the
 * reporter's browser wrapped it: to the reporter key (AES-GCM), and sealed boxes to
 * every certified handler key entitled to the officer and to the company's recovery
 * key, one row per recipient and key epoch. Legacy cases keep `sealed = false` and
 * their server wrapping, unchanged.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('report_case').addColumn('sealed', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
  await sql`alter table report_case alter column wrapped_key drop not null`.execute(db);
  // Either the server's wrapping (legacy) or none (sealed), never both, never neither.
  await sql`alter table report_case add constraint report_case_sealed_key check ((sealed and wrapped_key is null) or (not sealed and wrapped_key is not null))`.execute(db);
  await db.schema
    .createTable('case_key_wrap')
    .addColumn('case_id', 'uuid', (c) => c.notNull().references('report_case.id').onDelete('cascade'))
    .addColumn('epoch', 'integer', (c) => c.notNull())
    // keyId (hex SHA-256 of the SPKI) of a handler's or the recovery key's ECDH key; `reporter` for the reporter key.
    .addColumn('recipient_key_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('wrap', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('case_key_wrap_pk', ['case_id', 'epoch', 'recipient_key_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('case_key_wrap').execute();
  await sql`alter table report_case drop constraint report_case_sealed_key`.execute(db);
  await db.schema.alterTable('report_case').dropColumn('sealed').execute();
}
