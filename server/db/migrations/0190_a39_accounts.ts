import { sql, type Kysely } from 'kysely';

/**
 * Administration (issue 39; docs/decisions/administration.md):
 * - roles on `handler_account`: `role_handler` (reads the company's cases),
 *   `role_admin` (manages the company's handler accounts and settings),
 *   `role_operator` (the portal's owner; such an account has no company, so
 *   `company_id` becomes nullable; an operator's e-mail is unique among operators);
 * - the account's life: `disabled_at`, `last_signin_at`, and the failed sign-ins since
 *   the last success (`failed_signins`), shown to the owner at the next sign-in;
 * - `handler_token`: API tokens that expire, can be revoked and say who made them
 *   (the old one-per-account `token_hash` moves here with a 90-day expiry and is no
 *   longer read);
 * - `admin_trail`: every administration act, append-only (a trigger refuses update
 *   and delete).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('handler_account')
    .addColumn('role_handler', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('role_admin', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('role_operator', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('disabled_at', 'timestamptz')
    .addColumn('last_signin_at', 'timestamptz')
    .addColumn('failed_signins', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`alter table handler_account alter column company_id drop not null`.execute(db);
  await sql`alter table handler_account alter column token_hash drop not null`.execute(db);
  await sql`create unique index handler_account_operator_email on handler_account (email) where company_id is null`.execute(db);

  await db.schema
    .createTable('handler_token')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('handler_id', 'uuid', (c) => c.notNull().references('handler_account.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('made_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('last_used_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('handler_token_handler').on('handler_token').column('handler_id').execute();
  await sql`
    insert into handler_token (id, handler_id, token_hash, label, made_by, created_at, expires_at)
    select gen_random_uuid(), id, token_hash, 'token from before issue 39', 'operator', now(), now() + interval '90 days'
    from handler_account where token_hash is not null`.execute(db);
  await sql`update handler_account set token_hash = null`.execute(db);

  await db.schema
    .createTable('admin_trail')
    .addColumn('id', 'bigint', (c) => c.generatedAlwaysAsIdentity().primaryKey())
    // No foreign keys: the trail outlives the accounts (and companies) it names.
    .addColumn('company_id', 'text')
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_name', 'text', (c) => c.notNull())
    .addColumn('actor_role', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text')
    .addColumn('target_name', 'text')
    .addColumn('detail', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema.createIndex('admin_trail_company').on('admin_trail').columns(['company_id', 'id']).execute();
  await sql`
    create function admin_trail_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'admin_trail is append-only';
    end $$`.execute(db);
  await sql`create trigger admin_trail_append_only before update or delete on admin_trail for each row execute function admin_trail_append_only()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger if exists admin_trail_append_only on admin_trail`.execute(db);
  await sql`drop function if exists admin_trail_append_only()`.execute(db);
  await db.schema.dropTable('admin_trail').ifExists().execute();
  await db.schema.dropTable('handler_token').ifExists().execute();
  await sql`drop index if exists handler_account_operator_email`.execute(db);
  for (const c of ['role_handler', 'role_admin', 'role_operator', 'disabled_at', 'last_signin_at', 'failed_signins']) {
    await db.schema.alterTable('handler_account').dropColumn(c).execute();
  }
}
