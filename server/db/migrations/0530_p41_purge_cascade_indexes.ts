/**
 * Deleting a case (server/retention/purge.ts) cascades through every table that names
 * it; for each, PostgreSQL finds the rows by the referencing column. These four had no
 * index leading with it, so every deleted case (and every deleted message, for
 * case_file) read the whole table: a purge's cost per case grew with all cases' rows,
 * and on PGlite each such scan held the one connection. With the index each is a
 * lookup (docs/decisions/scale.md, "The purge").
 */
import { sql, type Kysely } from 'kysely';

const INDEXES = [
  ['handler_case_seen_case', 'handler_case_seen', 'case_id'],
  ['handler_case_sitting_case', 'handler_case_sitting', 'case_id'],
  ['idp_password_change_case', 'idp_password_change', 'case_id'],
  ['case_file_message', 'case_file', 'message_id'],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, table, column] of INDEXES) await sql`create index if not exists ${sql.id(name)} on ${sql.table(table)} (${sql.id(column)})`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of INDEXES) await sql`drop index if exists ${sql.id(name)}`.execute(db);
}
