/**
 * Handler accounts: one per person who answers cases for a company. The API token
 * is 32 random bytes shown once; only its SHA-256 is stored, so a copy of the
 * database does not let anyone act as a handler. The web workspace adds an
 * e-mail login, enrolled once with a one-time code (72 h) that sets the password
 * and the TOTP factor (docs/decisions/handler-accounts.md); the code, too, is kept
 * only as a hash.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';

export const TOKEN_PREFIX = 'wbh_';
/** How long an enrolment link works. */
export const ENROLMENT_TTL_MS = 72 * 3600_000;

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Handlers' e-mail addresses are compared trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export class HandlerAccountError extends Error {
  constructor(
    readonly code: 'EMAIL_TAKEN' | 'UNKNOWN_OFFICER',
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

export interface NewHandlerAccount {
  id: string;
  /** An API token made for automation (marked `made_by: operator`); absent when `token: false`. */
  token?: string;
  /** Present when an e-mail was given: the one-time code of `<portal>/handler/enrol#<code>`. */
  enrolmentCode?: string;
  enrolmentExpiresAt?: Date;
}

export interface HandlerAccountOptions {
  email?: string;
  /** Protection officer ids of the company; none: every officer. */
  officers?: string[];
  /** Ids the company has; given, every `officers` entry must be one of them. */
  knownOfficers?: string[];
  now?: Date;
  /** Roles of a company account (default: a handler, no admin). */
  roles?: { admin?: boolean; handler?: boolean };
  /** Make an API token for automation (default true: the CLI's create-account prints one). */
  token?: boolean;
  /** How long that token works (default TOKEN_TTL_MS). */
  tokenTtlMs?: number;
}

/** A handler API token's default lifetime (HANDLER_TOKEN_TTL_DAYS). */
export const TOKEN_TTL_MS = 90 * 24 * 3600_000;

/** A fresh `wbh_` token. */
export function newApiToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** A fresh enrolment code and its expiry. */
export function newEnrolment(now = new Date()): { code: string; expiresAt: Date } {
  return { code: randomBytes(32).toString('base64url'), expiresAt: new Date(now.getTime() + ENROLMENT_TTL_MS) };
}

/** A company account; `companyId` null makes an operator's account (role_operator, no company, needs an e-mail). */
export async function createHandlerAccount<O extends HandlerAccountOptions>(db: Database, companyId: string | null, name: string, opts: O = {} as O): Promise<O extends { token: false } ? NewHandlerAccount : NewHandlerAccount & { token: string }> {
  const token = opts.token === false ? undefined : newApiToken();
  const id = randomUUID();
  const officers = [...new Set(opts.officers ?? [])];
  if (opts.knownOfficers) {
    const unknown = officers.find((o) => !opts.knownOfficers!.includes(o));
    if (unknown !== undefined) throw new HandlerAccountError('UNKNOWN_OFFICER', `The company has no protection officer "${unknown}".`, 'officers');
  }
  const email = opts.email !== undefined ? normalizeEmail(opts.email) : null;
  const enrolmentCode = email ? randomBytes(32).toString('base64url') : undefined;
  const enrolmentExpiresAt = email ? new Date((opts.now ?? new Date()).getTime() + ENROLMENT_TTL_MS) : undefined;
  await db.transaction().execute(async (trx) => {
    if (email) {
      const taken = await trx
        .selectFrom('handler_account')
        .select('id')
        .where((eb) => (companyId === null ? eb('company_id', 'is', null) : eb('company_id', '=', companyId)))
        .where('email', '=', email)
        .executeTakeFirst();
      if (taken) throw new HandlerAccountError('EMAIL_TAKEN', `A handler of this company already signs in as ${email}.`, 'email');
    }
    await trx
      .insertInto('handler_account')
      .values({
        id,
        company_id: companyId,
        name,
        token_hash: null,
        created_at: new Date(),
        role_operator: companyId === null,
        role_admin: companyId !== null && (opts.roles?.admin ?? false),
        role_handler: companyId !== null && (opts.roles?.handler ?? true),
        email,
        enrolment_code_hash: enrolmentCode ? hashToken(enrolmentCode) : null,
        enrolment_expires_at: enrolmentExpiresAt ?? null,
      })
      .execute();
    if (token) {
      const now = opts.now ?? new Date();
      await trx
        .insertInto('handler_token')
        .values({ id: randomUUID(), handler_id: id, token_hash: hashToken(token), label: 'automation', made_by: 'operator', created_at: now, expires_at: new Date(now.getTime() + (opts.tokenTtlMs ?? TOKEN_TTL_MS)) })
        .execute();
    }
    if (officers.length) await trx.insertInto('handler_officer').values(officers.map((officer_id) => ({ handler_id: id, officer_id }))).execute();
  });
  return { id, token, enrolmentCode, enrolmentExpiresAt } as never;
}

/** The protection officers a handler is tied to; empty: every officer of the company. */
export async function handlerOfficers(db: Database, handlerId: string): Promise<string[]> {
  const rows = await db.selectFrom('handler_officer').select('officer_id').where('handler_id', '=', handlerId).orderBy('officer_id').execute();
  return rows.map((r) => r.officer_id);
}

/** `<origin>/handler/enrol#<code>`: the code sits in the fragment, so it never reaches a server log. */
export function enrolmentLink(origin: string, code: string): string {
  return `${origin.replace(/\/$/, '')}/handler/enrol#${code}`;
}

/**
 * The enrolled, enabled accounts a sign-in with `email` may mean, best first: on a
 * company's host its own account, then an operator's; on a host with no company,
 * operators only. The sign-in and its salt answer read the same account.
 */
export function signInCandidates(db: Database, company: { id: string } | null, email: string) {
  return db
    .selectFrom('handler_account')
    .where('email', '=', email)
    .where('enrolled_at', 'is not', null)
    .where('disabled_at', 'is', null)
    .where((eb) => (company ? eb.or([eb('company_id', '=', company.id), eb.and([eb('company_id', 'is', null), eb('role_operator', '=', true)])]) : eb.and([eb('company_id', 'is', null), eb('role_operator', '=', true)])))
    .orderBy(sql`company_id is null`)
    .limit(1);
}
