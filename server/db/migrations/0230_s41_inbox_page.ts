/**
 * The handler inbox pages by (created_at, id) newest first within a company
 * (server/handlers/cases.ts `inbox`): one index in exactly that order, so the first
 * page and every page after a cursor is a range scan of `limit` rows whatever the
 * company's number of cases. It covers every lookup the older (company_id,
 * created_at) index served, which goes.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index report_case_company_page on report_case (company_id, created_at desc, id desc)`.execute(db);
  await sql`drop index if exists report_case_company`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create index if not exists report_case_company on report_case (company_id, created_at)`.execute(db);
  await sql`drop index if exists report_case_company_page`.execute(db);
}
