import type { Kysely } from 'kysely';

/**
 * Reporter keys (issue 37, docs/decisions/blind-server.md): a follow account keeps
 * the salt and the derivation (`kdf`, JSON) its reporter's browser uses, and
 * `password_hash` holds the peppered Argon2id hash of the derived verifier. Both
 * null: a case made before verifiers (the `legacy` path, swapped at its next
 * sign-in). `case_reservation`: a case number and salt handed out before the case is
 * sealed, single use, short-lived; only the token's hash is kept.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('case_account').addColumn('salt', 'bytea').addColumn('kdf', 'text').execute();
  await db.schema
    .createTable('case_reservation')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('case_number', 'text', (c) => c.notNull().unique())
    .addColumn('salt', 'bytea', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    // Set when a creation call passed the budget and the proof on it (once only).
    .addColumn('passed', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema.createIndex('case_reservation_expires').on('case_reservation').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('case_reservation').execute();
  await db.schema.alterTable('case_account').dropColumn('salt').dropColumn('kdf').execute();
}
