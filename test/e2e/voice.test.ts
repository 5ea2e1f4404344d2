/**
 * Voice messages (issue 40) in real Chromium with its fake microphone, fed a
 * speech-like file the test makes (test/helpers/voice-signal.ts: a known, varying
 * pitch contour through moving formants). Against the real server with the built SPA:
 *
 * - the journey, on a case sealed in the browsers (the default): record in the online
 *   form, hear both versions, send the disguised one with no text; the recording proxy
 *   sees no audio in clear; the handler, enrolled in her page, plays it in the workspace
 *   (the browser's own <audio controls>, fed from the bytes her browser opened, never
 *   autoplay) and downloads it: the very bytes of the disguised clip, not the own voice;
 *   she writes its transcript (sealed in her browser); the reporter replays it in the
 *   private area, reads the transcript beside it, checked there, and approves it by its
 *   hash; the handler sees the approval. The journey runs last: it gives the company its
 *   keys, and the tests before read their cases' files through the API in clear;
 * - the measurement of what was sent, decoded by Chromium itself: its pitch does not
 *   follow the original's, its envelope is moved, its loudness envelope is kept
 *   (figures in docs/decisions/voice-messages.md);
 * - the company's settings: "always" offers no choice, "never" records without
 *   disguise, voice off shows no recorder and the page's Permissions-Policy denies the
 *   microphone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import os from 'node:os';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, axeViolations, chromiumPath, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { signInThroughProvider } from './reporter.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { relay } from './relay.ts';
import { english, enrolInPage, makeRecoveryKey, openCaseFromInbox, signInHandler } from '../helpers/sealed-e2e.ts';
import { companyByHost } from '../../server/companies/service.ts';
import { recordHash } from '../../core/crypto/index.ts';
import { companyCacheOf } from '../../server/companies/cache.ts';
import type { VoiceSettings } from '../../machines/schema.ts';
import {
  bestWarp,
  bothVoiced,
  longTermSpectrum,
  pearson,
  pitchTrack,
  speechLike,
  wavFile,
} from '../helpers/voice-signal.ts';

const read = (area: string) =>
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, `../../src/i18n/${area}/en.json`), 'utf8')) as Record<string, string>;
const en = { ...read('common'), ...read('forms'), ...read('voice'), ...read('private') };
const t = english('handler', 'sealedwork', 'transcript', 'record', 'private');
const escape = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const field = (page: Page, key: string) => page.getByLabel(new RegExp(`^${escape(en[key]!)}\\*?$`));

const RATE = 48000;
const SECONDS = 8;
const speech = speechLike(SECONDS, RATE);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-voice-e2e-'));
const wav = path.join(tmp, 'speech.wav');
writeFileSync(wav, wavFile(speech, RATE));

let browser: Browser;
let portal: Portal;
let handlerToken: string;
const opened: OpenedPage[] = [];
// The recording proxy: the journey's browser talks to the server through it, and it keeps every byte sent.
const proxy = relay({ record: true });
let proxyPort: number;

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [...CHROMIUM_ARGS, '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-audio-capture=${wav}`, '--autoplay-policy=no-user-gesture-required'],
  });
  portal = await startPortal();
  proxyPort = await proxy.listen();
  proxy.point(portal.server.port);
  const company = await portal.server.ctx.db.selectFrom('company_host').select('company_id').where('host', '=', 'localhost').executeTakeFirstOrThrow();
  handlerToken = (await createHandlerAccount(portal.server.ctx.db, company.company_id, 'Vera Voice')).token;
}, 120_000);

afterAll(async () => {
  for (const p of opened) await p.close().catch(() => undefined);
  await browser?.close();
  await proxy.close();
  await portal?.server.cleanup();
  rmSync(tmp, { recursive: true, force: true });
});

/** Sets the voice settings of the company on `host`, as an operator's import would. */
async function setVoice(host: string, voice: Partial<VoiceSettings>) {
  const db = portal.server.ctx.db;
  const row = await db.selectFrom('company_host').innerJoin('company', 'company.id', 'company_host.company_id').select(['company.id', 'company.settings']).where('host', '=', host).executeTakeFirstOrThrow();
  const settings = row.settings as Record<string, unknown>;
  await db.updateTable('company').set({ settings: JSON.stringify({ ...settings, voice: { ...(settings.voice as object), ...voice } }) }).where('id', '=', row.id).execute();
  companyCacheOf(db)?.invalidate();
}

