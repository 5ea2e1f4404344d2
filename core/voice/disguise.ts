/**
 * The voice disguise that runs on the reporter's device (issue 40,
 * docs/decisions/voice-messages.md): a channel vocoder. The microphone's signal is
 * split into BANDS band-pass channels; each channel's loudness (its envelope) is
 * followed and laid onto a synthetic excitation filtered by a band whose centre is
 * moved by the recording's warp factor. The excitation is a pulse train at a pitch
 * drawn for the recording, level all through, mixed with noise as the
 * voice turns voiceless: the speaker's pitch contour never reaches the output, only
 * the loudness per band, on shifted bands (the formants move with them).
 *
 * What carries over, and what makes it intelligible: the per-band envelopes (the
 * rhythm, the syllables, the vowel and consonant shapes) — the same cue noise-band
 * vocoders keep. What does not: the fundamental frequency and its contour, the fine
 * spectral structure, the formant positions (warped by a factor drawn anew per
 * recording). The words and the way of speaking still tell.
 *
 * Streaming: `process` takes any block length and keeps its state, so the same
 * object runs in an AudioWorklet (src/voice/worklet.ts) and over a whole buffer in
 * the tests and the bench. No allocation per block.
 *
 * Shared browser code without a DOM: nothing here touches Web Audio or storage.
 */

export const BANDS = 32;
const LOW_HZ = 130;
const HIGH_HZ = 6800;

/** Warp factors are drawn away from 1, in either direction: a warp near 1 would keep the formants. */
export const WARP_RANGES: readonly (readonly [number, number])[] = [
  [0.78, 0.88],
  [1.14, 1.28],
];
/** The excitation's pitch, drawn per recording: a plain voice between these, whatever the speaker's. */
export const PITCH_RANGE_HZ = [96, 150] as const;

export interface DisguiseParams {
  /** Synthesis bands sit at the analysis centres times this. */
  warp: number;
  /** The excitation's mean pitch in Hz. */
  pitchHz: number;
  /** Seed of the noise. */
  seed: number;
}

/** A small seeded generator (mulberry32): the noise must not cost a crypto call per sample. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * New parameters for one recording. `random` yields uniform numbers in [0, 1); the
 * browser passes one fed by crypto.getRandomValues, so no two recordings share a warp.
 */
export function drawDisguiseParams(random: () => number): DisguiseParams {
  const range = WARP_RANGES[random() < 0.5 ? 0 : 1]!;
  return {
    warp: range[0] + random() * (range[1] - range[0]),
    pitchHz: PITCH_RANGE_HZ[0] + random() * (PITCH_RANGE_HZ[1] - PITCH_RANGE_HZ[0]),
    seed: Math.floor(random() * 2 ** 32),
  };
}

/** Band centres in Hz, evenly spaced on a log scale, kept below the Nyquist limit. */
export function bandCentres(sampleRate: number): number[] {
  const high = Math.min(HIGH_HZ, sampleRate * 0.42);
  const out: number[] = [];
  for (let k = 0; k < BANDS; k++) out.push(LOW_HZ * (high / LOW_HZ) ** (k / (BANDS - 1)));
  return out;
}

/** RBJ band-pass (0 dB peak) coefficients, normalised: b0, b2 (b1 = 0), a1, a2. */
function bandPass(sampleRate: number, hz: number, q: number): [number, number, number, number] {
  const w = (2 * Math.PI * Math.min(hz, sampleRate * 0.45)) / sampleRate;
  const alpha = Math.sin(w) / (2 * q);
  const a0 = 1 + alpha;
  return [alpha / a0, -alpha / a0, (-2 * Math.cos(w)) / a0, (1 - alpha) / a0];
}

/** Second-order sections in one flat array: 4 coefficients and 4 state values each. */
class Bank {
  readonly coef: Float64Array;
  readonly state: Float64Array;
  constructor(sampleRate: number, centres: readonly number[], q: number) {
    this.coef = new Float64Array(centres.length * 4);
    this.state = new Float64Array(centres.length * 8);
    centres.forEach((hz, k) => this.coef.set(bandPass(sampleRate, hz, q), k * 4));
  }
}

const GAIN_EVERY = 16;

export class VoiceDisguiser {
  readonly sampleRate: number;
  readonly params: DisguiseParams;
  private readonly analysis: Bank;
  private readonly synthesis: Bank;
  /** Smoothed power per band of the input (analysis) and of the filtered excitation. */
  private readonly inPower = new Float64Array(BANDS);
  private readonly exPower = new Float64Array(BANDS);
  private readonly gain = new Float64Array(BANDS);
  private readonly envCoef: number;
  private readonly exCoef: number;
  private readonly random: () => number;
  private phase = 0;
  private voicing = 1;
  private readonly voicingCoef: number;
  private counter = 0;
  /** Bands below ~1 kHz and above ~3 kHz: their balance says voiced or voiceless. */
  private readonly lowBands: number;
  private readonly highFrom: number;

