import { type Kysely } from 'kysely';

/**
 * The key log (docs/decisions/blind-server.md, "Key authenticity"): per company, the
 * public half of its recovery key (the trust anchor, set once) and an append-only list
 * of signed entries that add or remove handlers' public keys. The server keeps them and
 * checks every append, but a browser trusts an entry only by its signature chain back
 * to the anchor, never because the server stored it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('company_key_anchor')
    .addColumn('company_id', 'text', (c) => c.primaryKey().references('company.id').onDelete('cascade'))
    .addColumn('ecdh_spki', 'bytea', (c) => c.notNull())
    .addColumn('ecdsa_spki', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('key_log_entry')
    .addColumn('company_id', 'text', (c) => c.notNull().references('company.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('entry', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('key_log_entry_pk', ['company_id', 'seq'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('key_log_entry').execute();
  await db.schema.dropTable('company_key_anchor').execute();
}
