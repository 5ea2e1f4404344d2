import { sql, type Kysely } from 'kysely';

/**
 * Every change to what a reporter's private view or access-token check reads sends
 * a notification on `wb_case_changed` when its transaction commits, with the case's
 * id as payload (`''` for a TRUNCATE: every case). Each server keeps recently read
 * cases in memory and drops them on that notification (server/cases/view-cache.ts,
 * docs/decisions/performance.md). PostgreSQL sends one notification per distinct
 * payload per transaction, so a write touching many rows of one case sends one.
 */
export const CASE_TABLES = ['report_case', 'case_status_event', 'case_message', 'case_file', 'case_comment', 'case_account', 'case_record_version'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function wb_case_row_changed() returns trigger language plpgsql as $$
    begin
      if tg_table_name = 'report_case' then
        if tg_op <> 'INSERT' then perform pg_notify('wb_case_changed', old.id::text); end if;
        if tg_op <> 'DELETE' then perform pg_notify('wb_case_changed', new.id::text); end if;
      else
        -- both sides of an update: a row moved to another case (never done) changes both
        if tg_op <> 'INSERT' then perform pg_notify('wb_case_changed', old.case_id::text); end if;
        if tg_op <> 'DELETE' then perform pg_notify('wb_case_changed', new.case_id::text); end if;
      end if;
      return null;
    end
    $$`.execute(db);
  await sql`
    create or replace function wb_case_table_truncated() returns trigger language plpgsql as $$
    begin
      perform pg_notify('wb_case_changed', '');
      return null;
    end
    $$`.execute(db);
  for (const table of CASE_TABLES) {
    await sql`
      create trigger ${sql.raw(`${table}_case_changed`)}
      after insert or update or delete on ${sql.table(table)}
      for each row execute function wb_case_row_changed()`.execute(db);
    await sql`
      create trigger ${sql.raw(`${table}_case_truncated`)}
      after truncate on ${sql.table(table)}
      for each statement execute function wb_case_table_truncated()`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of CASE_TABLES) {
    await sql`drop trigger if exists ${sql.raw(`${table}_case_changed`)} on ${sql.table(table)}`.execute(db);
    await sql`drop trigger if exists ${sql.raw(`${table}_case_truncated`)} on ${sql.table(table)}`.execute(db);
  }
  await sql`drop function if exists wb_case_row_changed()`.execute(db);
  await sql`drop function if exists wb_case_table_truncated()`.execute(db);
}
