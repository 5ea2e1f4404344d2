/** The i18n runtime: the fast path for plain messages gives what intl-messageformat gives; language tags. */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { IntlMessageFormat } from 'intl-messageformat';
import { formatSimple, fromBcp47, isSimpleMessage, toBcp47, PRIVATE_LANGUAGE_OPTIONS } from '../../src/i18n/index.ts';
import { formatLongDateTime, formatReceiptDate, formatRelativeTime } from '../../src/i18n/dates.ts';
import { LANGUAGES } from '../../machines/languages.ts';
import { firstLanguage, initialLanguage, LANGUAGE_STORAGE_KEY, preferredLanguage } from '../../src/app/language.ts';
import { BootStore } from '../../core/boot.ts';
import { DEFAULT_LOOK_AND_FEEL } from '../../machines/lookAndFeel.ts';

const root = path.resolve(import.meta.dirname, '../../src/i18n');

describe('plain-message fast path', () => {
  it('tells plain messages from ones that need the ICU formatter', () => {
    expect(isSimpleMessage('Hello')).toBe(true);
    expect(isSimpleMessage('Show the pages under {page}')).toBe(true);
    expect(isSimpleMessage("Don't worry")).toBe(true);
    expect(isSimpleMessage('{n, plural, one {# file} other {# files}}')).toBe(false);
    expect(isSimpleMessage('{count, number}')).toBe(false);
    expect(isSimpleMessage("It''s")).toBe(false);
    expect(isSimpleMessage("'{literal}'")).toBe(false);
    expect(isSimpleMessage('{a} and {b}')).toBe(true);
  });

  it('formats every plain message of every catalogue exactly as intl-messageformat does', () => {
    const values = { page: 'FAQ', n: 3, max: 7, name: 'Anna', count: 2, caseNumber: '1234 5678 9012 3456' };
    let checked = 0;
    for (const area of readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory())) {
      for (const file of readdirSync(path.join(root, area.name)).filter((f) => f.endsWith('.json'))) {
        const cat = JSON.parse(readFileSync(path.join(root, area.name, file), 'utf8')) as Record<string, string>;
        for (const [key, msg] of Object.entries(cat)) {
          if (!isSimpleMessage(msg)) continue;
          const args = [...msg.matchAll(/\{\s*([\p{L}\p{N}_]+)\s*\}/gu)].map((m) => m[1]!);
          const v = Object.fromEntries(args.map((a) => [a, (values as Record<string, unknown>)[a] ?? `<${a}>`]));
          const expected = new IntlMessageFormat(msg, 'en').format(v as never);
          expect(formatSimple(msg, v as never), `${area.name}/${file} ${key}`).toBe(String(expected));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(500);
  });

  it('the first screen\'s catalogue (common) needs no ICU formatter in any language, so the landing never loads it', () => {
    for (const file of readdirSync(path.join(root, 'common')).filter((f) => f.endsWith('.json'))) {
      const cat = JSON.parse(readFileSync(path.join(root, 'common', file), 'utf8')) as Record<string, string>;
      expect(Object.entries(cat).filter(([, m]) => !isSimpleMessage(m)).map(([k]) => `${file} ${k}`)).toEqual([]);
    }
  });
  it('throws like intl-messageformat when a value is missing', () => {
    expect(() => formatSimple('Hi {name}', {})).toThrow(/name/);
    expect(formatSimple('n={n}', { n: 0 })).toBe(String(new IntlMessageFormat('n={n}', 'en').format({ n: 0 })));
  });
});

describe('languages', () => {
  it('maps the spec codes to browser tags and back', () => {
    expect(toBcp47('se')).toBe('sv');
    expect(toBcp47('da')).toBe('da');
    expect(fromBcp47('sv-SE')).toBe('se');
    expect(fromBcp47('nb-NO')).toBe('no');
    expect(fromBcp47('nn')).toBe('no');
    expect(fromBcp47('en-GB')).toBe('en');
    expect(fromBcp47('fr-FR')).toBeUndefined();
  });

  it('first visit: the first supported browser language, else da; after that the stored choice', () => {
    const empty = { getItem: () => null };
    expect(initialLanguage(['fr-FR', 'de-DE', 'en'], empty)).toBe('de');
    expect(initialLanguage(['fr-FR', 'it'], empty)).toBe('da');
    expect(initialLanguage([], empty)).toBe('da');
    const stored = { getItem: (k: string) => (k === LANGUAGE_STORAGE_KEY ? 'pl' : null) };
    expect(initialLanguage(['sv-SE'], stored)).toBe('pl');
    const junk = { getItem: () => 'xx' };
    expect(initialLanguage(['sv-SE'], junk)).toBe('se');
  });

  it('an unsupported browser language gets the company default, not Danish (spec §1, issue 42)', () => {
    const empty = { getItem: () => null };
    const group = { language: 'en', lookAndFeel: { languageCode: 'en', defaultLanguage: 'en', availableLanguages: ['da', 'en', 'pl'] } };
    // French or Italian at a company whose default is English: English.
    expect(firstLanguage(preferredLanguage(['fr-FR', 'it'], empty), group)).toEqual({ language: 'en', followDefault: false });
    // A supported language the company offers wins; one it does not offer gives its default.
    expect(firstLanguage(preferredLanguage(['pl-PL'], empty), group)).toEqual({ language: 'pl', followDefault: false });
    expect(firstLanguage(preferredLanguage(['de-DE'], empty), group)).toEqual({ language: 'en', followDefault: false });
    // No page data (the dev server): the first answer's default is followed.
    expect(firstLanguage(undefined, null)).toEqual({ language: 'da', followDefault: true });
    expect(firstLanguage('se', null)).toEqual({ language: 'se', followDefault: false });
    // The page's inlined answer is taken for a language the company does not offer.
    const laf = { ...DEFAULT_LOOK_AND_FEEL, languageCode: 'en', defaultLanguage: 'en', availableLanguages: ['da', 'en'] };
    expect(new BootStore({ language: 'en', lookAndFeel: laf }).takeLookAndFeel('de', true)).toBe(laf);
    expect(new BootStore({ language: 'en', lookAndFeel: laf }).takeLookAndFeel('de', false)).toBeNull();
    expect(new BootStore({ language: 'en', lookAndFeel: laf }).takeLookAndFeel('da', true)).toBeNull();
  });

  it('private pages offer Dansk, Norsk, Svenska and English only', () => {
    expect(PRIVATE_LANGUAGE_OPTIONS).toEqual([
      { code: 'da', name: 'Dansk' },
      { code: 'no', name: 'Norsk' },
      { code: 'se', name: 'Svenska' },
      { code: 'en', name: 'English' },
    ]);
  });
});

describe('dates (spec §9)', () => {
  const d = new Date(2025, 2, 3, 14, 5); // 3 March 2025, 14:05 local time
  it('receipt date is DD/MM/YYYY', () => {
    expect(formatReceiptDate(d)).toBe('03/03/2025');
    expect(formatReceiptDate(new Date(2024, 11, 31, 23, 59))).toBe('31/12/2024');
  });
  it('created date has the long weekday, day, month, year and time in the language', () => {
    const da = formatLongDateTime(d, 'da');
    expect(da).toMatch(/mandag/);
    expect(da).toMatch(/marts/);
    expect(da).toMatch(/2025/);
    expect(da).toMatch(/14[.:]05/);
    expect(formatLongDateTime(d, 'se')).toMatch(/måndag/);
    expect(formatLongDateTime(d, 'en')).toMatch(/Monday/);
  });
  it('is day-month-year in every language, English included (en-GB, not month-first)', () => {
    const d13 = new Date(2025, 2, 13, 14, 5); // 13 March: the day cannot be mistaken for the month
    expect(formatLongDateTime(d13, 'en')).toMatch(/^Thursday,? 13 March 2025/);
    for (const lang of LANGUAGES) {
      const text = formatLongDateTime(d13, lang);
      const day = text.search(/\b13\b/);
      const year = text.indexOf('2025');
      expect(day, `${lang}: ${text}`).toBeGreaterThan(-1);
      expect(day, `${lang}: ${text}`).toBeLessThan(year);
      // the month name stands between the day and the year
      expect(text.slice(day + 2, year).replace(/[\s.,]/g, '').length, `${lang}: ${text}`).toBeGreaterThan(2);
    }
  });
  it('chat times are relative', () => {
    const now = new Date(2025, 2, 3, 14, 10);
    expect(formatRelativeTime(d, 'en', now)).toBe('5 minutes ago');
    expect(formatRelativeTime(new Date(2025, 2, 2, 14, 5), 'da', now)).toBe('i går');
  });
});
