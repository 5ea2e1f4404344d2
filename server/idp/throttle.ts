/**
 * Sign-in throttle (DESIGN.md §4). State lives in the database (`signin_throttle`),
 * so it holds across restarts and server processes; no IP address is used.
 *
 * - Per case number: every attempt is counted before its password is checked (so
 *   parallel guesses cannot slip past), a growing delay applies after a few
 *   failures, and after `lockAfter` failures the case number is locked for
 *   `lockMs`. The row key is a keyed hash (HMAC) of company and typed number, so an
 *   unknown case number is throttled exactly like a known one and the table never
 *   holds what a visitor typed.
 * - Per company and overall: failures in a fixed window; above the limit every
 *   attempt for that company (or all) is refused until the window ends.
 *
 * A success clears the case number's row.
 */
import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';

export interface ThrottleSettings {
  /** Failures before delays begin. */
  freeFailures: number;
  /** First delay; doubles with each further failure. */
  delayBaseMs: number;
  maxDelayMs: number;
  /** Failures that lock a case number. */
  lockAfter: number;
  lockMs: number;
  companyLimit: number;
  globalLimit: number;
  windowMs: number;
}

export const DEFAULT_THROTTLE: ThrottleSettings = {
  freeFailures: 3,
  delayBaseMs: 1000,
  maxDelayMs: 16_000,
  lockAfter: 10,
  lockMs: 15 * 60_000,
  companyLimit: 300,
  globalLimit: 3000,
  windowMs: 10 * 60_000,
};

export interface Attempt {
  key: string;
  companyId: string;
  /** Refused whatever the password: locked case number or a company/overall limit. */
  blocked: boolean;
  /** Wait this long before answering (applies to every answer alike). */
  delayMs: number;
  /** This attempt's number since the last success or lockout. */
  count: number;
}

export class SigninThrottle {
  constructor(
    private readonly db: Database,
    private readonly hmacKey: Buffer,
    readonly settings: ThrottleSettings,
  ) {}

  caseKey(companyId: string, caseNumber: string): string {
    return 'case:' + createHmac('sha256', this.hmacKey).update(`${companyId}\n${caseNumber}`).digest('base64url');
  }

  delayFor(previousFailures: number): number {
    const s = this.settings;
    if (previousFailures < s.freeFailures) return 0;
    return Math.min(s.maxDelayMs, s.delayBaseMs * 2 ** (previousFailures - s.freeFailures));
  }

  async begin(companyId: string, caseNumber: string): Promise<Attempt> {
    const key = this.caseKey(companyId, caseNumber);
    const now = new Date();
    const row = await this.db
      .insertInto('signin_throttle')
      .values({ key, failures: 1, window_started_at: now, last_attempt_at: now, locked_until: null })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          failures: sql<number>`case when signin_throttle.locked_until > ${now} then signin_throttle.failures else signin_throttle.failures + 1 end`,
          last_attempt_at: now,
        }),
      )
      .returning(['failures', 'locked_until'])
      .executeTakeFirstOrThrow();
    const count = Number(row.failures);
    let blocked = !!row.locked_until && new Date(row.locked_until) > now;
    if (!blocked && count > this.settings.lockAfter) {
      // More attempts in flight than allowed: lock now.
      await this.lock(key);
      blocked = true;
    }
    if (!blocked) blocked = await this.overLimit(companyId, now);
    return { key, companyId, blocked, delayMs: blocked ? 0 : this.delayFor(count - 1), count };
  }

  private async overLimit(companyId: string, now: Date): Promise<boolean> {
    const since = new Date(now.getTime() - this.settings.windowMs);
    const rows = await this.db
      .selectFrom('signin_throttle')
      .select(['key', 'failures'])
      .where('key', 'in', [`company:${companyId}`, 'global'])
      .where('window_started_at', '>', since)
      .execute();
    for (const r of rows) {
      const limit = r.key === 'global' ? this.settings.globalLimit : this.settings.companyLimit;
      if (Number(r.failures) >= limit) return true;
    }
    return false;
  }

  private async lock(key: string): Promise<void> {
    await this.db
      .updateTable('signin_throttle')
      .set({ locked_until: new Date(Date.now() + this.settings.lockMs), failures: 0 })
      .where('key', '=', key)
      .execute();
  }

  async failure(attempt: Attempt): Promise<void> {
    if (!attempt.blocked && attempt.count >= this.settings.lockAfter) await this.lock(attempt.key);
    const now = new Date();
    const since = new Date(now.getTime() - this.settings.windowMs);
    for (const key of [`company:${attempt.companyId}`, 'global']) {
      await this.db
        .insertInto('signin_throttle')
        .values({ key, failures: 1, window_started_at: now, last_attempt_at: now, locked_until: null })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet({
            failures: sql<number>`case when signin_throttle.window_started_at > ${since} then signin_throttle.failures + 1 else 1 end`,
            window_started_at: sql<Date>`case when signin_throttle.window_started_at > ${since} then signin_throttle.window_started_at else ${now} end`,
            last_attempt_at: now,
          }),
        )
        .execute();
    }
  }

  async success(attempt: Attempt): Promise<void> {
    await this.db.deleteFrom('signin_throttle').where('key', '=', attempt.key).execute();
  }

  /** Forgets rows that no longer matter: quiet for a day and not locked. */
  async sweep(): Promise<void> {
    const now = new Date();
    await this.db
      .deleteFrom('signin_throttle')
      .where('last_attempt_at', '<', new Date(now.getTime() - 24 * 3600_000))
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
      .execute();
  }
}
