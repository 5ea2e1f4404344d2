/**
 * Every catalogue area — the SPA's src/i18n/<area>/ (reporter, private area, handler
 * workspace, …), the sign-in pages (server/idp/i18n) and the mails (server/mail/i18n) —
 * has all seven languages with identical keys; every message parses as ICU, uses the
 * same arguments as English, and every plural names each category its language needs
 * (Intl.PluralRules(lang).resolvedOptions().pluralCategories: Polish one/few/many/other,
 * Spanish one/many/other, …).
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { IntlMessageFormat } from 'intl-messageformat';
import { LANGUAGES } from '../../machines/schema.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const spa = path.join(ROOT, 'src/i18n');
const hasJson = (dir: string) => readdirSync(dir).some((f) => f.endsWith('.json'));
/** area name → folder; every src/i18n subfolder with catalogues, plus the server's two. */
const AREAS: Record<string, string> = {
  ...Object.fromEntries(
    readdirSync(spa)
      .map((d) => [d, path.join(spa, d)] as const)
      .filter(([, dir]) => statSync(dir).isDirectory() && hasJson(dir)),
  ),
  'idp (sign-in pages)': path.join(ROOT, 'server/idp/i18n'),
  'mail': path.join(ROOT, 'server/mail/i18n'),
};
const areas = Object.keys(AREAS);

function load(area: string, lang: string): Record<string, string> {
  return JSON.parse(readFileSync(path.join(AREAS[area]!, `${lang}.json`), 'utf8')) as Record<string, string>;
}

/** The BCP 47 tag Intl knows each catalogue language by (`se` is Swedish). */
const bcp47 = (lang: string) => (lang === 'se' ? 'sv' : lang);

type MessageFormatElement = ReturnType<IntlMessageFormat['getAst']>[number];
// Element types of the ICU AST (@formatjs/icu-messageformat-parser TYPE).
const TYPE = { argument: 1, number: 2, date: 3, time: 4, select: 5, plural: 6, tag: 8 } as const;
const parse = (message: string, lang = 'en') => new IntlMessageFormat(message, bcp47(lang)).getAst();

function argumentsOf(elements: MessageFormatElement[], out = new Set<string>()): Set<string> {
  for (const el of elements) {
    if (el.type === TYPE.argument || el.type === TYPE.number || el.type === TYPE.date || el.type === TYPE.time) out.add(el.value);
    if (el.type === TYPE.plural || el.type === TYPE.select) {
      out.add(el.value);
      for (const opt of Object.values(el.options)) argumentsOf(opt.value, out);
    }
    if (el.type === TYPE.tag) argumentsOf(el.children, out);
  }
  return out;
}

/** Each cardinal plural's missing categories, as "arg: few, many". */
export function missingPluralCategories(message: string, lang: string): string[] {
  const needed = new Intl.PluralRules(bcp47(lang)).resolvedOptions().pluralCategories;
  const out: string[] = [];
  const walk = (elements: MessageFormatElement[]) => {
    for (const el of elements) {
      if (el.type === TYPE.plural || el.type === TYPE.select) {
        if (el.type === TYPE.plural && el.pluralType !== 'ordinal') {
          const missing = needed.filter((c) => !(c in el.options));
          if (missing.length > 0) out.push(`${el.value}: ${missing.join(', ')}`);
        }
        for (const opt of Object.values(el.options)) walk(opt.value);
      }
      if (el.type === TYPE.tag) walk(el.children);
    }
  };
  walk(parse(message, lang));
  return out;
}

/** Words every language shares with English, so a value equal to English is not left untranslated. */
const SHARED_WORDS = new Set(['ok', 'menu', 'e-mail', 'status', 'send', 'video', 'version', 'sha-256', 'name', 'no', 'byte', 'bytes', 'logo']);
function looksUntranslated(value: string, english: string): boolean {
  if (value !== english) return false;
  const words = value.replace(/\{[^{}]*(\{[^{}]*\}[^{}]*)*\}/g, ' ').toLowerCase().match(/[\p{L}][\p{L}\p{N}-]*/gu) ?? [];
  return words.some((w) => !SHARED_WORDS.has(w));
}

