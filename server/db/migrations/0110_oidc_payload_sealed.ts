/**
 * Nothing in the database works as a credential (issue 11, finding 1): the
 * provider's rows keep only keyed hashes of their ids (session, token, code, grant,
 * interaction, uid, user code) and a sealed payload (server/idp/adapter.ts,
 * docs/decisions/identity-at-rest.md).
 *
 * Rows written before this migration hold ids and payloads in clear and cannot be
 * turned into the new form (their hash needs the issuer, which the old rows do not
 * name reliably), so they are deleted: every reporter signed in at the upgrade is
 * signed out and signs in again with the case number and password. Pending
 * new-password steps go too (they are keyed by a now hashed interaction uid).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('oidc_payload').execute();
  await db.deleteFrom('idp_password_change').execute();
  await sql`drop index if exists oidc_payload_account`.execute(db);
  await db.schema.alterTable('oidc_payload').dropColumn('payload').execute();
  await db.schema.alterTable('oidc_payload').addColumn('sealed', 'bytea', (c) => c.notNull()).execute();
  await db.schema.alterTable('oidc_payload').addColumn('account_key', 'text').execute();
  await db.schema.createIndex('oidc_payload_account_key').on('oidc_payload').columns(['account_key', 'type']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('oidc_payload').execute();
  await db.deleteFrom('idp_password_change').execute();
  await db.schema.dropIndex('oidc_payload_account_key').ifExists().execute();
  await db.schema.alterTable('oidc_payload').dropColumn('account_key').execute();
  await db.schema.alterTable('oidc_payload').dropColumn('sealed').execute();
  await db.schema.alterTable('oidc_payload').addColumn('payload', 'jsonb', (c) => c.notNull()).execute();
  await sql`create index oidc_payload_account on oidc_payload ((payload->>'accountId'), type)`.execute(db);
}
