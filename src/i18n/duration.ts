/**
 * A time left for people, in Intl's own long units ("45 seconds", "3 minutes",
 * "1.5 hours"; "3 minuty" in Polish): rounded up, so an estimate never promises less.
 */
export function formatDuration(seconds: number, locale: string): string {
  const unit = (u: 'second' | 'minute' | 'hour', v: number, digits = 0) =>
    new Intl.NumberFormat(locale, { style: 'unit', unit: u, unitDisplay: 'long', maximumFractionDigits: digits }).format(v);
  if (seconds < 60) return unit('second', Math.max(1, Math.ceil(seconds)));
  if (seconds < 90 * 60) return unit('minute', Math.ceil(seconds / 60));
  return unit('hour', Math.ceil(seconds / 360) / 10, 1);
}
