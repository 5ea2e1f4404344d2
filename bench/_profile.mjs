/**
 * Not a bench (bench/run.ts skips names starting with `_`): a CPU profile of one page's
 * cold load in Chromium at 4× CPU slowdown (Lighthouse's mobile factor), for finding
 * what the main thread does, which Lighthouse's figures are too noisy on this machine
 * to show (performance.md, thirteenth round). Prints the functions with the most self
 * and inclusive time, and which components React rendered below ROOTFN (default
 * `performSyncWorkOnRoot`: the synchronous renders, one task each). Function names
 * need a build without minification:
 *
 *   npx vite build --minify false --outDir /tmp/plain   (and the ssr/private builds into it)
 *   DIST_DIR=/tmp/plain PORT=9100 POW_DIFFICULTY=0 node build/server/main.js
 *   node bench/_profile.mjs http://localhost:9100/online-form
 */
import puppeteer from 'puppeteer-core';
const url = process.argv[2];
const browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
const w = await browser.newPage(); await w.goto(url); await w.close();
const page = await browser.newPage();
const cdp = await page.createCDPSession();
await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
await cdp.send('Profiler.start');
await page.goto(url, { waitUntil: 'networkidle0' });
await new Promise((r) => setTimeout(r, 1500));
const { profile } = await cdp.send('Profiler.stop');
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map(), incl = new Map();
const label = (n) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber + 1}`;
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const d = (dt[i + 1] ?? 0) / 1000;
  let n = byId.get(profile.samples[i]);
  self.set(label(n), (self.get(label(n)) ?? 0) + d);
  const seen = new Set();
  while (n) { const l = label(n); if (!seen.has(l)) { seen.add(l); incl.set(l, (incl.get(l) ?? 0) + d); } n = byId.get(parent.get(n.id)); }
}
const under = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const d = (dt[i + 1] ?? 0) / 1000;
  let n = byId.get(profile.samples[i]);
  const chain = [];
  while (n) { chain.push(n); n = byId.get(parent.get(n.id)); }
  const sync = chain.findIndex((x) => x.callFrame.functionName === (process.env.ROOTFN || 'performSyncWorkOnRoot'));
  if (sync < 0) continue;
  // the outermost component rendered below it: the node just below the first renderWithHooks from the top
  const rw = chain.slice(0, sync).reverse();
  const comps = [];
  for (let j = 0; j < rw.length - 1; j++) if (rw[j].callFrame.functionName === 'renderWithHooks') comps.push(rw[j + 1].callFrame.functionName);
  const key = comps.length ? comps.slice(0, 3).join('>') : (rw.find((x) => /commit|complete|begin/.test(x.callFrame.functionName))?.callFrame.functionName ?? '-');
  under.set(key, (under.get(key) ?? 0) + d);
}
console.log('UNDER', process.env.ROOTFN || 'performSyncWorkOnRoot');
console.log([...under].sort((a, b) => b[1] - a[1]).slice(0, 30).map(([k, v]) => `${v.toFixed(1).padStart(7)} ${k}`).join('\n'));
const top = (m, k) => [...m].filter(([l]) => !/^\((idle|program|root)\)/.test(l)).sort((a, b) => b[1] - a[1]).slice(0, k).map(([l, v]) => `${v.toFixed(1).padStart(7)} ${l}`).join('\n');
console.log('SELF\n' + top(self, 35));
console.log('INCL\n' + top(incl, 45));
await browser.close();
