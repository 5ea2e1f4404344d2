/**
 * A speech-like test signal with a known pitch contour, and the measures the voice
 * disguise is judged by (test/unit/voice-disguise.test.ts, the voice journey, the
 * bench). No speech synthesiser is needed: a glottal pulse train at a known,
 * varying F0 goes through three formant resonators that move from vowel to vowel,
 * syllable by syllable, with a hiss for the fricatives between some of them.
 *
 * The measures (docs/decisions/voice-messages.md "Figures"):
 * - `pitchTrack`: normalised autocorrelation per 10 ms frame, 70–400 Hz;
 * - `longTermSpectrum` + `bestWarp`: the frequency stretch that best lays the
 *   output's average log spectrum onto the original's, and the distance in dB
 *   without any stretch;
 * - `bandEnvelopeCorrelation`: the loudness envelope of each third-octave band of
 *   the original against the envelope of the band the warp moved it to (an
 *   envelope-correlation proxy in the spirit of STOI; not a listening test).
 */

export const SPEECH_RATE = 48000;

const VOWELS: readonly (readonly [number, number, number])[] = [
  [730, 1090, 2440], // a
  [270, 2290, 3010], // i
  [300, 870, 2240], // u
  [530, 1840, 2480], // e
  [570, 840, 2410], // o
];

/** The true F0 of the test signal at time `t` seconds. */
export function trueF0(t: number): number {
  return 125 + 35 * Math.sin(2 * Math.PI * 0.35 * t) + 10 * Math.sin(2 * Math.PI * 1.3 * t);
}

function lcg(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** `seconds` of the speech-like signal at `rate` Hz, peak about 0.5. */
export function speechLike(seconds: number, rate = SPEECH_RATE): Float32Array {
  const n = Math.round(seconds * rate);
  const out = new Float32Array(n);
  const rnd = lcg(7);
  const syllable = 0.26;
  // Resonator state per formant.
  const y1 = [0, 0, 0];
  const y2 = [0, 0, 0];
  let phase = 0;
  let glottal = 0;
  let hiss1 = 0;
  let hiss2 = 0;
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    const s = Math.floor(t / syllable);
    const within = t / syllable - s;
    const vowel = VOWELS[(s * 3 + (s >> 2)) % VOWELS.length]!;
    // Every fourth syllable is a pause; every third starts with a fricative.
    const pause = s % 4 === 3;
    const voicedPart = within > 0.2 && within < 0.92;
    const amp = pause || !voicedPart ? 0 : Math.sin((Math.PI * (within - 0.2)) / 0.72) ** 2;
    phase += trueF0(t) / rate;
    let pulse = 0;
    if (phase >= 1) {
      phase -= 1;
      pulse = 1;
    }
    // Glottal roll-off: a leaky integrator of the pulses.
    glottal = 0.97 * glottal + pulse;
    const source = glottal * amp;
    let voiced = 0;
    for (let f = 0; f < 3; f++) {
      const hz = vowel[f]!;
      const bw = 60 + 30 * f;
      const r = Math.exp((-Math.PI * bw) / rate);
      const a1 = 2 * r * Math.cos((2 * Math.PI * hz) / rate);
      const a2 = -r * r;
      const y = (1 - r) * source + a1 * y1[f]! + a2 * y2[f]!;
      y2[f] = y1[f]!;
      y1[f] = y;
      voiced += y / (f + 1);
    }
    const fricative = !pause && s % 3 === 0 && within < 0.2 ? Math.sin((Math.PI * within) / 0.2) : 0;
    const white = rnd() * 2 - 1;
    // The hiss of an /s/: white noise band-passed to about 3.5-7 kHz.
    const hr = Math.exp((-Math.PI * 3000) / rate);
    const hiss = (1 - hr) * white + 2 * hr * Math.cos((2 * Math.PI * 5200) / rate) * hiss1 - hr * hr * hiss2;
    hiss2 = hiss1;
    hiss1 = hiss;
    out[i] = voiced * 0.02 + hiss * fricative * 0.3;
  }
  let peak = 0;
  for (const x of out) peak = Math.max(peak, Math.abs(x));
  for (let i = 0; i < n; i++) out[i] = (out[i]! / peak) * 0.5;
  return out;
}

