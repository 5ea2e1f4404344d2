/**
 * Not a bench (bench/run.ts skips names starting with `_`): a page's long tasks as the
 * browser itself reports them (PerformanceObserver `longtask`), at 4× CPU slowdown with
 * the cache disabled, N loads in one browser after a warm-up load. Prints each load's
 * blocking time (the sum of each task's time over 50 ms) and its tasks, then the sorted
 * figures: a steadier view of where a page blocks than Lighthouse's one simulated run.
 * Used for performance.md's fourteenth round.
 *
 *   node bench/_longtasks.mjs http://localhost:9000/online-form 6
 */
import puppeteer from 'puppeteer-core';
const [url, n = '5'] = process.argv.slice(2);
const browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
const w = await browser.newPage(); await w.goto(url); await w.close();
const out = [];
for (let i = 0; i < Number(n); i++) {
  const page = await browser.newPage();
  const cdp = await page.createCDPSession();
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await page.evaluateOnNewDocument(() => { window.__lt = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__lt.push([Math.round(e.startTime), Math.round(e.duration)]); }).observe({ type: 'longtask', buffered: true }); });
  await page.goto(url, { waitUntil: 'networkidle0' });
  await new Promise((r) => setTimeout(r, 1500));
  const lt = await page.evaluate(() => window.__lt);
  const tbt = lt.reduce((s, [, d]) => s + Math.max(0, d - 50), 0);
  out.push(tbt);
  console.log('tbt', tbt, 'max', Math.max(0, ...lt.map((x) => x[1])), JSON.stringify(lt));
  await page.close();
}
console.log('TBT sorted', out.sort((a, b) => a - b).join(' '));
await browser.close();
