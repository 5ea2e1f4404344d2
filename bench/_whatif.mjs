/**
 * Not a bench (bench/run.ts skips names starting with `_`): replays a page's recorded
 * Lighthouse run through Lantern's LCP simulation with requests dropped or resized, to
 * see what a change in the page's requests would do before building it
 * (docs/decisions/private-entry.md). Record first with bench/_lantern.mjs:
 *
 *   LANTERN_SAVE=/tmp/status.json node bench/_lantern.mjs http://localhost:9000/private/status signin
 *   node bench/_whatif.mjs /tmp/status.json                       # as recorded
 *   node bench/_whatif.mjs /tmp/status.json drop=radix- add=private-D:4400
 *
 * `drop=text` removes every request whose URL contains text; `add=text:bytes` changes
 * their transfer size by bytes (negative to shrink). Prints the simulated LCP and the
 * pessimistic graph's requests with their simulated start and end.
 */
import { readFileSync } from 'node:fs';
import { LanternLargestContentfulPaint } from 'lighthouse/core/computed/metrics/lantern-largest-contentful-paint.js';
const saved = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const ops = process.argv.slice(3);
let log = saved.DevtoolsLog;
const idsByUrl = new Map();
for (const e of log) if (e.method === 'Network.requestWillBeSent') idsByUrl.set(e.params.requestId, e.params.request.url);
for (const op of ops) {
  const [kind, arg] = op.split('=');
  if (kind === 'drop') {
    const ids = new Set([...idsByUrl].filter(([, u]) => u.includes(arg)).map(([id]) => id));
    log = log.filter((e) => !ids.has(e.params?.requestId));
  } else if (kind === 'add') {
    const [sub, bytes] = arg.split(':');
    const ids = new Set([...idsByUrl].filter(([, u]) => u.includes(sub)).map(([id]) => id));
    for (const e of log) if (e.method === 'Network.loadingFinished' && ids.has(e.params.requestId)) e.params.encodedDataLength += Number(bytes);
  }
}
const data = { trace: saved.Trace, devtoolsLog: log, gatherContext: saved.GatherContext, settings: saved.settings, URL: saved.URL, SourceMaps: saved.SourceMaps, simulator: null };
const lcp = await LanternLargestContentfulPaint.request(data, { computedCache: new Map(), settings: saved.settings });
const rows = [...lcp.pessimisticEstimate.nodeTimings.entries()].filter(([n]) => n.type === 'network').sort((x, y) => x[1].startTime - y[1].startTime);
console.log(ops.join(' ') || 'as measured', 'LCP', Math.round(lcp.timing), 'pess', Math.round(lcp.pessimisticEstimate.timeInMs));
for (const [n, t] of rows) console.log('  ', Math.round(t.startTime), Math.round(t.endTime), Math.round(n.request.transferSize / 1024) + 'kB', n.request.url.replace(/https?:\/\/[^/]+/, '').slice(0, 50));
