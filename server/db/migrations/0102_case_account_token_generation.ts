import type { Kysely } from 'kysely';

/**
 * Access tokens are JWTs checked without a token look-up, so ending a sign-in must
 * be able to kill the ones already issued: each carries its account's generation
 * (`gen`), and sign-out or a password change moves the generation on
 * (docs/decisions/identity-sessions-and-tokens.md).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('case_account').addColumn('token_generation', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('case_account').dropColumn('token_generation').execute();
}
