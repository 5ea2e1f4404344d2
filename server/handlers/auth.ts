/**
 * The handlers' web sign-in (issue 14): enrolment with the one-time code from
 * `create-account --email`, sign-in with e-mail, password and a TOTP code (or a
 * recovery code), and sessions. The throttle is the reporter's own
 * (server/idp/throttle.ts) with the same settings, per client only (no lock by
 * e-mail address), with a proof-of-work during a burst (issue 39 item 4).
 *
 * Sessions (docs/decisions/handler-sessions.md): an opaque 32-byte token in an
 * HttpOnly, SameSite=Strict cookie; only its SHA-256 is stored. A session ends
 * after 15 minutes without a request, or 12 hours after sign-in at the latest.
 */
import { randomBytes } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import { sql } from 'kysely';
import type { AppContext } from '../context.ts';
import type { Company } from '../companies/service.ts';
import { SigninThrottle, type Attempt } from '../idp/throttle.ts';
import { identitySettings } from '../idp/settings.ts';
import { ProofOfWork } from '../security/pow.ts';
import { hashToken, handlerOfficers, normalizeEmail, signInCandidates } from './accounts.ts';
import { checkKeyBundle } from './keys.ts';
import type { HandlerKeyBundle } from '../../core/crypto/index.ts';

/**
 * What a sign-in proves the password with (docs/decisions/handler-accounts.md): the
 * verifier the page derived (accounts with keys), or, once, the password itself from a
 * legacy account with the new key bundle that upgrades it in the same request.
 */
export type HandlerCredential = { verifier: string } | { password: string; keys: HandlerKeyBundle };

export const HANDLER_PASSWORD_MIN = 12;
export const IDLE_TIMEOUT_MS = 15 * 60_000;
export const SESSION_MAX_MS = 12 * 3600_000;
export const RECOVERY_CODES = 10;
const TOTP_PERIOD = 30;

const totpContext = (handlerId: string) => `handler-totp:${handlerId}`;

function totpFor(secret: OTPAuth.Secret, issuer: string, label: string) {
  return new OTPAuth.TOTP({ issuer, label, secret, algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD });
}

/** The time step a code was accepted for, or null; the ±1 step window allows a 30 s clock drift. */
function acceptedStep(secret: OTPAuth.Secret, code: string, now: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpFor(secret, 'x', 'x').validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? null : Math.floor(now / 1000 / TOTP_PERIOD) + delta;
}

export interface EnrolmentStart {
  name: string;
  email: string;
  companyName: string;
  /** Base32, for typing into an authenticator app. */
  secret: string;
  /** otpauth:// URI for the QR code. */
  uri: string;
}

export interface SignInSuccess {
  token: string;
  handlerId: string;
  /** Failed sign-ins on this address since the last success (counted before this one). */
  failedSignIns: number;
  previousSignInAt: string | null;
}

/** The burst counter's scope: the company, or the operator's host. */
export function burstScope(company: Company | null): string {
  return company?.id ?? 'operator-host';
}

export type AuthFailure = 'ENROLMENT_INVALID' | 'TOTP_INVALID';

export class HandlerAuth {
  readonly throttle: SigninThrottle;
  /** The sign-in's proof-of-work during a burst: its own key, so no other proof pays for it. */
  readonly pow: ProofOfWork;

  constructor(private readonly ctx: AppContext) {
    const settings = identitySettings(ctx.config.identity).throttle;
    this.throttle = new SigninThrottle(ctx.db, ctx.crypto.deriveKey('handler-throttle'), settings);
    this.pow = new ProofOfWork(ctx.crypto.deriveKey('handler-signin-pow'), ctx.db, { difficulty: settings.powDifficulty, ttlSeconds: 300 });
  }

  /** A company account enrols on its company's hosts; an operator's account (no company) on any host of the portal. */
  private async accountByEnrolment(company: Company | null, code: string) {
    if (!/^[\w-]{20,100}$/.test(code)) return undefined;
    return this.ctx.db
      .selectFrom('handler_account')
      .select(['id', 'name', 'email', 'totp_secret_enc', 'enrolment_expires_at'])
      .where('enrolment_code_hash', '=', hashToken(code))
      .where((eb) => (company ? eb.or([eb('company_id', '=', company.id), eb('company_id', 'is', null)]) : eb('company_id', 'is', null)))
      .where('disabled_at', 'is', null)
      .where('enrolment_expires_at', '>', new Date())
      .executeTakeFirst();
  }

