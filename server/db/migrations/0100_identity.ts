/**
 * The embedded OpenID provider's storage (server/idp): everything the provider keeps
 * (sessions, grants, codes, refresh tokens, interactions) in `oidc_payload`, its
 * signing and cookie keys sealed under a key that the master key wraps, the sign-in
 * throttle and the pending password changes. Nothing here names an IP address.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oidc_payload')
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('user_code', 'text')
    .addColumn('uid', 'text')
    .addColumn('expires_at', 'timestamptz')
    .addColumn('consumed_at', 'timestamptz')
    .addPrimaryKeyConstraint('oidc_payload_pk', ['id', 'type'])
    .execute();
  await db.schema.createIndex('oidc_payload_grant').on('oidc_payload').column('grant_id').execute();
  await db.schema.createIndex('oidc_payload_uid').on('oidc_payload').columns(['uid', 'type']).execute();
  await db.schema.createIndex('oidc_payload_user_code').on('oidc_payload').columns(['user_code', 'type']).execute();
  await db.schema.createIndex('oidc_payload_expires').on('oidc_payload').column('expires_at').execute();

  // The identity provider's own data key, wrapped by the master key (server/crypto).
  await db.schema
    .createTable('idp_secret')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('wrapped', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('idp_key')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull()) // 'signing' | 'cookie'
    .addColumn('secret_enc', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('retired_at', 'timestamptz')
    .execute();

  await db.schema
    .createTable('signin_throttle')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('window_started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_attempt_at', 'timestamptz', (c) => c.notNull())
    .addColumn('locked_until', 'timestamptz')
    .execute();

  await db.schema
    .createTable('idp_password_change')
    .addColumn('interaction_uid', 'text', (c) => c.primaryKey())
    .addColumn('case_id', 'uuid', (c) => c.notNull().references('report_case.id').onDelete('cascade'))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['idp_password_change', 'signin_throttle', 'idp_key', 'idp_secret', 'oidc_payload']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
