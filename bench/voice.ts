/**
 * npm run bench -- voice [--minutes=10] [--throttle=4] [--rate=48000]
 *
 * The voice disguise's on-device cost (issue 40, docs/decisions/voice-messages.md):
 * core/voice/disguise.ts, bundled for the browser as the AudioWorklet runs it, over
 * MINUTES of the speech-like test signal (test/helpers/voice-signal.ts) in 128-sample
 * blocks, in Debian's Chromium, without throttling and at THROTTLE× CPU slow-down
 * (DevTools' Emulation.setCPUThrottlingRate, the way Lighthouse models a slow phone).
 * Printed beside real time: the worklet keeps up when the factor is below 1; the aim
 * is ≤ 0.5× at 4× throttle. Figures are printed, never asserted.
 */
import path from 'node:path';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, chromiumPath } from '../test/e2e/harness.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const opt = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const minutes = Number(opt('minutes', '10'));
const throttle = Number(opt('throttle', '4'));
const rates = opt('rate', '48000,44100').split(',').map(Number);

const script = (
  await build({
    stdin: {
      contents: `import { disguise, VoiceDisguiser } from './core/voice/disguise.ts';
        import { speechLike } from './test/helpers/voice-signal.ts';
        globalThis.voiceBench = (seconds, rate) => {
          // The signal is made once per call, outside the timing; 10 s of it repeated.
          const piece = speechLike(10, rate);
          const d = new VoiceDisguiser(rate, { warp: 1.2, pitchHz: 120, seed: 7 });
          const out = new Float32Array(128);
          const blocks = Math.floor((seconds * rate) / 128);
          const t0 = performance.now();
          for (let b = 0, at = 0; b < blocks; b++, at = (at + 128) % (piece.length - 128)) d.process(piece.subarray(at, at + 128), out);
          return (performance.now() - t0) / 1000;
        };`,
      resolveDir: ROOT,
      sourcefile: 'voice-bench.ts',
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    write: false,
    target: 'es2022',
  })
).outputFiles[0]!.text;

const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS, headless: true });
try {
  const page = await browser.newPage();
  await page.setContent('<!doctype html><title>voice bench</title>');
  await page.addScriptTag({ content: script });
  const cdp = await page.context().newCDPSession(page);
  const seconds = minutes * 60;
  const rows: string[] = [];
  for (const rate of rates) {
    for (const slow of [1, throttle]) {
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: slow });
      const took = await page.evaluate(([s, r]) => (globalThis as unknown as { voiceBench(s: number, r: number): number }).voiceBench(s, r), [seconds, rate] as const);
      rows.push(`| ${rate} Hz | ${slow}× | ${seconds} s | ${took.toFixed(1)} s | ${(took / seconds).toFixed(3)}× |`);
      process.stdout.write(`${rows.at(-1)}\n`);
    }
  }
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  process.stdout.write(
    `\nVoice disguise, ${minutes} min of audio in 128-sample blocks (Chromium ${browser.version()}):\n` +
      `| sample rate | CPU throttle | audio | processing | × real time |\n|---|---|---|---|---|\n${rows.join('\n')}\n`,
  );
} finally {
  await browser.close();
}
