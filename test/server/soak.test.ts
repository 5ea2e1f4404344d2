/**
 * The soak's two-minute version (issue 41 §4; test/helpers/soak.ts, `npm run bench --
 * soak` for the long one): two server processes on a private PostgreSQL cluster,
 * reporters filing cases with a file, signing in and sending messages, handlers
 * answering; PostgreSQL restarted at 40 % of the run, one process killed with SIGKILL
 * and started again at 60 %. Then everything is read back as a handler, page by page,
 * and reconciled with what was sent: every acknowledged case and message is there
 * exactly once, nothing is there twice, nothing is there that was never sent, every
 * case has its file. An assertion on data, never on time: how many requests failed
 * during the faults, and how slow they were, is printed, not asserted.
 *
 * Runs only with DATABASE_URL (.ci/run's PostgreSQL pass), as two-processes.test.ts;
 * the cluster it restarts is its own (the binaries under /usr/lib/postgresql), never the
 * one DATABASE_URL names, which the rest of the pass shares. SOAK_SECONDS sets the length.
 */
import { describe, expect, it } from 'vitest';
import { formatSoak, runSoak } from '../helpers/soak.ts';
import { postgresBin } from '../helpers/pg-cluster.ts';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 120);

describe.skipIf(!process.env.DATABASE_URL)('soak: a PostgreSQL restart and a kill -9 under steady load', () => {
  it(
    'loses nothing, doubles nothing: what the handlers see is exactly what the servers acknowledged, and nothing else',
    async () => {
      expect(postgresBin(), 'PostgreSQL binaries under /usr/lib/postgresql').toBeDefined();
      const report = await runSoak({ seconds: SECONDS, log: (l) => console.log(l) });
      console.log(formatSoak(report));
      const r = report.reconciled;
      // Both faults happened while the load ran.
      expect(report.faults.map((f) => f.what)).toEqual(['PostgreSQL restart', 'kill -9 of one process, started again']);
      // The load did something on both sides of the faults.
      expect(report.sent.cases).toBeGreaterThan(10);
      expect(report.sent.messages).toBeGreaterThan(10);
      expect({ lostCases: r.lostCases, lostMessages: r.lostMessages }).toEqual({ lostCases: [], lostMessages: [] });
      expect({ doubledCases: r.doubledCases, doubledMessages: r.doubledMessages }).toEqual({ doubledCases: [], doubledMessages: [] });
      expect({ foreignCases: r.foreignCases, foreignMessages: r.foreignMessages }).toEqual({ foreignCases: [], foreignMessages: [] });
      expect(r.filesWrong).toEqual([]);
      // Exactly: every case seen is an acknowledged one or one whose answer never came.
      expect(r.casesSeen).toBeGreaterThanOrEqual(report.sent.cases);
      expect(r.casesSeen).toBeLessThanOrEqual(report.sent.cases + report.sent.casesUnanswered);
      expect(r.messagesSeen).toBeGreaterThanOrEqual(report.sent.messages);
      expect(r.messagesSeen).toBeLessThanOrEqual(report.sent.messages + report.sent.messagesUnanswered);
    },
    SECONDS * 1000 + 180_000,
  );
});