  /**
   * Opens an enrolment: a fresh TOTP secret is sealed and kept pending until
   * `finishEnrolment` confirms it with a code. Opening again (a reload) draws a new one.
   */
  async startEnrolment(company: Company | null, code: string): Promise<EnrolmentStart | null> {
    const account = await this.accountByEnrolment(company, code);
    if (!account?.email) return null;
    const secret = new OTPAuth.Secret({ size: 20 });
    await this.ctx.db
      .updateTable('handler_account')
      .set({ totp_secret_enc: this.ctx.crypto.sealWithMaster(totpContext(account.id), secret.bytes) })
      .where('id', '=', account.id)
      .execute();
    const issuer = company?.name ?? 'Whistleblower portal';
    return { name: account.name, email: account.email, companyName: issuer, secret: secret.base32, uri: totpFor(secret, issuer, account.email).toString() };
  }

  /**
   * Stores the keys the browser made (the password's verifier, the public keys, both
   * sealed copies) and the TOTP factor; answers the sign-in recovery codes, shown once.
   * The password's length is the page's check: the server never sees the password.
   */
  async finishEnrolment(company: Company | null, code: string, keys: HandlerKeyBundle, totpCode: string): Promise<{ recoveryCodes: string[] } | AuthFailure> {
    const account = await this.accountByEnrolment(company, code);
    if (!account?.totp_secret_enc) return 'ENROLMENT_INVALID';
    const checked = await checkKeyBundle(keys);
    const secret = new OTPAuth.Secret({ buffer: new Uint8Array(this.ctx.crypto.openWithMaster(totpContext(account.id), account.totp_secret_enc)).buffer });
    const step = acceptedStep(secret, totpCode.trim(), Date.now());
    if (step === null) return 'TOTP_INVALID';
    const passwordHash = await this.ctx.passwords.hash(checked.verifier);
    const recoveryHash = await this.ctx.passwords.hash(checked.recoveryVerifier);
    const recoveryCodes = Array.from({ length: RECOVERY_CODES }, () => randomBytes(10).toString('hex').replace(/(.{5})(?=.)/g, '$1-'));
    const done = await this.ctx.db.transaction().execute(async (trx) => {
      const r = await trx
        .updateTable('handler_account')
        .set({ ...checked.columns, password_hash: passwordHash, recovery_verifier_hash: recoveryHash, totp_last_step: step, enrolled_at: new Date(), enrolment_code_hash: null, enrolment_expires_at: null })
        .where('id', '=', account.id)
        .where('enrolment_code_hash', '=', hashToken(code))
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      await trx.deleteFrom('handler_recovery_code').where('handler_id', '=', account.id).execute();
      await trx.insertInto('handler_recovery_code').values(recoveryCodes.map((c) => ({ handler_id: account.id, code_hash: hashToken(normalizeRecovery(c)) }))).execute();
      return true;
    });
    return done ? { recoveryCodes } : 'ENROLMENT_INVALID';
  }

  /**
   * One sign-in attempt: the same work and the same answer whatever is wrong (unknown
   * e-mail, password, code, disabled account). Null on failure; the session token on
   * success, with the failed attempts on this address since the owner's last sign-in.
   * `company` null: a host with no company (OPERATOR_HOST), where only an operator's
   * account signs in; on a company's host its own accounts come first, then operators.
   *
   * Throttled per client only (server/idp/throttle.ts beginClient): growing delays
   * past a client's free failures, and the proof-of-work the route asks for during a
   * burst. Nothing is counted per e-mail address, so no number of failures sent by
   * others keeps the owner with the right password and code out (issue 39 item 4).
   */
  async signIn(company: Company | null, emailInput: string, credential: HandlerCredential, code: string, clientAddress?: string): Promise<SignInSuccess | null> {
    const email = normalizeEmail(emailInput);
    const attempt: Attempt = await this.throttle.beginClient(burstScope(company), clientAddress);
    const row = await signInCandidates(this.ctx.db, company, email)
      .select(['id', 'password_hash', 'recovery_verifier_hash', 'key_salt', 'totp_secret_enc', 'totp_last_step', 'failed_signins', 'last_signin_at'])
      .executeTakeFirst();
    if (attempt.delayMs > 0) await new Promise((r) => setTimeout(r, attempt.delayMs));
    const upgrade = 'password' in credential ? await checkKeyBundle(credential.keys) : undefined;
    const passwordOk = await this.checkCredential(row, credential);
    let secondOk = false;
    if (row && passwordOk && !attempt.blocked) secondOk = await this.checkSecondFactor(row, code);
    if (!row || !passwordOk || !secondOk || attempt.blocked) {
      this.ctx.metrics?.signInFailed('handler', company?.id ?? 'operator');
      if (row) await this.ctx.db.updateTable('handler_account').set({ failed_signins: sql<number>`failed_signins + 1` }).where('id', '=', row.id).execute();
      await this.throttle.failure(attempt);
      return null;
    }
    await this.throttle.success(attempt);
    if (upgrade) {
      // The legacy password hash is replaced by the verifier's in the same step the keys
      // arrive, and only while the account has none: the password is never accepted again.
      const r = await this.ctx.db
        .updateTable('handler_account')
        .set({ ...upgrade.columns, password_hash: await this.ctx.passwords.hash(upgrade.verifier), recovery_verifier_hash: await this.ctx.passwords.hash(upgrade.recoveryVerifier) })
        .where('id', '=', row.id)
        .where('key_salt', 'is', null)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return null;
    }
    await this.ctx.db.updateTable('handler_account').set({ failed_signins: 0, last_signin_at: new Date() }).where('id', '=', row.id).execute();
    return { token: await this.createSession(row.id), handlerId: row.id, failedSignIns: Number(row.failed_signins), previousSignInAt: row.last_signin_at ? new Date(row.last_signin_at).toISOString() : null };
  }

