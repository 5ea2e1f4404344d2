import { sql, type Kysely } from 'kysely';

/**
 * The audit trail of a sealed case (issue 37, docs/decisions/sealed-cases.md "Status and
 * audit of sealed cases"): the server holds no key of such a case, so it writes the
 * entry in clear (`entry`: JSON of { handlerId, handlerName, action, detail }, the very
 * facts it learns by serving the act) and leaves `entry_enc` null; every other case keeps
 * its sealed `entry_enc`. Exactly one of the two is set.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table case_audit alter column entry_enc drop not null`.execute(db);
  await sql`alter table case_audit add column entry jsonb`.execute(db);
  await sql`alter table case_audit add constraint case_audit_one_form check ((entry_enc is null) <> (entry is null))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table case_audit drop constraint if exists case_audit_one_form`.execute(db);
  await sql`delete from case_audit where entry_enc is null`.execute(db);
  await sql`alter table case_audit drop column if exists entry`.execute(db);
  await sql`alter table case_audit alter column entry_enc set not null`.execute(db);
}
