/**
 * Upload speed and time left for one file's progress bar: the bytes of the last few
 * seconds over their time, so a resumed upload (or a pause while the connection was
 * gone) shows the speed of now, not an average since the start.
 */
export interface Rate {
  /** null until there is enough to tell. */
  bytesPerSecond: number | null;
  secondsLeft: number | null;
}

const WINDOW_MS = 5000;
/** Below this much time observed, a speed would be noise. */
const MIN_SPAN_MS = 500;

export function createRateMeter(total: number) {
  const samples: { at: number; loaded: number }[] = [];
  return {
    /** Forgets the past (after a retry): the speed shown is that of the resumed upload. */
    reset() {
      samples.length = 0;
    },
    /** Records that `loaded` bytes are sent at `now` (ms); answers the speed and time left. */
    record(loaded: number, now: number): Rate {
      // A resumed upload may start below what was last seen (bytes in flight were lost).
      while (samples.length && samples[samples.length - 1]!.loaded > loaded) samples.pop();
      samples.push({ at: now, loaded });
      while (samples.length > 2 && now - samples[1]!.at >= WINDOW_MS) samples.shift();
      const first = samples[0]!;
      const span = now - first.at;
      if (span < MIN_SPAN_MS) return { bytesPerSecond: null, secondsLeft: null };
      const bytesPerSecond = ((loaded - first.loaded) * 1000) / span;
      if (bytesPerSecond <= 0) return { bytesPerSecond: 0, secondsLeft: null };
      return { bytesPerSecond, secondsLeft: Math.max(0, Math.ceil((total - loaded) / bytesPerSecond)) };
    },
  };
}
