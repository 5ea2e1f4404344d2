/**
 * One legal vocabulary per language (docs/i18n-glossary.md): no catalogue string,
 * in any area of the SPA (reporter side, private area, handler workspace), the
 * sign-in pages or the mails, uses a synonym the glossary forbids, and each
 * language names the protection officer by its one term and keeps one register.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { LANGUAGES } from '../../machines/schema.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const glossaryText = readFileSync(path.join(ROOT, 'docs/i18n-glossary.md'), 'utf8');
const block = /```json\n([\s\S]*?)\n```/.exec(glossaryText)?.[1];
const glossary = JSON.parse(block ?? '{}') as Record<string, { officer: string; forbidden: string[] }>;

/** Every catalogue folder: src/i18n/<area>/, server/idp/i18n/ and server/mail/i18n/. */
function catalogueFolders(): string[] {
  const spa = path.join(ROOT, 'src/i18n');
  return [
    ...readdirSync(spa)
      .map((d) => path.join(spa, d))
      .filter((d) => statSync(d).isDirectory()),
    path.join(ROOT, 'server/idp/i18n'),
    path.join(ROOT, 'server/mail/i18n'),
  ].filter((d) => readdirSync(d).some((f) => f.endsWith('.json')));
}

function strings(lang: string): Array<{ where: string; text: string }> {
  return catalogueFolders().flatMap((dir) => {
    const file = path.join(dir, `${lang}.json`);
    const messages = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    return Object.entries(messages).map(([key, text]) => ({ where: `${path.relative(ROOT, file)} ${key}`, text }));
  });
}

/** A whole word or phrase, any case: "rapport" does not match "rapporterande" or "ärendenummer". */
function wordPattern(term: string): RegExp {
  const escaped = term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+');
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'iu');
}

export function forbiddenUses(lang: string): string[] {
  const rules = glossary[lang]!;
  const hits: string[] = [];
  for (const { where, text } of strings(lang)) {
    for (const term of rules.forbidden) if (wordPattern(term).test(text)) hits.push(`${where}: "${term}" in "${text}"`);
  }
  return hits;
}

/**
 * One register per language (glossary "Register"): Spanish says *usted*, German *Sie*,
 * and Polish never addresses the reader with a masculine or feminine past form
 * ("byłeś", "Poprosiłaś"). Whole words, any case.
 */
const REGISTER: Partial<Record<string, RegExp>> = {
  es: /(?<![\p{L}])(tú|tu|tus|ti|contigo|puedes|quieres|tienes|debes|eres|estás|has elegido)(?![\p{L}])/iu,
  de: /(?<![\p{L}])(du|dich|dir|dein|deine|deinen|deinem|deiner|deines)(?![\p{L}])/iu,
  pl: /\p{L}+(łeś|łaś)(?![\p{L}])/iu,
};

export function registerSlips(lang: string): string[] {
  const rule = REGISTER[lang];
  return rule ? strings(lang).filter(({ text }) => rule.test(text)).map(({ where, text }) => `${where}: "${text}"`) : [];
}

describe('glossary (docs/i18n-glossary.md)', () => {
  it('has one entry for each of the seven languages', () => {
    expect(Object.keys(glossary).sort()).toEqual([...LANGUAGES].sort());
  });

  it('reads every catalogue area: SPA areas, sign-in pages and mails', () => {
    const folders = catalogueFolders().map((d) => path.relative(ROOT, d));
    for (const f of ['src/i18n/common', 'src/i18n/forms', 'src/i18n/private', 'src/i18n/handler', 'server/idp/i18n', 'server/mail/i18n']) expect(folders).toContain(f);
  });

  it('the word matcher takes whole words only', () => {
    expect(wordPattern('rapport').test('Din rapport')).toBe(true);
    expect(wordPattern('rapport').test('rapporterande person')).toBe(false);
    expect(wordPattern('sign in').test('Sign  in again')).toBe(true);
    expect(wordPattern('denuncia').test('Canal de denuncias')).toBe(false);
  });

  it('the register rules catch a slip and pass the right form', () => {
    expect(REGISTER.es!.test('Si quieres, elige tu contraseña')).toBe(true);
    expect(REGISTER.es!.test('Elija su contraseña; ya tiene su número')).toBe(false);
    expect(REGISTER.de!.test('Hast du dein Passwort?')).toBe(true);
    expect(REGISTER.de!.test('Haben Sie Ihr Passwort?')).toBe(false);
    expect(REGISTER.pl!.test('Poprosiłeś o nowe hasło')).toBe(true);
    expect(REGISTER.pl!.test('Poproszono o nowe hasło')).toBe(false);
  });

  for (const lang of LANGUAGES) {
    it(`${lang}: one register throughout`, () => {
      expect(registerSlips(lang)).toEqual([]);
    });

    it(`${lang}: no catalogue uses a forbidden synonym`, () => {
      expect(forbiddenUses(lang)).toEqual([]);
    });

    it(`${lang}: the protection officer has its one name, "${glossary[lang]?.officer}"`, () => {
      const officer = wordPattern(glossary[lang]!.officer.split(' ')[0]!);
      const uses = strings(lang).filter(({ text }) => officer.test(text));
      expect(uses.length).toBeGreaterThan(3);
    });
  }
});
