/**
 * Every catalogue area (src/i18n/<area>/) has all seven languages with identical
 * keys; every message parses as ICU and uses the same arguments in every language.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { IntlMessageFormat } from 'intl-messageformat';
import { LANGUAGES } from '../../machines/schema.ts';

const root = path.resolve(import.meta.dirname, '../../src/i18n');
const areas = readdirSync(root).filter((d) => statSync(path.join(root, d)).isDirectory() && readdirSync(path.join(root, d)).some((f) => f.endsWith('.json')));

function load(area: string, lang: string): Record<string, string> {
  return JSON.parse(readFileSync(path.join(root, area, `${lang}.json`), 'utf8')) as Record<string, string>;
}

type MessageFormatElement = ReturnType<IntlMessageFormat['getAst']>[number];
// Element types of the ICU AST (@formatjs/icu-messageformat-parser TYPE).
const TYPE = { argument: 1, number: 2, date: 3, time: 4, select: 5, plural: 6, tag: 8 } as const;
const parse = (message: string) => new IntlMessageFormat(message, 'en').getAst();

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

describe('i18n catalogues', () => {
  it('has at least the common area', () => {
    expect(areas).toContain('common');
  });

  for (const area of areas) {
    describe(area, () => {
      it('has exactly one file per language (da no se en es pl de)', () => {
        const files = readdirSync(path.join(root, area)).filter((f) => f.endsWith('.json')).sort();
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
            const args = [...argumentsOf(parse(message))].sort();
            const enArgs = en[key] === undefined ? args : [...argumentsOf(parse(en[key]))].sort();
            expect(args, `${area}/${lang} ${key} arguments`).toEqual(enArgs);
          }
        }
      });
    });
  }
});
