import { sql, type Kysely } from 'kysely';

/**
 * Every change to a company or its host names, however it is made (import, the
 * CLI on another process, a hand-edited row), sends a notification on
 * `wb_company_changed` when its transaction commits. Each server keeps the
 * companies it has read in memory and drops them on that notification
 * (server/companies/cache.ts, docs/decisions/performance.md).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function wb_company_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('wb_company_changed', '');
      return null;
    end
    $$`.execute(db);
  for (const table of ['company', 'company_host']) {
    await sql`
      create trigger ${sql.raw(`${table}_changed`)}
      after insert or update or delete or truncate on ${sql.table(table)}
      for each statement execute function wb_company_changed()`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['company', 'company_host']) await sql`drop trigger if exists ${sql.raw(`${table}_changed`)} on ${sql.table(table)}`.execute(db);
  await sql`drop function if exists wb_company_changed()`.execute(db);
}
