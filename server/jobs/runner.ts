/**
 * Background jobs of the server (the mail worker, deadline reminders, retention).
 * One runner per app. Each job runs on its own interval, never overlapping itself
 * in this process, and on PostgreSQL never in two processes at once: a run first
 * takes a session-level advisory lock (`pg_try_advisory_lock`) on a connection it
 * holds for the run; a process that does not get it skips that round. PGlite is a
 * single process, so the in-process guard is enough there.
 *
 * `stop()` (wired to Fastify's onClose) clears the timers and waits for a run in
 * progress, so closing the app never cuts a job half way or leaves a lock behind.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { AppContext } from '../context.ts';
import type { JobOutcome } from '../metrics.ts';

export interface Job {
  /** Unique per app; also names the advisory lock. */
  name: string;
  /** Milliseconds between the end of one run and the start of the next. */
  intervalMs: number;
  run(ctx: AppContext, now: Date): Promise<void>;
}

/** The advisory-lock key of a job: the first 8 bytes of SHA-256("wb:job:<name>") as a signed bigint. */
export function lockKey(name: string): string {
  return createHash('sha256').update(`wb:job:${name}`).digest().readBigInt64BE(0).toString();
}

export class JobRunner {
  private readonly jobs = new Map<string, Job>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Map<string, Promise<boolean>>();
  private stopped = false;

  constructor(private readonly ctx: AppContext) {}

  add(job: Job): void {
    if (this.jobs.has(job.name)) throw new Error(`job ${job.name} is already registered`);
    this.jobs.set(job.name, job);
    this.ctx.metrics?.jobKnown(job.name);
  }

  /** Starts every job's timer; the first run comes after `firstDelayMs` (small, so start-up stays quick). */
  start(firstDelayMs = 1000): void {
    for (const job of this.jobs.values()) this.schedule(job, firstDelayMs);
  }

  private schedule(job: Job, delay: number) {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      void this.runNow(job.name).finally(() => this.schedule(job, job.intervalMs));
    }, delay);
    timer.unref();
    this.timers.set(job.name, timer);
  }

  /**
   * Runs one job now (tests, the purge CLI through the admin API). When a run of
   * it is already going in this process, waits for that one and answers whether it ran.
   * Resolves false when another process holds the job's lock.
   */
  runNow(name: string): Promise<boolean> {
    const job = this.jobs.get(name);
    if (!job) throw new Error(`no job named ${name}`);
    const current = this.running.get(name);
    if (current) return current.then(() => this.runNow(name));
    const run = this.runLocked(job).finally(() => this.running.delete(name));
    this.running.set(name, run);
    return run;
  }

  private async runLocked(job: Job): Promise<boolean> {
    if (this.stopped) return false;
    // Counted once per round, by the job's name only (server/metrics.ts).
    const started = performance.now();
    let counted = false;
    const count = (outcome: JobOutcome) => {
      if (counted) return;
      counted = true;
      this.ctx.metrics?.jobRun(job.name, outcome, (performance.now() - started) / 1000);
    };
    try {
      if (this.ctx.dbKind !== 'postgres') {
        await job.run(this.ctx, this.ctx.clock.now());
        count('ok');
        return true;
      }
      const key = lockKey(job.name);
      return await this.ctx.db.connection().execute(async (conn) => {
        const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${key}::bigint) as locked`.execute(conn);
        if (!rows[0]?.locked) {
          count('skipped');
          return false;
        }
        try {
          await job.run(this.ctx, this.ctx.clock.now());
          count('ok');
          return true;
        } finally {
          await sql`select pg_advisory_unlock(${key}::bigint)`.execute(conn);
        }
      });
    } catch (err) {
      count('failed');
      // A failed round is tried again at the next interval; the message only, no data.
      this.ctx.log.error({ job: job.name, err: { message: (err as Error).message } }, 'background job failed');
      return false;
    }
  }

  /** Stops scheduling and waits for the runs in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await Promise.allSettled([...this.running.values()]);
  }
}
