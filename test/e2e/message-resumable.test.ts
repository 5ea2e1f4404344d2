/**
 * Resumable uploads for a private message (docs/decisions/resumable-uploads.md, "Files
 * with a private message") in real Chromium against the real server with the built
 * SPA: a signed-in reporter attaches a 40 MB file to a message, the connection is cut
 * once mid-upload by the test's relay (./relay.ts), the composer says it is retrying
 * and the upload continues where it stopped, not from the start; the message arrives
 * with the file whole, and the handler sees it. A message call cut after its uploads
 * is sent again without sending the file again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import os from 'node:os';
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, truncateSync, writeSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { distDir, launchBrowser, openPage, type OpenedPage, type Portal } from './harness.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { createOnlineCase, firstOfficerId, signInThroughProvider } from './reporter.ts';
import { pageTranslator } from './journey-kit.ts';
import { relay } from './relay.ts';

const MB = 1024 * 1024;
const SIZE = 40 * MB;
const PASSWORD = 'message-upload-1';

let browser: Browser;
let server: TestServer;
let opened: OpenedPage | undefined;
const proxy = relay();
let proxyPort: number;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-message-resumable-e2e-'));
const video = path.join(tmp, 'meeting.mp4');
let expectedSha: string;

beforeAll(async () => {
  // 40 MB without writing 40 MB: an MP4 signature, a sparse run of zeros and a marker
  // near the end, so a wrong offset anywhere would change the hash.
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

describe('resumable upload of a message file', () => {
  it('a 40 MB file attached to a message survives a cut connection, continues where it stopped, and the handler gets it whole', async () => {
    // Every page goes through the relay, sign-in included: the browser knows only its port.
    const portal: Portal = { server, url: (_host, pathname = '/') => `http://localhost:${proxyPort}${pathname}` };
    const caseNumber = await createOnlineCase(portal, { officerId: await firstOfficerId(portal), password: PASSWORD });
    opened = await openPage(browser, { locale: 'en-GB' });
    const { page } = opened;
    const patches: number[] = [];
    let creations = 0;
    let sessions = 0;
    page.on('request', (r) => {
      const url = r.url();
      if (url.includes('/api/private/case/upload-sessions') && r.method() === 'POST') sessions++;
      if (!url.includes('/api/public/uploads')) return;
      if (r.method() === 'PATCH') patches.push(Number(r.headers()['upload-offset']));
      if (r.method() === 'POST') creations++;
    });
    await signInThroughProvider(portal, page, caseNumber, PASSWORD, '/private/messages');
    const t = await pageTranslator(page, 'private');
    const composer = page.getByRole('form', { name: t('private.messages.composer') });
    await composer.waitFor();

    await composer.getByLabel(t('private.messages.label'), { exact: true }).fill('The recording of the meeting.');
    await composer.locator('input[type="file"]').setInputFiles(video);
    await composer.getByRole('listitem').filter({ hasText: 'meeting.mp4' }).waitFor();
    // Whether the "connection lost" notice ever shows, however briefly.
    const stalled = t('upload.stalled');
    await page.evaluate((text) => {
      const w = window as unknown as { sawStalled?: boolean };
      new MutationObserver(() => {
        if (document.body.textContent?.includes(text)) w.sawStalled = true;
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    }, stalled);

    // Chromium's own throttling, so the cut lands mid-file whatever the machine's speed.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 8 * MB });
    const before = proxy.sent();
    const send = composer.getByRole('button', { name: t('private.messages.send') });
    await expect.poll(() => send.isEnabled()).toBe(true);
    await send.click();

    // The file's bar shows the speed and the time left.
    await composer.getByRole('progressbar', { name: t('upload.progress', { name: 'meeting.mp4' }) }).waitFor({ timeout: 30_000 });
    const rate = composer.getByTestId('upload-rate');
    await rate.waitFor({ timeout: 30_000 });
    expect(await rate.textContent()).toMatch(/\/s · .+ left$/);

    // The cut: the connection drops mid-file.
    await waitFor(() => proxy.sent() - before > 15 * MB, 60_000, '15 MB sent');
    expect(patches).toHaveLength(1);
    proxy.cut();
    await waitFor(() => patches.length >= 2, 30_000, 'a resumed PATCH');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 }).catch(() => {});

    // The message arrives with its file, and the composer is empty again.
    const thread = page.getByRole('list', { name: t('private.messages.thread') });
    const bubble = thread.getByRole('listitem').filter({ hasText: 'The recording of the meeting.' });
    await bubble.waitFor({ timeout: 60_000 });
    await bubble.getByRole('button', { name: /meeting\.mp4/ }).waitFor();
    await expect.poll(() => composer.getByLabel(t('private.messages.label'), { exact: true }).inputValue()).toBe('');
    expect(await page.evaluate(() => (window as unknown as { sawStalled?: boolean }).sawStalled === true)).toBe(true);

    // Never from the start again: one session, one upload, and the resumed PATCH
    // continued from a later offset (what had arrived before the cut).
    expect(sessions).toBe(1);
    expect(creations).toBe(1);
    expect(patches[0]).toBe(0);
    for (let i = 1; i < patches.length; i++) {
      expect(patches[i]!).toBeGreaterThan(0);
      expect(patches[i]!).toBeGreaterThanOrEqual(patches[i - 1]!);
    }
    // Less than half of the file went twice (what was in flight at the cut).
    expect(proxy.sent() - before).toBeLessThan(SIZE * 1.5);

    // The handler sees the message and its file, whole.
    const handlerToken = (await createHandlerAccount(server.ctx.db, 'nordlys-energi', 'E2E Handler')).token;
    const auth = { authorization: `Bearer ${handlerToken}` };
    const c = (await (await fetch(`${server.url}/api/handler/cases/${caseNumber}`, { headers: auth })).json()) as {
      messages: { message: string; files: { id: string; name: string; size: number }[] }[];
    };
    const m = c.messages.find((x) => x.message === 'The recording of the meeting.');
    expect(m?.files.map((f) => [f.name, f.size])).toEqual([['meeting.mp4', SIZE]]);
    const res = await fetch(`${server.url}/api/handler/cases/${caseNumber}/files/${m!.files[0]!.id}`, { headers: auth });
    expect(res.status).toBe(200);
    const got = createHash('sha256');
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) got.update(chunk);
    expect(got.digest('hex')).toBe(expectedSha);
    // Nothing of the upload is left in the browser's local storage.
    expect(await page.evaluate(() => Object.keys(localStorage).length)).toBe(0);
  }, 240_000);

  it('when the message call is cut after the uploads, sending again takes the same uploads without sending the file again', async () => {
    const portal: Portal = { server, url: (_host, pathname = '/') => `http://localhost:${proxyPort}${pathname}` };
    const caseNumber = await createOnlineCase(portal, { officerId: await firstOfficerId(portal), password: PASSWORD });
    const p = await openPage(browser, { locale: 'en-GB' });
    try {
      const { page } = p;
      await signInThroughProvider(portal, page, caseNumber, PASSWORD, '/private/messages');
      const calls: string[] = [];
      page.on('request', (r) => {
        const { pathname } = new URL(r.url());
        if (pathname.startsWith('/api/public/uploads') || pathname === '/api/private/case/upload-sessions' || pathname === '/api/private/case/messages/new') {
          calls.push(`${r.method()} ${pathname.replace(/[0-9a-f-]{36}$/, ':id')}`);
        }
      });
      // The first message call is cut off before it reaches the server.
      let failed = false;
      await page.route('**/api/private/case/messages/new', (route) => (failed ? route.continue() : ((failed = true), route.abort('connectionreset'))));
      const t = await pageTranslator(page, 'private');
      const composer = page.getByRole('form', { name: t('private.messages.composer') });
      await composer.getByLabel(t('private.messages.label'), { exact: true }).fill('Second try.');
      const clip = path.join(tmp, 'clip.mp4');
      const fd = openSync(clip, 'w');
      writeSync(fd, Buffer.from('\0\0\0\x18ftypisom', 'latin1'));
      closeSync(fd);
      truncateSync(clip, 3 * MB);
      await composer.locator('input[type="file"]').setInputFiles(clip);
      const send = composer.getByRole('button', { name: t('private.messages.send') });
      await expect.poll(() => send.isEnabled()).toBe(true);
      await send.click();
      await composer.getByRole('alert').filter({ hasText: t('private.messages.failed') }).waitFor({ timeout: 30_000 });
      const firstTry = [...calls];
      expect(firstTry.filter((c) => c === 'POST /api/private/case/upload-sessions')).toHaveLength(1);
      expect(firstTry.filter((c) => c === 'POST /api/public/uploads')).toHaveLength(1);
      expect(firstTry.filter((c) => c.startsWith('PATCH'))).not.toHaveLength(0);

      // The draft is kept; sending again posts the message with the uploads already there.
      await expect.poll(() => composer.getByLabel(t('private.messages.label'), { exact: true }).inputValue()).toBe('Second try.');
      await expect.poll(() => send.isEnabled()).toBe(true);
      await send.click();
      const bubble = page.getByRole('list', { name: t('private.messages.thread') }).getByRole('listitem').filter({ hasText: 'Second try.' });
      await bubble.getByRole('button', { name: /clip\.mp4/ }).waitFor({ timeout: 30_000 });
      expect(calls.slice(firstTry.length)).toEqual(['POST /api/private/case/messages/new']);
    } finally {
      await p.close();
    }
  }, 120_000);
});