async function open(host = 'localhost') {
  const p = await openPage(browser, { locale: 'en-GB' });
  await p.context.grantPermissions(['microphone'], { origin: portal.url(host, '/').replace(/\/$/, '') });
  await p.context.grantPermissions(['microphone'], { origin: `http://${host}:${proxyPort}` });
  opened.push(p);
  return p;
}

/** The case's one file as the handler downloads it: the bytes the server got. */
async function handlerFile(caseNumber: string) {
  const auth = { authorization: `Bearer ${handlerToken}` };
  const c = (await (await fetch(`${portal.server.url}/api/handler/cases/${caseNumber}`, { headers: auth })).json()) as { files: { id: string; name: string; mimeType: string }[] };
  const res = await fetch(`${portal.server.url}/api/handler/cases/${caseNumber}/files/${c.files[0]!.id}`, { headers: auth });
  expect(res.status).toBe(200);
  return { files: c.files, bytes: Buffer.from(await res.arrayBuffer()) };
}

const EBML = Buffer.from([0x1a, 0x45, 0xdf, 0xa3]);
/** How often `needle` occurs in `hay`. */
function occurrences(hay: Buffer, needle: Buffer): number {
  let n = 0;
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1)) n++;
  return n;
}

async function fillFormWithoutText(page: Page) {
  await page.getByRole('heading', { level: 2 }).first().waitFor();
  await field(page, 'forms.relation.label').fill('Employee');
  await page.locator('section', { has: page.getByRole('heading', { name: en['forms.step.describeProblem.title'] }) }).getByRole('radio', { name: en['forms.no'] }).check();
  await page.getByRole('radio', { name: en['forms.related.company'] }).check();
  await field(page, 'forms.related.unit').fill('Board');
  await page.getByRole('radio', { name: en['forms.identity.anonymous'] }).check();
  await page.getByRole('radio', { name: en['forms.follow.follow'] }).check();
  await field(page, 'forms.follow.password').fill('voice-pass');
  await field(page, 'forms.follow.confirm').fill('voice-pass');
  await page.getByRole('checkbox', { name: new RegExp(en['forms.terms.accept']!) }).check();
}

/** Records about `seconds` seconds with the keyboard (start and stop are buttons reached by Tab and pressed with Enter/Space). */
async function record(page: Page, seconds: number) {
  const start = page.getByRole('button', { name: en['voice.start'] });
  await start.focus();
  await page.keyboard.press('Enter');
  await expect.poll(() => page.locator('[data-voice-elapsed]').getAttribute('data-voice-elapsed').then(Number), { timeout: 30_000 }).toBeGreaterThanOrEqual(seconds);
  const stop = page.getByRole('button', { name: en['voice.stop'] });
  await stop.focus();
  await page.keyboard.press(' ');
  await page.getByRole('heading', { name: en['voice.review.heading'] }).waitFor({ timeout: 30_000 });
}

/** Samples of an encoded file, decoded by Chromium itself (decodeAudioData), mono at the file's rate. */
async function decode(page: Page, bytes: Buffer): Promise<{ samples: Float32Array; rate: number }> {
  const got = await page.evaluate(async (b64) => {
    const bin = atob(b64);
    const u8 = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
    const decoded = await new OfflineAudioContext(1, 48000, 48000).decodeAudioData(u8.buffer);
    const pcm = decoded.getChannelData(0);
    const out = new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);
    let s = '';
    for (let i = 0; i < out.length; i += 0x8000) s += String.fromCharCode(...out.subarray(i, i + 0x8000));
    return { samples: btoa(s), rate: decoded.sampleRate };
  }, bytes.toString('base64'));
  const raw = Buffer.from(got.samples, 'base64');
  return { samples: new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength)), rate: got.rate };
}

/** How the decoded recording relates to the source file: aligned, then pitch, loudness envelope and envelope stretch. */
function measure(clip: { samples: Float32Array; rate: number }) {
  const at = alignment(clip.samples, clip.rate);
  const track = pitchTrack(clip.samples, clip.rate);
  const [src, out] = bothVoiced(sourceTrack(at.lag, track.length), track);
  const warp = bestWarp(longTermSpectrum(speech, RATE), longTermSpectrum(clip.samples, clip.rate));
  return { envelopeR: at.r, voicedFrames: src.length, pitchR: pearson(src, out), stretch: warp.alpha };
}