/** A 16-bit mono WAV file of `samples` (for Chromium's fake microphone). */
export function wavFile(samples: Float32Array, rate = SPEECH_RATE): Uint8Array {
  const data = samples.length * 2;
  const buf = new ArrayBuffer(44 + data);
  const dv = new DataView(buf);
  const ascii = (at: number, s: string) => [...s].forEach((c, i) => dv.setUint8(at + i, c.charCodeAt(0)));
  ascii(0, 'RIFF');
  dv.setUint32(4, 36 + data, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  dv.setUint32(16, 16, true);
  dv.setUint16(20, 1, true);
  dv.setUint16(22, 1, true);
  dv.setUint32(24, rate, true);
  dv.setUint32(28, rate * 2, true);
  dv.setUint16(32, 2, true);
  dv.setUint16(34, 16, true);
  ascii(36, 'data');
  dv.setUint32(40, data, true);
  samples.forEach((x, i) => dv.setInt16(44 + i * 2, Math.max(-1, Math.min(1, x)) * 32767, true));
  return new Uint8Array(buf);
}

// ---- measures ------------------------------------------------------------------

/** Pitch per 10 ms frame (Hz), or 0 where the frame is not voiced. */
export function pitchTrack(x: Float32Array, rate: number, hop = 0.01): number[] {
  // Low-pass to ~900 Hz so the formants do not lead the autocorrelation astray.
  const lp = new Float32Array(x.length);
  const c = 1 - Math.exp((-2 * Math.PI * 900) / rate);
  let a = 0;
  let b = 0;
  for (let i = 0; i < x.length; i++) {
    a += c * (x[i]! - a);
    b += c * (a - b);
    lp[i] = b;
  }
  const win = Math.round(0.04 * rate);
  const step = Math.round(hop * rate);
  const minLag = Math.floor(rate / 400);
  const maxLag = Math.ceil(rate / 70);
  let globalEnergy = 0;
  for (const v of lp) globalEnergy += v * v;
  const meanFrameEnergy = (globalEnergy / lp.length) * win;
  const out: number[] = [];
  for (let start = 0; start + win + maxLag < lp.length; start += step) {
    let e0 = 0;
    for (let i = 0; i < win; i++) e0 += lp[start + i]! ** 2;
    if (e0 < meanFrameEnergy * 0.1) {
      out.push(0);
      continue;
    }
    let best = 0;
    let bestLag = 0;
    const scores: number[] = [];
    for (let lag = minLag; lag <= maxLag; lag++) {
      let num = 0;
      let e1 = 0;
      for (let i = 0; i < win; i++) {
        num += lp[start + i]! * lp[start + i + lag]!;
        e1 += lp[start + i + lag]! ** 2;
      }
      const r = num / Math.sqrt(e0 * e1 + 1e-12);
      scores.push(r);
      if (r > best) {
        best = r;
        bestLag = lag;
      }
    }
    // The shortest lag close to the best one: guards against picking a multiple of the period.
    for (let j = 0; j < scores.length; j++) {
      if (scores[j]! > best * 0.9 && j + minLag < bestLag && isPeak(scores, j)) {
        bestLag = j + minLag;
        break;
      }
    }
    out.push(best > 0.5 ? rate / bestLag : 0);
  }
  return out;
}

function isPeak(s: number[], j: number) {
  return j > 0 && j < s.length - 1 && s[j]! >= s[j - 1]! && s[j]! >= s[j + 1]!;
}

export function pearson(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i]!;
    mb += b[i]!;
  }
  ma /= n;
  mb /= n;
  let num = 0;
  let va = 0;
  let vb = 0;
  for (let i = 0; i < n; i++) {
    num += (a[i]! - ma) * (b[i]! - mb);
    va += (a[i]! - ma) ** 2;
    vb += (b[i]! - mb) ** 2;
  }
  return va === 0 || vb === 0 ? 0 : num / Math.sqrt(va * vb);
}

/** Frames voiced in both tracks: the two F0 series to correlate. */
export function bothVoiced(a: readonly number[], b: readonly number[]): [number[], number[]] {
  const x: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i]! > 0 && b[i]! > 0) {
      x.push(a[i]!);
      y.push(b[i]!);
    }
  }
  return [x, y];
}

// A plain radix-2 FFT in place.
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = (-2 * Math.PI) / len;
    for (let i = 0; i < n; i += len) {
      for (let k = 0; k < len / 2; k++) {
        const wr = Math.cos(ang * k);
        const wi = Math.sin(ang * k);
        const ar = re[i + k + len / 2]! * wr - im[i + k + len / 2]! * wi;
        const ai = re[i + k + len / 2]! * wi + im[i + k + len / 2]! * wr;
        re[i + k + len / 2] = re[i + k]! - ar;
        im[i + k + len / 2] = im[i + k]! - ai;
        re[i + k] = re[i + k]! + ar;
        im[i + k] = im[i + k]! + ai;
      }
    }
  }
}

function powerSpectrum(frame: Float64Array): Float64Array {
  const n = frame.length;
  const re = Float64Array.from(frame);
  const im = new Float64Array(n);
  fft(re, im);
  const out = new Float64Array(n / 2);
  for (let i = 0; i < n / 2; i++) out[i] = re[i]! ** 2 + im[i]! ** 2;
  return out;
}

