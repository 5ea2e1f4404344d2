/**
 * Sign-in throttle (DESIGN.md §4, issue 11 finding 3). State lives in the database
 * (`signin_throttle`), so it holds across restarts and several server processes on
 * one PostgreSQL; every count is one atomic upsert.
 *
 * - Per case number: every attempt is counted before its password is checked (so
 *   parallel guesses cannot slip past), a growing delay applies after a few
 *   failures, and after `lockAfter` failures the case number is locked for
 *   `lockMs`. The row key is a keyed hash (HMAC) of company and typed number, so an
 *   unknown case number is throttled exactly like a known one and the table never
 *   holds what a visitor typed. Failures add up whoever sends them.
 * - Per client: failures in a window, keyed by a keyed hash of the client address
 *   (the HMAC key is secret and derived from the master-key-protected data key; the
 *   address itself is never stored or logged). Past `clientFreeFailures` each of
 *   that client's attempts waits a growing delay, capped at `clientMaxDelayMs`, so a
 *   reporter who shares an address with an attacker (a NAT, a proxy not configured
 *   as trusted) still gets in within a few seconds. `clientLimit`, off by default,
 *   refuses a client outright past that many failures in a window.
 *
 * There is no company-wide or global lock any more: failures sent at other case
 * numbers, however many, never keep a reporter with the right password out
 * (docs/decisions/identity-throttle.md). A success clears the case number's row.
 */
import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';

export interface ThrottleSettings {
  /** Failures of one case number before delays begin. */
  freeFailures: number;
  /** First delay; doubles with each further failure. */
  delayBaseMs: number;
  maxDelayMs: number;
  /** Failures that lock a case number. */
  lockAfter: number;
  lockMs: number;
  /** Failures one client may make in a window before its attempts are delayed. */
  clientFreeFailures: number;
  /** The client's first delay past its free failures; doubles with each further failure. */
  clientDelayBaseMs: number;
  clientMaxDelayMs: number;
  /**
   * Failures in a window after which that client is refused until the window ends;
   * 0 (the default) never refuses. Only sensible when every client has its own
   * address (trusted proxies configured), or it becomes a lock on everyone behind one.
   */
  clientLimit: number;
  windowMs: number;
  /**
   * Failed sign-ins of one company within `burstWindowMs` from which its sign-in
   * form asks for a proof-of-work (SIGNIN_BURST_THRESHOLD); 0 never asks.
   */
  burstThreshold: number;
  burstWindowMs: number;
  /** Leading zero bits of the sign-in proof-of-work during a burst (SIGNIN_POW_DIFFICULTY). */
  powDifficulty: number;
}

export const DEFAULT_THROTTLE: ThrottleSettings = {
  freeFailures: 3,
  delayBaseMs: 1000,
  maxDelayMs: 16_000,
  lockAfter: 10,
  lockMs: 15 * 60_000,
  clientFreeFailures: 20,
  clientDelayBaseMs: 500,
  clientMaxDelayMs: 3_000,
  clientLimit: 0,
  windowMs: 10 * 60_000,
  burstThreshold: 100,
  burstWindowMs: 10 * 60_000,
  powDifficulty: 18,
};

export interface Attempt {
  key: string;
  /** The client's row, when the attempt came with a client address. */
  clientKey?: string;
  companyId: string;
  /** Refused whatever the password: locked case number, or a client over its limit (when one is set). */
  blocked: boolean;
  /** Wait this long before answering (applies to every answer alike). */
  delayMs: number;
  /** This attempt's number since the last success or lockout. */
  count: number;
  /** When blocked: how long until attempts are checked again (told to the reporter, issue 17 §2). */
  pausedMs?: number;
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

  clientRowKey(clientAddress: string): string {
    return 'client:' + createHmac('sha256', this.hmacKey).update(`client\n${clientAddress}`).digest('base64url');
  }

  clientDelayFor(previousFailures: number): number {
    const s = this.settings;
    if (previousFailures < s.clientFreeFailures) return 0;
    return Math.min(s.clientMaxDelayMs, s.clientDelayBaseMs * 2 ** (previousFailures - s.clientFreeFailures));
  }

  /**
   * Counts an attempt before its password is checked. `clientAddress` is the
   * request's address (req.ip, which honours the configured trusted proxies); it is
   * only ever hashed.
   */
  async begin(companyId: string, caseNumber: string, clientAddress?: string): Promise<Attempt> {
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
    let pausedMs = blocked ? new Date(row.locked_until!).getTime() - now.getTime() : 0;
    if (!blocked && count > this.settings.lockAfter) {
      // More attempts in flight than allowed: lock now.
      await this.lock(key);
      blocked = true;
      pausedMs = this.settings.lockMs;
    }
    let delayMs = blocked ? 0 : this.delayFor(count - 1);
    let clientKey: string | undefined;
    if (clientAddress !== undefined) {
      clientKey = this.clientRowKey(clientAddress);
      // Counted now like the case row (parallel requests cannot pass the budget);
      // a success gives the attempt back (success()).
      const client = await this.countClient(clientKey, now);
      if (client.pausedMs !== undefined) {
        blocked = true;
        pausedMs = Math.max(pausedMs, client.pausedMs);
      } else delayMs = Math.max(delayMs, this.clientDelayFor(client.count - 1));
    }
    return { key, clientKey, companyId, blocked, delayMs: blocked ? 0 : delayMs, count, ...(blocked ? { pausedMs } : {}) };
  }

