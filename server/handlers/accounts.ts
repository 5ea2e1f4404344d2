/**
 * Handler accounts: one per person who answers cases for a company. The API token
 * is 32 random bytes shown once; only its SHA-256 is stored, so a copy of the
 * database does not let anyone act as a handler.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Database } from '../db/database.ts';

export const TOKEN_PREFIX = 'wbh_';

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export async function createHandlerAccount(db: Database, companyId: string, name: string): Promise<{ id: string; token: string }> {
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const id = randomUUID();
  await db.insertInto('handler_account').values({ id, company_id: companyId, name, token_hash: hashToken(token), created_at: new Date() }).execute();
  return { id, token };
}

export async function handlerByToken(db: Database, token: string) {
  return db.selectFrom('handler_account').select(['id', 'company_id', 'name']).where('token_hash', '=', hashToken(token)).executeTakeFirst();
}
