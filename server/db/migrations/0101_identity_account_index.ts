/**
 * Ending every sign-in of one case (a password change request) looks up the
 * provider's rows by their account: index the payload's `accountId`.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index oidc_payload_account on oidc_payload ((payload->>'accountId'), type)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists oidc_payload_account`.execute(db);
}