  /**
   * An attempt counted per client only, with no row for the name typed and so no lock
   * on it: the handlers' sign-in (server/handlers/auth.ts), where a password and a
   * second factor are both needed and a lock by e-mail address would let anyone who
   * knows a work address keep its owner out (issue 39 item 4).
   */
  async beginClient(companyId: string, clientAddress?: string): Promise<Attempt> {
    if (clientAddress === undefined) return { key: '', companyId, blocked: false, delayMs: 0, count: 1 };
    const clientKey = this.clientRowKey(clientAddress);
    const client = await this.countClient(clientKey, new Date());
    if (client.pausedMs !== undefined) return { key: '', clientKey, companyId, blocked: true, delayMs: 0, count: client.count, pausedMs: client.pausedMs };
    return { key: '', clientKey, companyId, blocked: false, delayMs: this.clientDelayFor(client.count - 1), count: client.count };
  }

  /** One more attempt in the client's window (a fresh window once the last has passed); `pausedMs` when it is over the client limit. */
  private async countClient(clientKey: string, now: Date): Promise<{ count: number; pausedMs?: number }> {
    const since = new Date(now.getTime() - this.settings.windowMs);
    const c = await this.db
      .insertInto('signin_throttle')
      .values({ key: clientKey, failures: 1, window_started_at: now, last_attempt_at: now, locked_until: null })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          failures: sql<number>`case when signin_throttle.window_started_at > ${since} then signin_throttle.failures + 1 else 1 end`,
          window_started_at: sql<Date>`case when signin_throttle.window_started_at > ${since} then signin_throttle.window_started_at else ${now} end`,
          last_attempt_at: now,
        }),
      )
      .returning(['failures', 'window_started_at'])
      .executeTakeFirstOrThrow();
    const count = Number(c.failures);
    if (this.settings.clientLimit > 0 && count > this.settings.clientLimit) return { count, pausedMs: new Date(c.window_started_at).getTime() + this.settings.windowMs - now.getTime() };
    return { count };
  }

  private async lock(key: string): Promise<void> {
    await this.db
      .updateTable('signin_throttle')
      .set({ locked_until: new Date(Date.now() + this.settings.lockMs), failures: 0 })
      .where('key', '=', key)
      .execute();
  }

  /** Records a refused attempt and counts it towards the company's burst; returns how long sign-in is now paused (0 when it is not). */
  async failure(attempt: Attempt): Promise<number> {
    await this.countBurst(attempt.companyId);
    if (attempt.blocked) return attempt.pausedMs ?? 0;
    if (attempt.key === '') return 0; // a client-only attempt (beginClient) locks nothing
    if (attempt.count >= this.settings.lockAfter) {
      await this.lock(attempt.key);
      return this.settings.lockMs;
    }
    return 0;
  }

  burstRowKey(companyId: string): string {
    return 'burst:' + createHmac('sha256', this.hmacKey).update(`burst\n${companyId}`).digest('base64url');
  }

  /** One more failed sign-in of the company in the current window (one atomic upsert, shared by every process). */
  private async countBurst(companyId: string): Promise<void> {
    if (this.settings.burstThreshold <= 0) return;
    const now = new Date();
    const since = new Date(now.getTime() - this.settings.burstWindowMs);
    await this.db
      .insertInto('signin_throttle')
      .values({ key: this.burstRowKey(companyId), failures: 1, window_started_at: now, last_attempt_at: now, locked_until: null })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          failures: sql<number>`case when signin_throttle.window_started_at > ${since} then signin_throttle.failures + 1 else 1 end`,
          window_started_at: sql<Date>`case when signin_throttle.window_started_at > ${since} then signin_throttle.window_started_at else ${now} end`,
          last_attempt_at: now,
        }),
      )
      .execute();
  }

  /**
   * Whether the company sees a burst: at least `burstThreshold` failed sign-ins in
   * the current window. Its sign-in form then asks for a proof-of-work; nobody is
   * refused for it, a reporter's browser solves it while they type.
   */
  async isBurst(companyId: string): Promise<boolean> {
    const { burstThreshold, burstWindowMs } = this.settings;
    if (burstThreshold <= 0) return false;
    const row = await this.db
      .selectFrom('signin_throttle')
      .select('failures')
      .where('key', '=', this.burstRowKey(companyId))
      .where('window_started_at', '>', new Date(Date.now() - burstWindowMs))
      .executeTakeFirst();
    return !!row && Number(row.failures) >= burstThreshold;
  }

  async success(attempt: Attempt): Promise<void> {
    if (attempt.key !== '') await this.db.deleteFrom('signin_throttle').where('key', '=', attempt.key).execute();
    if (attempt.clientKey) {
      await this.db
        .updateTable('signin_throttle')
        .set({ failures: sql<number>`greatest(signin_throttle.failures - 1, 0)` })
        .where('key', '=', attempt.clientKey)
        .execute();
    }
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
