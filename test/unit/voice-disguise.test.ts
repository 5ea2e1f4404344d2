/**
 * The voice disguise measured on a speech-like signal with a known pitch contour
 * (test/helpers/voice-signal.ts). The bounds below are the figures stated in
 * docs/decisions/voice-messages.md; the browser journey measures the file that was
 * actually sent the same way (test/e2e/voice.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { BANDS, disguise, drawDisguiseParams, seeded, VoiceDisguiser, WARP_RANGES } from '../../core/voice/disguise.ts';
import {
  bandEnvelopeCorrelation,
  bestWarp,
  bothVoiced,
  energyEnvelopeCorrelation,
  longTermSpectrum,
  pearson,
  pitchTrack,
  speechLike,
  trueF0,
} from '../helpers/voice-signal.ts';

const RATE = 48000;
const original = speechLike(6, RATE);
const originalTrack = pitchTrack(original, RATE);
const originalSpectrum = longTermSpectrum(original, RATE);

describe('the measures themselves', () => {
  it('the pitch tracker follows the known contour of the test signal', () => {
    const truth = originalTrack.map((_, i) => trueF0(i * 0.01 + 0.02));
    const [tracked, known] = bothVoiced(originalTrack, truth);
    expect(tracked.length).toBeGreaterThan(100);
    expect(pearson(tracked, known)).toBeGreaterThan(0.9);
  });

  it('an undisguised signal scores as itself: no warp, envelopes equal', () => {
    const w = bestWarp(originalSpectrum, originalSpectrum);
    expect(w.alpha).toBeCloseTo(1, 5);
    expect(bandEnvelopeCorrelation(original, original, RATE, 1).mean).toBeCloseTo(1, 5);
  }, 60_000);
});

// The ends and the middle of both warp ranges, each with another pitch across the drawn range.
const cases = [0.8, 0.86, 1.16, 1.25, 0.78, 1.28].map((warp, i) => ({ warp, pitchHz: 100 + i * 10, seed: 11 + i }));

describe.each(cases)('disguised with warp $warp at $pitchHz Hz', (params) => {
  const out = disguise(original, RATE, params);

  it('the pitch of the output does not follow the original (|r| < 0.3 over the frames voiced in both)', () => {
    const [a, b] = bothVoiced(originalTrack, pitchTrack(out, RATE));
    expect(a.length).toBeGreaterThan(80);
    expect(Math.abs(pearson(a, b))).toBeLessThan(0.3);
  }, 60_000);

  it('the spectral envelope is moved: the best stretch lies on the warp\'s side of 1, at least 0.06 from 1 and within 0.1 of the warp', () => {
    const w = bestWarp(originalSpectrum, longTermSpectrum(out, RATE));
    expect(Math.sign(w.alpha - 1)).toBe(Math.sign(params.warp - 1));
    expect(Math.abs(w.alpha - 1)).toBeGreaterThan(0.06);
    expect(Math.abs(w.alpha - params.warp)).toBeLessThan(0.1);
    // The control: the same vocoder without a warp leaves the envelope where it was.
    const control = bestWarp(originalSpectrum, longTermSpectrum(disguise(original, RATE, { ...params, warp: 1 }), RATE));
    expect(Math.abs(control.alpha - 1)).toBeLessThan(0.05);
  }, 60_000);

  it('stays intelligible by the envelope measures: syllable envelope r > 0.8, warped band envelopes mean r > 0.7', () => {
    expect(energyEnvelopeCorrelation(original, out, RATE)).toBeGreaterThan(0.8);
    expect(bandEnvelopeCorrelation(original, out, RATE, params.warp).mean).toBeGreaterThan(0.7);
  }, 60_000);
});

describe('the parameters', () => {
  it('are drawn anew for each recording, the warp always away from 1', () => {
    const random = seeded(2026);
    const drawn = Array.from({ length: 200 }, () => drawDisguiseParams(random));
    for (const p of drawn) expect(WARP_RANGES.some(([lo, hi]) => p.warp >= lo && p.warp <= hi)).toBe(true);
    expect(new Set(drawn.map((p) => p.warp.toFixed(6))).size).toBe(200);
    expect(drawn.some((p) => p.warp < 1) && drawn.some((p) => p.warp > 1)).toBe(true);
  });

  it('block by block gives the same as the whole buffer (the worklet runs 128-sample blocks)', () => {
    const p = { warp: 1.2, pitchHz: 120, seed: 3 };
    const whole = new Float32Array(original.length);
    new VoiceDisguiser(RATE, p).process(original, whole);
    const blocks = disguise(original, RATE, p, 128);
    let diff = 0;
    for (let i = 0; i < whole.length; i++) diff = Math.max(diff, Math.abs(whole[i]! - blocks[i]!));
    expect(diff).toBe(0);
    expect(BANDS).toBeGreaterThanOrEqual(24);
  }, 60_000);
});
