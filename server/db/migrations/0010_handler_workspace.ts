/**
 * The handlers' web workspace (issue 14): handler accounts gain an e-mail login,
 * a password (Argon2id with the pepper, as case_account), a TOTP second factor
 * sealed with the master key, one-time recovery codes and a one-time enrolment
 * code; `handler_officer` ties a handler to protection officers (no rows: every
 * officer of the company). Sessions, per-handler read marks and the case's audit
 * trail complete it. Only hashes of anything that works as a credential are kept
 * (docs/decisions/handler-accounts.md, handler-sessions.md, handler-audit-trail.md).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('handler_account')
    // Plain, trimmed and lower-cased: a work address, not report data (handler-accounts.md).
    .addColumn('email', 'text')
    .addColumn('password_hash', 'text')
    // AES-256-GCM under the master key, bound to the account id.
    .addColumn('totp_secret_enc', 'bytea')
    // The last TOTP time step accepted: a code is good once (RFC 6238 §5.2).
    .addColumn('totp_last_step', 'bigint')
    .addColumn('enrolment_code_hash', 'text')
    .addColumn('enrolment_expires_at', 'timestamptz')
    .addColumn('enrolled_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('handler_account_email').on('handler_account').columns(['company_id', 'email']).unique().execute();
  await db.schema.createIndex('handler_account_enrolment').on('handler_account').column('enrolment_code_hash').unique().execute();

  await db.schema
    .createTable('handler_officer')
    .addColumn('handler_id', 'uuid', (c) => c.notNull().references('handler_account.id').onDelete('cascade'))
    .addColumn('officer_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('handler_officer_pk', ['handler_id', 'officer_id'])
    .execute();

  await db.schema
    .createTable('handler_recovery_code')
    .addColumn('handler_id', 'uuid', (c) => c.notNull().references('handler_account.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .addPrimaryKeyConstraint('handler_recovery_code_pk', ['handler_id', 'code_hash'])
    .execute();

  await db.schema
    .createTable('handler_session')
    // SHA-256 of the session token; the token lives only in the handler's cookie.
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('handler_id', 'uuid', (c) => c.notNull().references('handler_account.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('handler_session_handler').on('handler_session').column('handler_id').execute();

  await db.schema
    .createTable('handler_case_seen')
    .addColumn('handler_id', 'uuid', (c) => c.notNull().references('handler_account.id').onDelete('cascade'))
    .addColumn('case_id', 'uuid', (c) => c.notNull().references('report_case.id').onDelete('cascade'))
    .addColumn('seen_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('handler_case_seen_pk', ['handler_id', 'case_id'])
    .execute();

  await db.schema
    .createTable('case_audit')
    .addColumn('id', 'bigint', (c) => c.generatedAlwaysAsIdentity().primaryKey())
    .addColumn('case_id', 'uuid', (c) => c.notNull().references('report_case.id').onDelete('cascade'))
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    // { handlerId, handlerName, action, detail } sealed with the case's data key.
    .addColumn('entry_enc', 'bytea', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('case_audit_case').on('case_audit').columns(['case_id', 'id']).execute();

  // Append-only: no update; a delete only as part of deleting the case itself.
  await sql`
    create function case_audit_append_only() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' and not exists (select 1 from report_case where id = old.case_id) then
        return old;
      end if;
      raise exception 'case_audit is append-only';
    end $$`.execute(db);
  await sql`create trigger case_audit_append_only before update or delete on case_audit for each row execute function case_audit_append_only()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger if exists case_audit_append_only on case_audit`.execute(db);
  await sql`drop function if exists case_audit_append_only()`.execute(db);
  for (const t of ['case_audit', 'handler_case_seen', 'handler_session', 'handler_recovery_code', 'handler_officer']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
  await db.schema.dropIndex('handler_account_enrolment').ifExists().execute();
  await db.schema.dropIndex('handler_account_email').ifExists().execute();
  for (const c of ['email', 'password_hash', 'totp_secret_enc', 'totp_last_step', 'enrolment_code_hash', 'enrolment_expires_at', 'enrolled_at']) {
    await db.schema.alterTable('handler_account').dropColumn(c).execute();
  }
}