/**
 * The spectral envelope of one frame in dB, by cepstral smoothing: the log spectrum's
 * fine ripple (the harmonics of the pitch, at quefrencies of a pitch period and up)
 * is cut above `liftSeconds`, what is left is the shape of the vocal tract.
 */
export function cepstralEnvelope(power: Float64Array, rate: number, liftSeconds = 0.0025): Float64Array {
  const half = power.length;
  const n = half * 2;
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  for (let i = 0; i < half; i++) re[i] = Math.log(power[i]! + 1e-12);
  for (let i = 1; i < half; i++) re[n - i] = re[i]!;
  fft(re, im);
  const lift = Math.round(liftSeconds * rate);
  for (let q = lift; q <= n - lift; q++) {
    re[q] = 0;
    im[q] = 0;
  }
  // The inverse by the forward transform of the conjugate; the input was real and even.
  for (let i = 0; i < n; i++) im[i] = -im[i]!;
  fft(re, im);
  const out = new Float64Array(half);
  for (let i = 0; i < half; i++) out[i] = ((10 / Math.LN10) * re[i]!) / n;
  return out;
}

/** Short-time power spectra: 2048-point Hann frames every 10 ms. */
export function spectrogram(x: Float32Array, rate: number): { frames: Float64Array[]; binHz: number } {
  const n = 2048;
  const hop = Math.round(0.01 * rate);
  const frames: Float64Array[] = [];
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) w[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n);
  for (let s = 0; s + n <= x.length; s += hop) {
    const f = new Float64Array(n);
    for (let i = 0; i < n; i++) f[i] = x[s + i]! * w[i]!;
    frames.push(powerSpectrum(f));
  }
  return { frames, binHz: rate / n };
}

function bandPower(spec: Float64Array, binHz: number, lo: number, hi: number): number {
  let p = 0;
  for (let b = Math.max(1, Math.floor(lo / binHz)); b <= Math.min(spec.length - 1, Math.ceil(hi / binHz)); b++) p += spec[b]!;
  return p;
}

/**
 * Average power (dB) in third-octave bands (at least 250 Hz wide) centred at
 * 1/12-octave points from 150 Hz up, over the loud frames: wider than the spacing of
 * the harmonics, so what is left is the envelope, not the pitch's comb.
 */
export function longTermSpectrum(x: Float32Array, rate: number): { hz: number[]; db: number[] } {
  const { frames, binHz } = spectrogram(x, rate);
  const energy = frames.map((f) => f.reduce((a, b) => a + b, 0));
  const loud = [...energy].sort((a, b) => a - b)[Math.floor(energy.length * 0.5)]!;
  const hz: number[] = [];
  for (let f = 150; f < 8000; f *= 2 ** (1 / 12)) hz.push(f);
  const db = hz.map((f) => {
    const half = Math.max(f * (2 ** (1 / 6) - 2 ** (-1 / 6)) / 2, 125);
    let sum = 0;
    let count = 0;
    frames.forEach((fr, i) => {
      if (energy[i]! < loud) return;
      sum += bandPower(fr, binHz, Math.max(50, f - half), f + half);
      count++;
    });
    return 10 * Math.log10(sum / count + 1e-12);
  });
  return { hz, db };
}

/**
 * The stretch α for which out(α·f) best matches orig(f), over 250–4000 Hz of the
 * original, with the overall level difference removed; and the mean absolute
 * distance in dB at that α and at α = 1.
 */
export function bestWarp(orig: { hz: number[]; db: number[] }, out: { hz: number[]; db: number[] }) {
  const at = (s: { hz: number[]; db: number[] }, f: number) => {
    const pos = Math.log2(f / s.hz[0]!) * 12;
    const i = Math.floor(pos);
    if (i < 0 || i + 1 >= s.hz.length) return NaN;
    return s.db[i]! + (pos - i) * (s.db[i + 1]! - s.db[i]!);
  };
  const distance = (alpha: number) => {
    const diffs: number[] = [];
    orig.hz.forEach((f, i) => {
      if (f < 250 || f > 4000) return;
      const o = at(out, f * alpha);
      if (!Number.isNaN(o)) diffs.push(o - orig.db[i]!);
    });
    // The level and the overall tilt (a straight line over log frequency) are taken
    // out: what is compared is where the peaks and valleys, the formants, lie.
    const n = diffs.length;
    const xs = diffs.map((_, i) => i - (n - 1) / 2);
    const mean = diffs.reduce((a, b) => a + b, 0) / n;
    const slope = xs.reduce((a, x, i) => a + x * (diffs[i]! - mean), 0) / xs.reduce((a, x) => a + x * x, 0);
    return diffs.reduce((a, d, i) => a + Math.abs(d - mean - slope * xs[i]!), 0) / n;
  };
  let best = 1;
  let bestD = Infinity;
  for (let alpha = 0.7; alpha <= 1.42; alpha += 0.005) {
    const d = distance(alpha);
    if (d < bestD) [best, bestD] = [alpha, d];
  }
  return { alpha: best, distanceAtBest: bestD, distanceAtOne: distance(1) };
}

