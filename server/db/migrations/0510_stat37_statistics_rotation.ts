import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/**
 * The statistics key's rotation (docs/decisions/sealed-workspace.md "Rotation of the
 * statistics key"): a company keeps every statistics key it had, numbered (`seq`, the
 * newest is the one sealed to), each naming the key it replaced (null on the first), so
 * the boxes of older cases stay countable with their own key. A handler key holds one
 * wrap per statistics key (it was one for the company).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('company_statistics_key').addColumn('seq', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('company_statistics_key').addColumn('replaces', 'text').execute();
  await sql`alter table company_statistics_key drop constraint company_statistics_key_pkey`.execute(db);
  await sql`alter table company_statistics_key add constraint company_statistics_key_pk primary key (company_id, key_id)`.execute(db);
  // Two rotations racing: one lands, the other finds its number taken.
  await sql`alter table company_statistics_key add constraint company_statistics_key_seq unique (company_id, seq)`.execute(db);
  await sql`alter table statistics_key_wrap drop constraint statistics_key_wrap_pk`.execute(db);
  await sql`alter table statistics_key_wrap add constraint statistics_key_wrap_pk primary key (company_id, stats_key_id, recipient_key_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from statistics_key_wrap w where exists (select 1 from company_statistics_key k where k.company_id = w.company_id and k.key_id = w.stats_key_id and k.seq > 1)`.execute(db);
  await sql`delete from company_statistics_key where seq > 1`.execute(db);
  await sql`alter table statistics_key_wrap drop constraint statistics_key_wrap_pk`.execute(db);
  await sql`alter table statistics_key_wrap add constraint statistics_key_wrap_pk primary key (company_id, recipient_key_id)`.execute(db);
  await sql`alter table company_statistics_key drop constraint company_statistics_key_seq`.execute(db);
  await sql`alter table company_statistics_key drop constraint company_statistics_key_pk`.execute(db);
  await sql`alter table company_statistics_key add constraint company_statistics_key_pkey primary key (company_id)`.execute(db);
  await db.schema.alterTable('company_statistics_key').dropColumn('replaces').execute();
  await db.schema.alterTable('company_statistics_key').dropColumn('seq').execute();
}
