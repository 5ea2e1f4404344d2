/**
 * File sizes for people: below 1 kB an ICU plural from the catalogue ("173 bytes",
 * "1 byte", Polish "173 bajty"), from there Intl's own short units ("1.5 MB").
 * Intl's `byte` unit has no plural in several languages ("173 byte"), hence the message.
 */
import type { TFunction } from './index.ts';

const UNITS = ['kilobyte', 'megabyte', 'gigabyte'] as const;

/**
 * `locale` is a BCP 47 tag (`toBcp47(lang)`); `t` the forms' or the private area's
 * translator: `size.bytes` lives in those two catalogues, not in `common`, so the
 * landing page never needs the ICU formatter.
 */
export function formatBytes(bytes: number, locale: string, t: TFunction): string {
  if (bytes < 1000) return t('size.bytes', { count: bytes });
  let v = bytes / 1000;
  let i = 0;
  while (v >= 1000 && i < UNITS.length - 1) {
    v /= 1000;
    i++;
  }
  return new Intl.NumberFormat(locale, { style: 'unit', unit: UNITS[i], unitDisplay: 'short', maximumFractionDigits: 1 }).format(v);
}
