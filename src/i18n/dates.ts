/**
 * Date formats of spec §9: DD/MM/YYYY for a receipt date, long weekday with
 * day-month-year and time for a created date, relative time for chat messages.
 * All in the reporter's local time zone.
 */
import { toBcp47, type Language } from './index.ts';

/**
 * The locale for dates: spec §9 wants day-month-year in every language, so English
 * is British English (`en-GB`: "Monday 3 March 2025"), never month-first `en-US`.
 */
export function dateLocale(lang: Language): string {
  return lang === 'en' ? 'en-GB' : toBcp47(lang);
}

function toDate(d: Date | string | number): Date {
  return d instanceof Date ? d : new Date(d);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `DD/MM/YYYY`, the same in every language. */
export function formatReceiptDate(value: Date | string | number): string {
  const d = toDate(value);
  return `${pad(d.getDate())}/${pad(d.getMonth() + 1)}/${d.getFullYear()}`;
}

/** e.g. "mandag den 3. marts 2025 14.05" (da), "Monday 3 March 2025 at 14:05" (en). */
export function formatLongDateTime(value: Date | string | number, lang: Language): string {
  return new Intl.DateTimeFormat(dateLocale(lang), {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  }).format(toDate(value));
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** e.g. "5 minutes ago", "i går" — relative to `now`. */
export function formatRelativeTime(value: Date | string | number, lang: Language, now: Date | number = Date.now()): string {
  const seconds = Math.round((toDate(value).getTime() - toDate(now).getTime()) / 1000);
  const rtf = new Intl.RelativeTimeFormat(dateLocale(lang), { numeric: 'auto' });
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size || unit === 'second') {
      return rtf.format(Math.round(seconds / size), unit);
    }
  }
  return rtf.format(0, 'second');
}