/** Loudness envelope (10 ms frames) of the band [lo, hi] Hz. */
export function bandEnvelope(spec: { frames: Float64Array[]; binHz: number }, lo: number, hi: number): number[] {
  return spec.frames.map((f) => Math.sqrt(bandPower(f, spec.binHz, lo, hi)));
}

/**
 * Mean correlation of the third-octave band envelopes of the original (250–4000 Hz)
 * with those of the output at the same bands moved by `warp` (1 for no warp).
 */
export function bandEnvelopeCorrelation(orig: Float32Array, out: Float32Array, rate: number, warp: number): { mean: number; perBand: number[] } {
  const a = spectrogram(orig, rate);
  const b = spectrogram(out, rate);
  const perBand: number[] = [];
  for (let f = 250; f <= 4000; f *= 2 ** (1 / 3)) {
    const lo = f * 2 ** (-1 / 6);
    const hi = f * 2 ** (1 / 6);
    perBand.push(pearson(bandEnvelope(a, lo, hi), bandEnvelope(b, lo * warp, hi * warp)));
  }
  return { mean: perBand.reduce((x, y) => x + y, 0) / perBand.length, perBand };
}

/** Broadband loudness envelope correlation (the syllable rhythm). */
export function energyEnvelopeCorrelation(orig: Float32Array, out: Float32Array, rate: number): number {
  const env = (x: Float32Array) => {
    const hop = Math.round(0.01 * rate);
    const e: number[] = [];
    for (let s = 0; s + hop <= x.length; s += hop) {
      let p = 0;
      for (let i = 0; i < hop; i++) p += x[s + i]! ** 2;
      e.push(Math.sqrt(p / hop));
    }
    // 50 ms smoothing: syllables, not single pulses.
    return e.map((_, i) => {
      let s = 0;
      let c = 0;
      for (let j = Math.max(0, i - 2); j <= Math.min(e.length - 1, i + 2); j++) {
        s += e[j]!;
        c++;
      }
      return s / c;
    });
  };
  return pearson(env(orig), env(out));
}

/**
 * Where the original's bands went: the stretch α for which the envelopes of the
 * output's bands at α·f best follow the original's bands at f (mean correlation over
 * the third-octave bands 250–4000 Hz). Timing, not spectral shape, ties the bands
 * together here, so the output's harmonic comb (its own pitch) cannot mislead it.
 */
export function envelopeWarp(orig: Float32Array, out: Float32Array, rate: number) {
  const a = spectrogram(orig, rate);
  const b = spectrogram(out, rate);
  const centres: number[] = [];
  for (let f = 250; f <= 4000; f *= 2 ** (1 / 3)) centres.push(f);
  const origEnv = centres.map((f) => bandEnvelope(a, f * 2 ** (-1 / 6), f * 2 ** (1 / 6)));
  const score = (alpha: number) =>
    centres.reduce((s, f, k) => s + pearson(origEnv[k]!, bandEnvelope(b, alpha * f * 2 ** (-1 / 6), alpha * f * 2 ** (1 / 6))), 0) / centres.length;
  let alpha = 1;
  let best = -Infinity;
  for (let x = 0.7; x <= 1.42; x += 0.01) {
    const s = score(x);
    if (s > best) [alpha, best] = [x, s];
  }
  return { alpha, correlationAtBest: best, correlationAtOne: score(1) };
}

/**
 * The power-weighted mean frequency (Hz) of the loud frames between 100 and 9000 Hz,
 * taken on a log scale: a stretch of the spectrum by α multiplies it by α, whatever
 * the pitch's comb looks like.
 */
export function logCentroid(x: Float32Array, rate: number): number {
  const { frames, binHz } = spectrogram(x, rate);
  const energy = frames.map((f) => f.reduce((a, b) => a + b, 0));
  const loud = [...energy].sort((a, b) => a - b)[Math.floor(energy.length * 0.5)]!;
  let num = 0;
  let den = 0;
  frames.forEach((f, i) => {
    if (energy[i]! < loud) return;
    for (let b = Math.ceil(100 / binHz); b < Math.min(f.length, 9000 / binHz); b++) {
      num += f[b]! * Math.log(b * binHz);
      den += f[b]!;
    }
  });
  return Math.exp(num / den);
}
