/**
 * The server's notion of "now" for everything that runs on a schedule: mail
 * back-off and batching, deadline reminders, retention. One per app (AppContext),
 * so a test can move time forward without waiting (test/server/mail.test.ts).
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock a test moves by hand: starts at the real time, `advance` adds to it. */
export class TestClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
