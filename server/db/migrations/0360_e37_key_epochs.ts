import type { Kysely } from 'kysely';

/**
 * Key epochs of sealed cases (issue 37 Build 1 "revoke"; docs/decisions/sealed-cases.md
 * "Revocation and key epochs"): each message and file names the epoch whose data key
 * sealed it (every row before this migration: the first); `case_key_wrap` also holds the
 * links between epochs' keys (kinds `previous` and `next`, recipient `previous` or
 * `reporter-next`); `case_key_revocation` names the keys revoked from a case, which the
 * server refuses from then on. Deleted with the case (cascade).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('case_message').addColumn('epoch', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('case_file').addColumn('epoch', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema
    .createTable('case_key_revocation')
    .addColumn('case_id', 'uuid', (c) => c.notNull().references('report_case.id').onDelete('cascade'))
    // keyId of the revoked handler's ECDH key, and the account that held it then.
    .addColumn('recipient_key_id', 'text', (c) => c.notNull())
    .addColumn('handler_id', 'text', (c) => c.notNull())
    // The first epoch the revoked key holds no wrap of.
    .addColumn('epoch', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('case_key_revocation_pk', ['case_id', 'recipient_key_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('case_key_revocation').execute();
  await db.schema.alterTable('case_file').dropColumn('epoch').execute();
  await db.schema.alterTable('case_message').dropColumn('epoch').execute();
}
