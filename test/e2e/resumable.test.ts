/**
 * Issue 16 item 3 in real Chromium against the real server with the built SPA: a
 * 300 MB file sent with the online form survives two cut connections and a server
 * restart and is not sent again from the start. The browser talks to the server
 * through a small TCP relay (./relay.ts), which can cut every connection at once and
 * follows the server to its new port after the restart (the page keeps its origin).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import os from 'node:os';
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, mkdtempSync, openSync, readFileSync, rmSync, truncateSync, writeSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { distDir, launchBrowser, openPage, type OpenedPage } from './harness.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { relay } from './relay.ts';

const read = (area: string) =>
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, `../../src/i18n/${area}/en.json`), 'utf8')) as Record<string, string>;
const en = { ...read('common'), ...read('forms') };
const escape = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const field = (page: Page, key: string) => page.getByLabel(new RegExp(`^${escape(en[key]!)}\\*?$`));

const SIZE = 300 * 1024 * 1024;
const MB = 1024 * 1024;

let browser: Browser;
let server: TestServer;
let opened: OpenedPage | undefined;
const proxy = relay();
let proxyPort: number;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-resumable-e2e-'));
const video = path.join(tmp, 'meeting.mp4');
let expectedSha: string;

beforeAll(async () => {
  // 300 MB without writing 300 MB: an MP4 signature, then a sparse run of zeros and a
  // marker near the end, so a wrong offset anywhere would change the hash.
  const fd = openSync(video, 'w');
  writeSync(fd, Buffer.from('\0\0\0\x18ftypisom\0\0\0\0', 'latin1'), 0, 16, 0);
  writeSync(fd, Buffer.from('the end of the recording'), 0, 24, SIZE - 1000);
  closeSync(fd);
  truncateSync(video, SIZE);
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(video, { highWaterMark: 4 * MB })) hash.update(chunk as Buffer);
  expectedSha = hash.digest('hex');
  [browser, server] = await Promise.all([launchBrowser(), startTestServer({ distDir: distDir(), seedDemo: true })]);
  proxyPort = await proxy.listen();
  proxy.point(server.port);
}, 120_000);

afterAll(async () => {
  await opened?.close().catch(() => {});
  await browser?.close();
  await proxy.close();
  await server?.cleanup();
  rmSync(tmp, { recursive: true, force: true });
});

async function waitFor(what: () => boolean, timeoutMs: number, label: string) {
  const until = Date.now() + timeoutMs;
  while (!what()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('resumable upload', () => {
  it('a 300 MB file survives two cut connections and a server restart, continues where it stopped, and the case gets it whole', async () => {
    opened = await openPage(browser, { locale: 'en-GB' });
    const { page } = opened;
    const patches: number[] = [];
    let creations = 0;
    page.on('request', (r) => {
      if (!r.url().includes('/api/public/uploads')) return;
      if (r.method() === 'PATCH') patches.push(Number(r.headers()['upload-offset']));
      if (r.method() === 'POST') creations++;
    });
    await page.goto(`http://localhost:${proxyPort}/online-form`);
    await page.getByRole('heading', { level: 2 }).first().waitFor();
    const handlerToken = (await createHandlerAccount(server.ctx.db, 'nordlys-energi', 'E2E Handler')).token;
    const countCases = async (s: TestServer) =>
      ((await (await fetch(`${s.url}/api/handler/cases`, { headers: { authorization: `Bearer ${handlerToken}` } })).json()) as { cases: unknown[] }).cases.length;
    const casesBefore = await countCases(server);

    await field(page, 'forms.relation.label').fill('Employee');
    await field(page, 'forms.describe.description').fill('The recording of the meeting where it was agreed.');
    await page.locator('section', { has: page.getByRole('heading', { name: en['forms.step.describeProblem.title'] }) }).getByRole('radio', { name: en['forms.no'] }).check();
    await page.getByRole('radio', { name: en['forms.related.company'] }).check();
    await field(page, 'forms.related.unit').fill('Board');
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: en['forms.documents.choose'] }).click()]);
    await chooser.setFiles(video);
    await page.getByRole('radio', { name: en['forms.identity.anonymous'] }).check();
    await page.getByRole('radio', { name: en['forms.follow.notFollow'] }).check();
    await page.getByRole('checkbox', { name: new RegExp(en['forms.terms.accept']!) }).check();

    // Chromium's own throttling, so the cuts land mid-file whatever the machine's speed.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 25 * MB });
    const button = page.getByRole('button', { name: en['forms.send.online'] });
    await expect.poll(() => button.isEnabled()).toBe(true);
    await button.click();

    // The bar shows the speed and the time left.
    const rate = page.getByTestId('upload-rate');
    await rate.waitFor({ timeout: 30_000 });
    expect(await rate.textContent()).toMatch(/\/s · .+ left$/);

    // First cut: the connection drops mid-file.
    await waitFor(() => proxy.sent() > 60 * MB, 60_000, '60 MB sent');
    proxy.cut();
    // The form says it is retrying, then goes on.
    await waitFor(() => patches.length >= 2, 30_000, 'a resumed PATCH');

    // Second cut, with the server restarted on the same data folder in between.
    await waitFor(() => proxy.sent() > 150 * MB, 60_000, '150 MB sent');
    proxy.point(null);
    proxy.cut();
    const { dataDir, cleanup } = server;
    await server.stop();
    server = await startTestServer({ distDir: distDir(), seedDemo: true, dataDir, databaseUrl: server.config.databaseUrl });
    const restarted = server;
    // Cleaning up the restarted server removes the shared folder; the first one drops its database.
    server = { ...restarted, cleanup: async () => (await restarted.stop(), await cleanup()) };
    proxy.point(server.port);

    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 }).catch(() => {});
    const dialog = page.getByRole('dialog', { name: en['forms.success.online.title'] });
    await dialog.waitFor({ timeout: 120_000 });
    const caseNumber = (await dialog.getByTestId('case-number').textContent())!.replace(/ /g, '');

    // Never from the start again: one upload created, and every PATCH after the first
    // continued from a later offset than the one before.
    expect(creations).toBe(1);
    expect(patches.length).toBeGreaterThanOrEqual(3);
    expect(patches[0]).toBe(0);
    for (let i = 1; i < patches.length; i++) {
      expect(patches[i]!).toBeGreaterThan(0);
      expect(patches[i]!).toBeGreaterThanOrEqual(patches[i - 1]!);
    }
    expect(patches[patches.length - 1]!).toBeGreaterThan(150 * MB - 64 * MB);
    // Less than a fifth of the file went twice (what was in flight at each cut; a
    // refused PATCH closes its connection, so a browser's own resend stops at once).
    expect(proxy.sent()).toBeLessThan(SIZE * 1.2);

    // The case has the file, whole, and exactly one case was made.
    expect(await countCases(server)).toBe(casesBefore + 1);
    const c = (await (await fetch(`${server.url}/api/handler/cases/${caseNumber}`, { headers: { authorization: `Bearer ${handlerToken}` } })).json()) as {
      files: { id: string; name: string; size: number }[];
    };
    expect(c.files.map((f) => [f.name, f.size])).toEqual([['meeting.mp4', SIZE]]);
    const res = await fetch(`${server.url}/api/handler/cases/${caseNumber}/files/${c.files[0]!.id}`, { headers: { authorization: `Bearer ${handlerToken}` } });
    expect(res.status).toBe(200);
    const got = createHash('sha256');
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) got.update(chunk);
    expect(got.digest('hex')).toBe(expectedSha);
    // Nothing of the upload is left in the browser's storage.
    expect(await page.evaluate(() => Object.keys(localStorage).length + Object.keys(sessionStorage).length)).toBe(0);
  }, 300_000);

  it('when the case cannot be made after the uploads, sending again takes the same uploads without sending the files again', async () => {
    const p = await openPage(browser, { locale: 'en-GB' });
    try {
      const { page } = p;
      const calls: string[] = [];
      page.on('request', (r) => {
        if (r.url().includes('/api/public/')) calls.push(`${r.method()} ${new URL(r.url()).pathname.replace(/[0-9a-f-]{36}$/, ':id')}`);
      });
      // The first case creation is cut off before it reaches the server.
      let failed = false;
      await page.route('**/api/public/case/new/by-form', (route) => (failed ? route.continue() : ((failed = true), route.abort('connectionreset'))));
      await page.goto(`http://localhost:${proxyPort}/online-form`);
      await page.getByRole('heading', { level: 2 }).first().waitFor();
      await field(page, 'forms.relation.label').fill('Employee');
      await field(page, 'forms.describe.description').fill('Second try.');
      await page.locator('section', { has: page.getByRole('heading', { name: en['forms.step.describeProblem.title'] }) }).getByRole('radio', { name: en['forms.no'] }).check();
      await page.getByRole('radio', { name: en['forms.related.company'] }).check();
      await field(page, 'forms.related.unit').fill('Board');
      const small = path.join(tmp, 'clip.mp4');
      const fd = openSync(small, 'w');
      writeSync(fd, Buffer.from('\0\0\0\x18ftypisom', 'latin1'));
      closeSync(fd);
      truncateSync(small, 3 * MB);
      const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: en['forms.documents.choose'] }).click()]);
      await chooser.setFiles(small);
      await page.getByRole('radio', { name: en['forms.identity.anonymous'] }).check();
      await page.getByRole('radio', { name: en['forms.follow.notFollow'] }).check();
      await page.getByRole('checkbox', { name: new RegExp(en['forms.terms.accept']!) }).check();
      const button = page.getByRole('button', { name: en['forms.send.online'] });
      await expect.poll(() => button.isEnabled()).toBe(true);
      await button.click();
      const failure = page.getByRole('alertdialog', { name: en['dialog.failure.title'] });
      await failure.waitFor({ timeout: 30_000 });
      await failure.getByRole('button', { name: en['dialog.failure.close'] }).click();
      const firstTry = [...calls];
      expect(firstTry.filter((c) => c === 'POST /api/public/upload-sessions')).toHaveLength(1);
      expect(firstTry.filter((c) => c === 'POST /api/public/uploads')).toHaveLength(1);
      expect(firstTry.filter((c) => c.startsWith('PATCH'))).not.toHaveLength(0);

      await expect.poll(() => button.isEnabled()).toBe(true);
      await button.click();
      await page.getByRole('dialog', { name: en['forms.success.online.title'] }).waitFor({ timeout: 30_000 });
      // The second try: no new session, no new upload, no bytes; only the case (after the
      // key-log read every send starts with: this company takes no sealed cases, so the plain send).
      expect(calls.slice(firstTry.length).filter((c) => c !== 'GET /api/public/pow/challenge')).toEqual(['GET /api/public/key-log', 'POST /api/public/case/new/by-form']);
    } finally {
      await p.close();
    }
  }, 120_000);
});