  /** A fresh second-factor check for a signed-in account (a current TOTP code, once, or a recovery code). */
  async confirmSecondFactor(accountId: string, code: string): Promise<boolean> {
    const row = await this.ctx.db.selectFrom('handler_account').select(['id', 'totp_secret_enc', 'totp_last_step']).where('id', '=', accountId).where('disabled_at', 'is', null).executeTakeFirst();
    return row ? this.checkSecondFactor(row, code) : false;
  }

  /**
   * The verifier against Argon2id(verifier, pepper) of an account with keys, the
   * password's or the key recovery code's (both checked every time, so the time does not
   * tell which matched, or whether the account exists); a password only against a legacy
   * account's hash (no keys yet). Anything else spends the same work and fails, so a page
   * that sent a password to a keyed account is refused.
   */
  private async checkCredential(row: { password_hash: string | null; recovery_verifier_hash: string | null; key_salt: Uint8Array | null } | undefined, credential: HandlerCredential): Promise<boolean> {
    if ('verifier' in credential) {
      const keyed = !!(row?.password_hash && row.key_salt);
      const byPassword = keyed ? await this.ctx.passwords.verify(row!.password_hash!, credential.verifier) : await this.ctx.passwords.verifyNothing(credential.verifier);
      const byRecovery = keyed && row!.recovery_verifier_hash ? await this.ctx.passwords.verify(row!.recovery_verifier_hash, credential.verifier) : await this.ctx.passwords.verifyNothing(credential.verifier);
      return byPassword || byRecovery;
    }
    return row?.password_hash && !row.key_salt ? this.ctx.passwords.verify(row.password_hash, credential.password) : this.ctx.passwords.verifyNothing(credential.password);
  }

  private async checkSecondFactor(row: { id: string; totp_secret_enc: Uint8Array | null; totp_last_step: string | number | null }, codeInput: string): Promise<boolean> {
    const code = codeInput.trim();
    if (/^\d{6}$/.test(code)) {
      if (!row.totp_secret_enc) return false;
      const secret = new OTPAuth.Secret({ buffer: new Uint8Array(this.ctx.crypto.openWithMaster(totpContext(row.id), row.totp_secret_enc)).buffer });
      const step = acceptedStep(secret, code, Date.now());
      if (step === null) return false;
      // A code is good once: the step must be later than the last accepted one, atomically.
      const r = await this.ctx.db
        .updateTable('handler_account')
        .set({ totp_last_step: step })
        .where('id', '=', row.id)
        .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    }
    const r = await this.ctx.db
      .updateTable('handler_recovery_code')
      .set({ used_at: new Date() })
      .where('handler_id', '=', row.id)
      .where('code_hash', '=', hashToken(normalizeRecovery(code)))
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async createSession(handlerId: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = new Date();
    await this.ctx.db
      .insertInto('handler_session')
      .values({ token_hash: hashToken(token), handler_id: handlerId, created_at: now, last_seen_at: now, expires_at: new Date(now.getTime() + SESSION_MAX_MS) })
      .execute();
    return token;
  }

  async endSession(token: string): Promise<void> {
    await this.ctx.db.deleteFrom('handler_session').where('token_hash', '=', hashToken(token)).execute();
  }

  /** Forgets ended sessions. */
  async sweep(): Promise<void> {
    const now = Date.now();
    await this.ctx.db
      .deleteFrom('handler_session')
      .where((eb) => eb.or([eb('expires_at', '<', new Date(now)), eb('last_seen_at', '<', new Date(now - IDLE_TIMEOUT_MS))]))
      .execute();
    // A sitting lasts no longer than a session (or a token's day): its "opened" marks can go after that.
    await this.ctx.db.deleteFrom('handler_case_sitting').where('at', '<', new Date(now - Math.max(SESSION_MAX_MS, 86_400_000) - 86_400_000)).execute();
  }

  officers(handlerId: string) {
    return handlerOfficers(this.ctx.db, handlerId);
  }
}

/** Recovery codes are compared without dashes, spaces or case. */
function normalizeRecovery(code: string): string {
  return code.replace(/[\s-]/g, '').toLowerCase();
}
