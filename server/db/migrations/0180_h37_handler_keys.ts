import { type Kysely } from 'kysely';

/**
 * Handlers' keys (docs/decisions/blind-server.md, "Handlers"): the salt and derivation
 * the handler's browser used, the public keys (ECDH and ECDSA P-256, SPKI) and the
 * private keys sealed twice in the browser, under the password and under the key
 * recovery code. `password_hash` then holds Argon2id(verifier, pepper), never a hash of
 * the password itself, and `recovery_verifier_hash` the same of the key recovery code's
 * verifier (it signs in when the password is lost); an account with a password hash and no `key_salt` is a legacy
 * one, upgraded at its next sign-in (docs/decisions/handler-accounts.md).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('handler_account')
    .addColumn('key_salt', 'bytea')
    .addColumn('key_kdf', 'text')
    .addColumn('ecdh_spki', 'bytea')
    .addColumn('ecdsa_spki', 'bytea')
    .addColumn('keys_sealed', 'bytea')
    .addColumn('keys_sealed_recovery', 'bytea')
    .addColumn('recovery_verifier_hash', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('handler_account')
    .dropColumn('key_salt')
    .dropColumn('key_kdf')
    .dropColumn('ecdh_spki')
    .dropColumn('ecdsa_spki')
    .dropColumn('keys_sealed')
    .dropColumn('keys_sealed_recovery')
    .dropColumn('recovery_verifier_hash')
    .execute();
}
