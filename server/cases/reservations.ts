/**
 * Case numbers handed out before the case exists (issue 37, docs/decisions/
 * blind-server.md "Case number before sealing"): the reporter's browser needs the
 * case number and its salt to derive the verifier (and, with sealing, the reporter
 * key) before it sends the case. `POST /api/public/case/reservation` is a
 * state-changing public call, so it costs the submission budget and a solved
 * proof-of-work like the three creation routes (server/security/abuse.ts).
 *
 * Invariants: a reservation is single use (taken in the case's own transaction by a
 * DELETE … RETURNING, so two racing creations cannot both have it), lives
 * RESERVATION_TTL_MS, belongs to the company it was made at, and only the SHA-256
 * of its token is stored. A failed creation leaves it in place for the next try.
 * Its number is no case's number when handed out.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { HttpError } from '../errors.ts';
import { newCaseNumber } from './numbers.ts';
import { newSalt } from './reporter-keys.ts';

export const RESERVATION_TTL_MS = 30 * 60_000;

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

export interface Reservation {
  reservation: string;
  caseNumber: string;
  salt: string;
  expiresAt: string;
}

export async function reserveCase(db: Kysely<DB>, companyId: string, now = new Date()): Promise<Reservation> {
  await db.deleteFrom('case_reservation').where('expires_at', '<', now).execute();
  for (let attempt = 0; ; attempt++) {
    const token = randomBytes(32).toString('base64url');
    const caseNumber = newCaseNumber();
    const salt = newSalt();
    const expires = new Date(now.getTime() + RESERVATION_TTL_MS);
    // A number some case already has is drawn again (as createCase does on a clash).
    const taken = await db.selectFrom('report_case').select('id').where('case_number', '=', caseNumber).executeTakeFirst();
    const inserted = taken
      ? undefined
      : await db
          .insertInto('case_reservation')
          .values({ token_hash: tokenHash(token), company_id: companyId, case_number: caseNumber, salt, expires_at: expires })
          .onConflict((oc) => oc.column('case_number').doNothing())
          .returning('case_number')
          .executeTakeFirst();
    if (inserted) return { reservation: token, caseNumber, salt: salt.toString('base64url'), expiresAt: expires.toISOString() };
    if (attempt >= 5) throw new HttpError(503, 'UNAVAILABLE', 'No case number could be reserved; try again.');
  }
}

/** Takes (deletes) an unexpired reservation of `companyId` inside the case's transaction, or 409 `RESERVATION_UNKNOWN`. */
export async function takeReservation(trx: Transaction<DB>, companyId: string, token: string, now: Date) {
  const row = await trx
    .deleteFrom('case_reservation')
    .where('token_hash', '=', tokenHash(token))
    .where('company_id', '=', companyId)
    .where('expires_at', '>', now)
    .returning(['case_number', 'salt'])
    .executeTakeFirst();
  if (!row) throw new HttpError(409, 'RESERVATION_UNKNOWN', 'This case number reservation is unknown, used or expired: reserve another.', 'caseAccount.reservation');
  return row;
}
