import { describe, expect, it } from 'vitest';
import { createRateMeter } from '../../src/uploads/rate.ts';
import { formatDuration } from '../../src/i18n/duration.ts';

describe('upload speed and time left', () => {
  it('tells nothing before half a second, then the speed of the last seconds and the time left', () => {
    const m = createRateMeter(10_000_000);
    expect(m.record(0, 0)).toEqual({ bytesPerSecond: null, secondsLeft: null });
    expect(m.record(100_000, 200)).toEqual({ bytesPerSecond: null, secondsLeft: null });
    expect(m.record(1_000_000, 1000)).toEqual({ bytesPerSecond: 1_000_000, secondsLeft: 9 });
    // Slower now: after five seconds the early fast part no longer counts.
    for (let t = 2000; t <= 8000; t += 1000) m.record(1_000_000 + ((t - 1000) / 1000) * 100_000, t);
    const r = m.record(1_800_000, 9000);
    expect(r.bytesPerSecond).toBeCloseTo(100_000, -3);
    expect(r.secondsLeft).toBe(Math.ceil(8_200_000 / r.bytesPerSecond!));
  });

  it('starts again after a retry, and copes with fewer bytes than last seen', () => {
    const m = createRateMeter(1000);
    m.record(0, 0);
    m.record(500, 1000);
    m.reset();
    expect(m.record(400, 5000)).toEqual({ bytesPerSecond: null, secondsLeft: null });
    expect(m.record(600, 6000)).toEqual({ bytesPerSecond: 200, secondsLeft: 2 });
    expect(m.record(600, 7000)).toEqual({ bytesPerSecond: 100, secondsLeft: 4 });
  });

  it('says the time left in the reader\'s language, rounded up', () => {
    expect(formatDuration(44.2, 'en')).toBe('45 seconds');
    expect(formatDuration(125, 'en')).toBe('3 minutes');
    expect(formatDuration(2 * 3600 + 60, 'en')).toBe('2.1 hours');
    expect(formatDuration(125, 'de')).toBe('3 Minuten');
    expect(formatDuration(125, 'pl')).toBe('3 minuty');
  });
});