/** Plays an <audio> of the review until it has played half a second: the reporter hears it. */
async function hear(page: Page, which: 'disguised' | 'original') {
  const played = await page.evaluate(async (w) => {
    const audio = document.querySelector<HTMLAudioElement>(`audio[data-voice="${w}"]`)!;
    audio.muted = true;
    await audio.play();
    await new Promise<void>((resolve) => {
      const check = () => (audio.currentTime > 0.5 ? resolve() : requestAnimationFrame(check));
      check();
    });
    audio.pause();
    return { autoplay: audio.autoplay, time: audio.currentTime };
  }, which);
  expect(played.autoplay).toBe(false);
  expect(played.time).toBeGreaterThan(0.5);
}

/** 10 ms loudness envelope. */
function envelope(x: Float32Array, rate: number): number[] {
  const hop = Math.round(0.01 * rate);
  const out: number[] = [];
  for (let s = 0; s + hop <= x.length; s += hop) {
    let p = 0;
    for (let i = 0; i < hop; i++) p += x[s + i]! ** 2;
    out.push(Math.sqrt(p / hop));
  }
  return out;
}

/**
 * Where in the (looping) source file a recording started: the lag, in 10 ms frames,
 * at which the recording's loudness envelope best follows the file's, and how well.
 */
function alignment(recorded: Float32Array, rate: number) {
  const source = envelope(speech, RATE);
  const looped = [...source, ...source, ...source, ...source];
  const rec = envelope(recorded, rate).slice(0, source.length);
  let best = { lag: 0, r: -1 };
  for (let lag = 0; lag < source.length; lag++) {
    const r = pearson(looped.slice(lag, lag + rec.length), rec);
    if (r > best.r) best = { lag, r };
  }
  return best;
}

/** The source's pitch track from frame `lag` on, for as many frames as `n` (the file loops). */
function sourceTrack(lag: number, n: number): number[] {
  const track = pitchTrack(speech, RATE);
  const looped = [...track, ...track, ...track, ...track];
  return looped.slice(lag, lag + n);
}