describe('the catalogue checks themselves', () => {
  it('find a missing Polish or Spanish plural category, and accept a complete one', () => {
    expect(missingPluralCategories('{n, plural, one {# dzień} other {# dni}}', 'pl')).toEqual(['n: few, many']);
    expect(missingPluralCategories('{n, plural, one {# dzień} few {# dni} many {# dni} other {# dnia}}', 'pl')).toEqual([]);
    expect(missingPluralCategories('{n, plural, one {# día} other {# días}}', 'es')).toEqual(['n: many']);
    expect(missingPluralCategories('{n, plural, one {# sag} other {# sager}}', 'da')).toEqual([]);
    expect(missingPluralCategories('Hej {name}', 'se')).toEqual([]);
  });

  it('tell English left in a catalogue from a word the languages share', () => {
    expect(looksUntranslated('Try again', 'Try again')).toBe(true);
    expect(looksUntranslated('Status', 'Status')).toBe(false);
    expect(looksUntranslated('{name}, {company}', '{name}, {company}')).toBe(false);
    expect(looksUntranslated('Prøv igen', 'Try again')).toBe(false);
  });
});

describe('i18n catalogues', () => {
  it('has the common, forms, private, handler, sign-in and mail areas', () => {
    for (const a of ['common', 'forms', 'private', 'handler', 'idp (sign-in pages)', 'mail']) expect(areas).toContain(a);
  });

  for (const area of areas) {
    describe(area, () => {
      it('has exactly one file per language (da no se en es pl de)', () => {
        const files = readdirSync(AREAS[area]!).filter((f) => f.endsWith('.json')).sort();
        expect(files).toEqual(LANGUAGES.map((l) => `${l}.json`).sort());
      });

      it('has identical keys in every language', () => {
        const reference = Object.keys(load(area, 'en')).sort();
        expect(reference.length).toBeGreaterThan(0);
        for (const lang of LANGUAGES) {
          const keys = Object.keys(load(area, lang)).sort();
          const missing = reference.filter((k) => !keys.includes(k));
          const extra = keys.filter((k) => !reference.includes(k));
          expect({ lang, missing, extra }).toEqual({ lang, missing: [], extra: [] });
        }
      });

      it('has a non-empty, parseable ICU message with the same arguments everywhere', () => {
        const en = load(area, 'en');
        for (const lang of LANGUAGES) {
          const cat = load(area, lang);
          for (const [key, message] of Object.entries(cat)) {
            expect(typeof message, `${area}/${lang} ${key}`).toBe('string');
            expect(message.trim(), `${area}/${lang} ${key} is empty`).not.toBe('');
            const args = [...argumentsOf(parse(message, lang))].sort();
            const enArgs = en[key] === undefined ? args : [...argumentsOf(parse(en[key]))].sort();
            expect(args, `${area}/${lang} ${key} arguments`).toEqual(enArgs);
          }
        }
      });

      it('names every plural category each language needs', () => {
        const gaps: string[] = [];
        for (const lang of LANGUAGES) {
          for (const [key, message] of Object.entries(load(area, lang))) {
            for (const gap of missingPluralCategories(message, lang)) gaps.push(`${lang} ${key} ${gap}`);
          }
        }
        expect(gaps).toEqual([]);
      });

      it('leaves no English text in the other languages', () => {
        const en = load(area, 'en');
        const left: string[] = [];
        for (const lang of LANGUAGES.filter((l) => l !== 'en')) {
          for (const [key, message] of Object.entries(load(area, lang))) {
            if (en[key] !== undefined && looksUntranslated(message, en[key])) left.push(`${lang} ${key}: ${message}`);
          }
        }
        expect(left).toEqual([]);
      });
    });
  }
});
