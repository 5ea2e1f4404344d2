import type { Kysely } from 'kysely';

/**
 * The statistics key (issue 37 Build 3; docs/decisions/sealed-cases.md "The statistics
 * key"): each company's statistics public key, as a handler's browser made and signed
 * it (set once; the browser of a reporter checks the signature against the verified
 * key log before it seals to it), its private half sealed to each handler who may
 * count (one box per handler key; the server never holds the private half in clear),
 * and one box of categories per case (core/crypto sealCategories), in a table of its
 * own so no clear category column ever exists beside the case. Deleted with the case
 * (cascade).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('company_statistics_key')
    .addColumn('company_id', 'text', (c) => c.primaryKey().references('company.id').onDelete('cascade'))
    .addColumn('spki', 'bytea', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    // keyId of the ECDSA key that signed: the anchor's or an active handler's.
    .addColumn('certifier_key_id', 'text', (c) => c.notNull())
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('statistics_key_wrap')
    .addColumn('company_id', 'text', (c) => c.notNull().references('company.id').onDelete('cascade'))
    .addColumn('stats_key_id', 'text', (c) => c.notNull())
    // keyId of the handler's ECDH key the private half is sealed to.
    .addColumn('recipient_key_id', 'text', (c) => c.notNull())
    .addColumn('box', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('statistics_key_wrap_pk', ['company_id', 'recipient_key_id'])
    .execute();
  await db.schema
    .createTable('case_categories')
    .addColumn('case_id', 'uuid', (c) => c.primaryKey().references('report_case.id').onDelete('cascade'))
    .addColumn('stats_key_id', 'text', (c) => c.notNull())
    .addColumn('box', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('case_categories').execute();
  await db.schema.dropTable('statistics_key_wrap').execute();
  await db.schema.dropTable('company_statistics_key').execute();
}