describe('voice messages', () => {
  it('"always": no choice and no own-voice version; "never": the own voice only, no disguise', async () => {
    await setVoice('localhost', { enabled: true, disguise: 'always' });
    let p = await open();
    await p.page.goto(portal.url('localhost', '/online-form'));
    await p.page.getByText(en['voice.intro.always']!, { exact: false }).waitFor();
    await record(p.page, 2);
    expect(await p.page.locator('audio[data-voice="disguised"]').count()).toBe(1);
    expect(await p.page.locator('audio[data-voice="original"]').count()).toBe(0);
    expect(await p.page.getByRole('radio', { name: en['voice.choose.original'] }).count()).toBe(0);

    // Discarding asks first.
    await p.page.getByRole('button', { name: en['voice.discard'] }).click();
    const confirm = p.page.getByRole('alertdialog', { name: en['voice.discardDialog.title'] });
    await confirm.waitFor();
    await confirm.getByRole('button', { name: en['voice.discardDialog.confirm'] }).click();
    await p.page.getByRole('button', { name: en['voice.start'] }).waitFor();
    expect(await p.page.locator('audio').count()).toBe(0);

    // "never": the own voice, sent as it is; measured the same way it follows the source
    // (the control for the journey's figures: the path and the measures keep a pitch).
    await setVoice('localhost', { enabled: true, disguise: 'never' });
    p = await open();
    await p.page.goto(portal.url('localhost', '/online-form'));
    await p.page.getByText(en['voice.intro.never']!, { exact: false }).waitFor();
    await fillFormWithoutText(p.page);
    await record(p.page, 6);
    expect(await p.page.locator('audio[data-voice="disguised"]').count()).toBe(0);
    expect(await p.page.locator('audio[data-voice="original"]').count()).toBe(1);
    expect(await p.page.getByRole('radio', { name: en['voice.choose.disguised'] }).count()).toBe(0);
    await p.page.getByRole('button', { name: en['voice.attach.report'] }).click();
    const send = p.page.getByRole('button', { name: en['forms.send.online'] });
    await expect.poll(() => send.isEnabled()).toBe(true);
    await send.click();
    const done = p.page.getByRole('dialog', { name: en['forms.success.online.title'] });
    await done.waitFor({ timeout: 60_000 });
    const sent = await handlerFile((await done.getByTestId('case-number').textContent())!.replace(/ /g, ''));
    const figures = measure(await decode(p.page, sent.bytes));
    console.log(`voice e2e, own voice as sent ("never"): ${JSON.stringify(figures)}`);
    expect(figures.envelopeR).toBeGreaterThan(0.8);
    expect(figures.pitchR).toBeGreaterThan(0.8);
    expect(Math.abs(figures.stretch - 1)).toBeLessThan(0.05);
  }, 180_000);

  it('voice off: no recorder, no microphone asked, and the Permissions-Policy denies the microphone', async () => {
    await setVoice('localhost', { enabled: false });
    const p = await open();
    const res = await p.page.goto(portal.url('localhost', '/online-form'));
    expect(res!.headers()['permissions-policy']).toMatch(/microphone=\(\)/);
    await p.page.getByRole('heading', { level: 2 }).first().waitFor();
    expect(await p.page.getByRole('button', { name: en['voice.start'] }).count()).toBe(0);
    expect(await p.page.evaluate(() => (document as Document & { featurePolicy?: { allowsFeature(f: string): boolean } }).featurePolicy?.allowsFeature('microphone'))).toBe(false);
    // The pages that never record deny it whatever the setting.
    await setVoice('localhost', { enabled: true });
    for (const pathname of ['/', '/how-to-report', '/faq']) {
      const r = await fetch(portal.url('localhost', pathname));
      expect(r.headers.get('permissions-policy'), pathname).toMatch(/microphone=\(\)/);
    }
    expect((await fetch(portal.url('localhost', '/private/messages'))).headers.get('permissions-policy')).toMatch(/microphone=\(self\)/);
  }, 120_000);
  it('journey on a sealed case: record, hear both, send the disguised one without text; the handler plays, downloads and transcribes it; the reporter replays it and approves the transcript', async () => {
    await setVoice('localhost', { enabled: true, disguise: 'choice', maxMinutes: 10 });
    // The company seals in the browsers (the default): Hanne enrols in her page, makes the recovery key, which certifies her key.
    // Her page has no save picker, so a file she saves is opened in memory and handed to the browser's download.
    const db = portal.server.ctx.db;
    const company = (await companyByHost(db, 'localhost'))!;
    const hanneAccount = await createHandlerAccount(db, company.id, 'Hanne Voice', { email: 'hanne.voice@example.org', officers: company.settings.protectionOfficers.map((o) => o.id), token: false });
    const hp = await openPage(browser, { locale: 'en-GB' });
    opened.push(hp);
    await hp.page.addInitScript(() => delete (window as unknown as { showSaveFilePicker?: unknown }).showSaveFilePicker);
    const hanne = await enrolInPage(portal, 'localhost', hp.page, hanneAccount.enrolmentCode!, { name: 'Hanne Voice', email: 'hanne.voice@example.org', password: 'hanne voice passphrase 1' });
    await signInHandler(portal, 'localhost', hanne);
    await makeRecoveryKey(hanne.page);

    const { page } = await open();
    // The test keeps each blob the page makes, to read the clips' bytes (the page's CSP lets no fetch of a blob: URL).
    await page.addInitScript(() => {
      const make = URL.createObjectURL.bind(URL);
      const kept: Record<string, Blob> = {};
      (window as unknown as { keptBlobs: Record<string, Blob> }).keptBlobs = kept;
      URL.createObjectURL = (b: Blob | MediaSource) => {
        const url = make(b);
        if (b instanceof Blob) kept[url] = b;
        return url;
      };
    });
    const before = proxy.recorded().length;
    const response = await page.goto(`http://localhost:${proxyPort}/online-form`);
    expect(response!.headers()['permissions-policy']).toMatch(/microphone=\(self\)/);
    await fillFormWithoutText(page);
    // The whole file: over a shorter take the pitch track has fewer voiced frames, and its r spreads wide (voice-messages.md "Figures").
    await record(page, SECONDS);

    // Both versions are there to hear, each with its sentence; nothing plays by itself.
    await hear(page, 'disguised');
    await hear(page, 'original');
    expect(await page.getByText(en['voice.review.disguisedHelp']!).count()).toBe(1);
    expect(await page.getByText(en['voice.review.originalHelp']!).count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    // The two clips as this page holds them, to tell later which one the handler got.
    const clip = (which: string) =>
      page.evaluate(async (w) => {
        const src = document.querySelector<HTMLAudioElement>(`audio[data-voice="${w}"]`)!.src;
        const bytes = new Uint8Array(await (window as unknown as { keptBlobs: Record<string, Blob> }).keptBlobs[src]!.arrayBuffer());
        let s = '';
        for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
        return btoa(s);
      }, which).then((b64) => Buffer.from(b64, 'base64'));
    const disguisedClip = await clip('disguised');
    const ownClip = await clip('original');
    expect(disguisedClip.equals(ownClip)).toBe(false);
    // Attach the disguised voice (the default) and send with no text.
    expect(await page.getByRole('radio', { name: en['voice.choose.disguised'] }).isChecked()).toBe(true);
    await page.getByRole('button', { name: en['voice.attach.report'] }).click();
    await page.getByText(en['voice.descriptionOptional']!).waitFor();
    // The own-voice clip was released as soon as the disguised one was chosen.
    expect(await page.locator('audio[data-voice="original"]').count()).toBe(0);
    const send = page.getByRole('button', { name: en['forms.send.online'] });
    await expect.poll(() => send.isEnabled()).toBe(true);
    await send.click();
    const dialog = page.getByRole('dialog', { name: en['forms.success.online.title'] });
    await dialog.waitFor({ timeout: 120_000 });
    const caseNumber = (await dialog.getByTestId('case-number').textContent())!.replace(/ /g, '');
    const row = await db.selectFrom('report_case').select(['id', 'sealed']).where('case_number', '=', caseNumber).executeTakeFirstOrThrow();
    expect(row.sealed).toBe(true);
    // The recording proxy saw no audio in clear: the one upload left the page sealed (no WebM header in any byte sent).
    const sentBytes = Buffer.concat(proxy.recorded().slice(before));
    expect(occurrences(sentBytes, EBML)).toBe(0);
    // Nor anywhere the browser keeps data for the site: local and session storage, IndexedDB, the Cache API, the private file system.
    const kept = await page.evaluate(async () => {
      const opfs: string[] = [];
      for await (const name of (await navigator.storage.getDirectory() as unknown as { keys(): AsyncIterable<string> }).keys()) opfs.push(name);
      return {
        local: Object.keys(localStorage),
        session: Object.values(sessionStorage).filter((v) => v.length > 4096 || v.includes('GkXfo')),
        indexedDB: (await indexedDB.databases()).map((d) => d.name),
        caches: await caches.keys(),
        opfs,
      };
    });
    expect(kept).toEqual({ local: [], session: [], indexedDB: [], caches: [], opfs: [] });

    // The handler plays it in the workspace: the browser's own player, fed from the bytes her browser opened, never autoplay.
    await openCaseFromInbox(hanne.page, caseNumber);
    const item = hanne.page.getByTestId('sealed-files').locator('li', { hasText: 'voice-message.webm' });
    await item.getByRole('button', { name: t.msg('transcript.handler.play', { name: 'voice-message.webm' }) }).click();
    const player = item.locator('audio[data-voice="handler"]');
    await player.waitFor({ timeout: 60_000 });
    const playing = await player.evaluate(async (a: HTMLAudioElement) => {
      a.muted = true;
      await a.play();
      await new Promise<void>((resolve) => {
        const check = () => (a.currentTime > 0.3 ? resolve() : requestAnimationFrame(check));
        check();
      });
      return { tag: a.tagName, controls: a.controls, autoplay: a.autoplay, paused: a.paused, time: a.currentTime, src: a.src.slice(0, 5) };
    });
    expect(playing).toMatchObject({ tag: 'AUDIO', controls: true, autoplay: false, paused: false, src: 'blob:' });
    expect(playing.time).toBeGreaterThan(0.3);
    // And downloads it: the very bytes of the disguised clip the reporter's page held, not the own voice.
    const [download] = await Promise.all([hanne.page.waitForEvent('download'), item.getByRole('button', { name: t.msg('sealedwork.files.save', { name: 'voice-message.webm' }) }).click()]);
    const got = readFileSync((await download.path())!);
    expect(download.suggestedFilename()).toBe('voice-message.webm');
    expect(got.equals(disguisedClip)).toBe(true);
    expect(got.equals(ownClip)).toBe(false);

    // What was sent, decoded: its pitch does not follow the source's, its envelope is moved, its loudness envelope kept.
    const figures = measure(await decode(page, got));
    console.log(`voice e2e, disguised as sent: ${JSON.stringify(figures)}`);
    expect(figures.envelopeR).toBeGreaterThan(0.7);
    expect(figures.voicedFrames).toBeGreaterThan(50);
    expect(Math.abs(figures.pitchR)).toBeLessThan(0.3);
    expect(Math.abs(figures.stretch - 1)).toBeGreaterThan(0.05);

    // She writes the transcript beside the recording, with the keyboard: sealed and hashed in her browser.
    const transcript = item.getByTestId('transcript');
    await transcript.getByText(t.msg('transcript.handler.none')).waitFor();
    await transcript.getByRole('button', { name: t.msg('transcript.handler.write') }).focus();
    await hanne.page.keyboard.press('Enter');
    const TEXT = 'The invoices of the third quarter were paid twice, once to a company nobody knows.';
    await transcript.getByLabel(t.msg('transcript.handler.text'), { exact: true }).fill(TEXT);
    await transcript.getByRole('button', { name: t.msg('handler.record.save') }).focus();
    await hanne.page.keyboard.press('Enter');
    await transcript.getByTestId('transcript-text').getByText(TEXT).waitFor();
    await transcript.getByTestId('record-check-1').getByText(t.msg('record.verified')).waitFor();
    await transcript.getByText(t.msg('handler.record.hash', { hash: await recordHash(TEXT) })).waitFor();
    expect(await axeViolations(hanne.page)).toEqual([]);
    const stored = await db.selectFrom('case_record_version').select(['file_id', 'sha256', 'text_enc']).where('case_id', '=', row.id).execute();
    expect(stored).toHaveLength(1);
    expect(stored[0]!.sha256).toBe(await recordHash(TEXT));
    expect(Buffer.from(stored[0]!.text_enc).includes(Buffer.from('invoices'))).toBe(false);

    // The reporter replays it in the private area, reads the transcript beside it, checked here, and approves it by its hash with the keyboard.
    const reporter = await open();
    await signInThroughProvider(portal, reporter.page, caseNumber, 'voice-pass', '/private/messages', { timeout: 120_000 });
    const play = reporter.page.getByRole('button', { name: en['voice.play']!.replace('{name}', 'voice-message.webm') }).first();
    await play.click();
    const replay = reporter.page.locator('audio[data-voice="replay"]').first();
    await replay.waitFor();
    expect(await replay.getAttribute('autoplay')).toBeNull();
    const replayed = await replay.evaluate(async (a: HTMLAudioElement) => {
      a.muted = true;
      await a.play();
      await new Promise<void>((resolve) => {
        const check = () => (a.currentTime > 0.3 ? resolve() : requestAnimationFrame(check));
        check();
      });
      return a.currentTime;
    });
    expect(replayed).toBeGreaterThan(0.3);
    const beside = reporter.page.getByTestId('transcript');
    await beside.getByTestId('transcript-text').getByText(TEXT).waitFor();
    await beside.getByText(await recordHash(TEXT), { exact: false }).first().waitFor();
    await beside.getByTestId('record-check-1').getByText(t.msg('record.verified')).waitFor();
    expect(await axeViolations(reporter.page)).toEqual([]);
    await beside.getByRole('button', { name: t.msg('private.report.approve.open'), exact: true }).focus();
    await reporter.page.keyboard.press('Enter');
    const confirm = reporter.page.getByRole('alertdialog', { name: t.msg('transcript.approve.title') });
    await confirm.getByText(t.msg('private.record.approveVersion', { version: 1, hash: await recordHash(TEXT) }), { exact: false }).waitFor();
    await confirm.getByRole('button', { name: t.msg('private.report.approve.confirm') }).click();
    await reporter.page.getByText(t.msg('transcript.approved')).waitFor();

    // The handler sees the approval beside the recording.
    await openCaseFromInbox(hanne.page, caseNumber);
    const approved = hanne.page.getByTestId('sealed-files').locator('li', { hasText: 'voice-message.webm' }).getByTestId('transcript-approval');
    await approved.getByText(t.en['transcript.handler.approved']!.replace(' {when}', ''), { exact: false }).waitFor();
  }, 420_000);
});