  constructor(sampleRate: number, params: DisguiseParams) {
    this.sampleRate = sampleRate;
    this.params = params;
    const centres = bandCentres(sampleRate);
    const ratio = (centres[1]! / centres[0]!);
    // Neighbouring bands cross near -3 dB; two sections per band steepen the skirts.
    const q = (Math.sqrt(ratio) / (ratio - 1)) * 0.8;
    this.analysis = new Bank(sampleRate, centres, q);
    this.synthesis = new Bank(sampleRate, centres.map((hz) => hz * params.warp), q);
    this.envCoef = 1 - Math.exp(-1 / (0.008 * sampleRate));
    this.exCoef = 1 - Math.exp(-1 / (0.025 * sampleRate));
    this.voicingCoef = 1 - Math.exp(-1 / (0.02 * sampleRate));
    this.random = seeded(params.seed);
    this.lowBands = centres.findIndex((hz) => hz > 1000);
    this.highFrom = centres.findIndex((hz) => hz > 3000);
  }

  /** Disguises `input` into `output` (the same length; may be the same array). */
  process(input: Float32Array, output: Float32Array): void {
    const { analysis, synthesis, inPower, exPower, gain } = this;
    const ac = analysis.coef;
    const as = analysis.state;
    const sc = synthesis.coef;
    const ss = synthesis.state;
    const envCoef = this.envCoef;
    const exCoef = this.exCoef;
    const n = input.length;
    for (let i = 0; i < n; i++) {
      const x = input[i]!;
      // The excitation: a pulse train at the drawn pitch, level all through (nothing
      // of the speaker's melody), and noise, mixed by how voiced the input sounds.
      const pitch = this.params.pitchHz;
      this.phase += pitch / this.sampleRate;
      let pulse = 0;
      if (this.phase >= 1) {
        this.phase -= 1;
        pulse = Math.sqrt(this.sampleRate / pitch);
      }
      const noise = (this.random() * 2 - 1) * 1.732;
      const v = this.voicing;
      const e = Math.sqrt(v) * pulse + Math.sqrt(1 - v) * noise;

      let y = 0;
      for (let k = 0; k < BANDS; k++) {
        const c = k * 4;
        const s = k * 8;
        // analysis: two sections
        let u = ac[c]! * x + ac[c + 1]! * as[s + 1]! - ac[c + 2]! * as[s + 2]! - ac[c + 3]! * as[s + 3]!;
        as[s + 1] = as[s]!;
        as[s] = x;
        as[s + 3] = as[s + 2]!;
        as[s + 2] = u;
        const u2 = ac[c]! * u + ac[c + 1]! * as[s + 5]! - ac[c + 2]! * as[s + 6]! - ac[c + 3]! * as[s + 7]!;
        as[s + 5] = as[s + 4]!;
        as[s + 4] = u;
        as[s + 7] = as[s + 6]!;
        as[s + 6] = u2;
        inPower[k] = inPower[k]! + envCoef * (u2 * u2 - inPower[k]!);
        // synthesis: the excitation through the moved band
        u = sc[c]! * e + sc[c + 1]! * ss[s + 1]! - sc[c + 2]! * ss[s + 2]! - sc[c + 3]! * ss[s + 3]!;
        ss[s + 1] = ss[s]!;
        ss[s] = e;
        ss[s + 3] = ss[s + 2]!;
        ss[s + 2] = u;
        const w2 = sc[c]! * u + sc[c + 1]! * ss[s + 5]! - sc[c + 2]! * ss[s + 6]! - sc[c + 3]! * ss[s + 7]!;
        ss[s + 5] = ss[s + 4]!;
        ss[s + 4] = u;
        ss[s + 7] = ss[s + 6]!;
        ss[s + 6] = w2;
        exPower[k] = exPower[k]! + exCoef * (w2 * w2 - exPower[k]!);
        y += w2 * gain[k]!;
      }
      output[i] = y;

      if (++this.counter >= GAIN_EVERY) {
        this.counter = 0;
        let low = 0;
        let high = 0;
        for (let k = 0; k < BANDS; k++) {
          gain[k] = Math.sqrt(inPower[k]! / (exPower[k]! + 1e-9));
          if (gain[k]! > 60) gain[k] = 60;
          if (k < this.lowBands) low += inPower[k]!;
          else if (k >= this.highFrom) high += inPower[k]!;
        }
        const share = low / (low + high + 1e-12);
        const target = Math.min(1, Math.max(0, (share - 0.25) / 0.5));
        this.voicing += this.voicingCoef * GAIN_EVERY * (target - this.voicing);
        if (this.voicing < 0) this.voicing = 0;
        if (this.voicing > 1) this.voicing = 1;
      }
    }
  }
}

/** A whole buffer at once (tests, bench): the same code the worklet runs block by block. */
export function disguise(samples: Float32Array, sampleRate: number, params: DisguiseParams, block = 128): Float32Array {
  const d = new VoiceDisguiser(sampleRate, params);
  const out = new Float32Array(samples.length);
  for (let i = 0; i < samples.length; i += block) {
    const end = Math.min(samples.length, i + block);
    d.process(samples.subarray(i, end), out.subarray(i, end));
  }
  return out;
}
