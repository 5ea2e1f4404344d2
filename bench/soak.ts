/**
 * npm run bench -- soak [minutes]   (default 30)
 *
 * Faults and time (issue 41 §4): two compiled server processes on a private PostgreSQL
 * cluster started here (test/helpers/pg-cluster.ts; the binaries under
 * /usr/lib/postgresql) and one data folder; reporters file cases with a file, sign in
 * and send messages, handlers read the inbox, answer and change statuses, at a steady
 * rate. At 40 % of the run PostgreSQL is restarted (down 2 s); at 60 % one process is
 * killed with SIGKILL and started again on its port. Prints the errors by kind (and
 * those outside the faults' seconds), p99 by route per minute, each process's RSS per
 * minute, and the reconciliation of what was sent with what the handlers see (lost,
 * doubled, foreign). Needs `npm run build`. Figures only; test/server/soak.test.ts
 * asserts the reconciliation on a two-minute run.
 */
import { formatSoak, runSoak } from '../test/helpers/soak.ts';
import { servedAsNpmStart } from './_servers.ts';

servedAsNpmStart('soak'); // exits when build/ is missing
const minutes = Number(process.argv[2] ?? 30);
if (!(minutes > 0)) {
  process.stderr.write('usage: npm run bench -- soak [minutes]\n');
  process.exit(2);
}
const report = await runSoak({ seconds: Math.round(minutes * 60), log: (l) => console.log(l) });
console.log(formatSoak(report));
const first = Math.min(...Object.keys(report.rss).map(Number).filter((m) => m >= 1));
const last = Math.max(...Object.keys(report.rss).map(Number));
if (Number.isFinite(first) && last > first) {
  const a0 = report.rss[first]?.A ?? 0;
  const a1 = report.rss[last]?.A ?? 0;
  console.log(`RSS of A from minute ${first + 1} to ${last + 1}: ${a0.toFixed(0)} → ${a1.toFixed(0)} MB (${(((a1 - a0) / a0) * 100).toFixed(1)} %; aim: within 10 % after warm-up)`);
}
