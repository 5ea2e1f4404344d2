import { sql, type Kysely } from 'kysely';

/**
 * Sealed files (issue 37, docs/decisions/sealed-cases.md "Sealed files"): an upload
 * session of a sealed case holds no data key (`wrapped_key` null; the browser seals the
 * bytes before they leave it), and its uploads store the ciphertext as it arrives.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table upload_session alter column wrapped_key drop not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from upload_session where wrapped_key is null`.execute(db);
  await sql`alter table upload_session alter column wrapped_key set not null`.execute(db);
}
