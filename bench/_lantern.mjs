/**
 * Not a bench (bench/run.ts skips names starting with `_`): a look inside Lighthouse's
 * LCP simulation (Lantern) for one page of a running server. Prints the simulated FCP
 * and LCP and every node of the pessimistic LCP graph with its simulated start and
 * end: requests with size and priority, main-thread tasks with their observed
 * duration and what they did. Used for performance.md's ninth and tenth rounds.
 *
 *   node bench/_lantern.mjs http://localhost:9000/online-form
 *   node bench/_lantern.mjs http://localhost:9000/private/status signin
 *
 * `signin` files a case by phone (the server must run with POW_DIFFICULTY=0) and
 * signs in first, keeping the tab's session as the lighthouse bench does.
 * LANTERN_SAVE=file also writes the run's trace and network log for bench/_whatif.mjs.
 * Also prints total blocking time and the long tasks Lighthouse found.
 */
import lighthouse from 'lighthouse';
import puppeteer from 'puppeteer-core';
import { LanternLargestContentfulPaint } from 'lighthouse/core/computed/metrics/lantern-largest-contentful-paint.js';
import { LanternFirstContentfulPaint } from 'lighthouse/core/computed/metrics/lantern-first-contentful-paint.js';
const url = process.argv[2];
const signIn = process.argv[3];
const browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
const page = await browser.newPage();
if (signIn) {
  const origin = new URL(url).origin;
  const info = await (await fetch(`${origin}/api/public/case/company-info`)).json();
  const res = await fetch(`${origin}/api/public/case/new/by-phone`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ whistleblowerRelation: 'Employee', protectionOfficer: { id: info.protectionOfficers[0].id }, caseAccount: { follow: true, password: 'pass1234' } }) });
  const { caseDto } = await res.json();
  await page.goto(`${origin}/private/status`);
  await page.waitForSelector('#caseNumber');
  await page.type('#caseNumber', caseDto.caseNumber.replace(/(.{4})(?=.)/g, '$1-'));
  await page.type('#password', 'pass1234');
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  await page.waitForFunction(() => location.pathname === '/private/status');
  const cdp = await page.createCDPSession(); await cdp.send('Network.clearBrowserCache'); await cdp.detach();
} else { const w = await browser.newPage(); await w.goto(url); await w.close(); }
const result = await lighthouse(url, { logLevel: 'error', output: 'json', disableStorageReset: !!signIn }, undefined, page);
const a = result.artifacts;
if (process.env.LANTERN_SAVE) (await import('node:fs')).writeFileSync(process.env.LANTERN_SAVE, JSON.stringify({ Trace: a.Trace, DevtoolsLog: a.DevtoolsLog, GatherContext: a.GatherContext, settings: result.lhr.configSettings, URL: a.URL, SourceMaps: a.SourceMaps }));
const data = { trace: a.Trace, devtoolsLog: a.DevtoolsLog, gatherContext: a.GatherContext, settings: result.lhr.configSettings, URL: a.URL, SourceMaps: a.SourceMaps, simulator: null };
const context = { computedCache: new Map(), settings: result.lhr.configSettings };
const lcp = await LanternLargestContentfulPaint.request(data, context);
const fcp = await LanternFirstContentfulPaint.request(data, context);
for (const t of result.lhr.audits['long-tasks']?.details?.items ?? []) console.log('  long', Math.round(t.startTime), Math.round(t.duration), t.url);
const lcpEl = result.lhr.audits['largest-contentful-paint-element']?.details?.items?.[0]?.items?.[0]?.node;
if (lcpEl) console.log('LCP element', lcpEl.selector, '|', lcpEl.snippet?.slice(0, 120), '|', lcpEl.nodeLabel?.slice(0, 80));
console.log('TBT', Math.round(result.lhr.audits['total-blocking-time'].numericValue), 'CLS', result.lhr.audits['cumulative-layout-shift'].numericValue, 'SI', Math.round(result.lhr.audits['speed-index'].numericValue), 'FCPa', Math.round(result.lhr.audits['first-contentful-paint'].numericValue));
console.log('FCP', Math.round(fcp.timing), 'LCP', Math.round(lcp.timing), 'opt', Math.round(lcp.optimisticEstimate.timeInMs), 'pess', Math.round(lcp.pessimisticEstimate.timeInMs), 'perf', result.lhr.categories.performance.score);
for (const [name, est] of [['pessimistic', lcp.pessimisticEstimate]]) {
  console.log('--', name);
  const rows = [...est.nodeTimings.entries()].sort((x, y) => x[1].startTime - y[1].startTime);
  for (const [node, t] of rows) {
    const what = node.type === 'network' ? `${node.request.resourceType} ${node.request.priority} ${Math.round(node.request.transferSize / 1024)}kB ${node.request.url.replace(/https?:\/\/[^/]+/, '').slice(0, 50)}` : `cpu ${Math.round(node.duration / 1000)}ms obs @${Math.round((node.startTime - rows[0][0].startTime) / 1000)} ${node.childEvents.filter((e) => ['Layout', 'Paint', 'ParseHTML', 'EvaluateScript', 'FunctionCall', 'v8.evaluateModule', 'TimerFire', 'RunMicrotasks'].includes(e.name)).map((e) => e.name).slice(0, 6).join(',')}`;
    console.log(String(Math.round(t.startTime)).padStart(6), String(Math.round(t.endTime)).padStart(6), what);
    if (node.type === 'cpu' && node.duration > 30000) {
      const c = new Map(); for (const e of node.childEvents) if (e.dur > 1000) c.set(e.name, (c.get(e.name) ?? 0) + e.dur);
      console.log('        ', [...c].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, v]) => `${k}:${Math.round(v / 1000)}`).join(' '));
      for (const e of node.childEvents) if (e.dur > 2000 && /Evaluate|Compile|FunctionCall|ParseHTML|v8.run|Script/.test(e.name)) console.log("          ", e.name, Math.round((e.ts - node.startTime)/1000), Math.round(e.dur/1000), JSON.stringify(e.args?.data ?? {}).slice(0, 160));
    }
  }
}
await browser.close();
