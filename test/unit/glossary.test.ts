/**
 * One legal vocabulary per language (docs/i18n-glossary.md): no catalogue string,
 * in any area of the SPA (reporter side, private area, handler workspace), the
 * sign-in pages or the mails, uses a synonym the glossary forbids, and each
 * language names the protection officer by its one term and keeps one register.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { LANGUAGES, type Language } from '../../machines/schema.ts';
import { GLOSSARY, forbiddenTerms, vocabularyWarnings, wordPattern } from '../../server/companies/vocabulary.ts';
import { parseCompanyFile } from '../../server/companies/format.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** server/companies/glossary.json, the list docs/i18n-glossary.md describes. */
const glossary = GLOSSARY as Record<string, { officer: string; forbidden: string[] }>;
const SEEDS = readdirSync(path.join(ROOT, 'server/seed')).filter((f) => f.endsWith('.json'));

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

/** The demo companies' texts in `lang` (server/seed/*.json `lookAndFeel.<lang>`). */
function seedStrings(lang: string): Array<{ where: string; text: string }> {
  const out: Array<{ where: string; text: string }> = [];
  const walk = (value: unknown, where: string) => {
    if (typeof value === 'string') out.push({ where, text: value });
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, `${where}.${k}`);
  };
  for (const f of SEEDS) walk(JSON.parse(readFileSync(path.join(ROOT, 'server/seed', f), 'utf8')).lookAndFeel?.[lang], `server/seed/${f} lookAndFeel.${lang}`);
  return out;
}

export function forbiddenUses(lang: string): string[] {
  const rules = glossary[lang]!;
  const hits: string[] = [];
  expect(rules.forbidden.length).toBeGreaterThan(0);
  for (const { where, text } of [...strings(lang), ...seedStrings(lang)]) {
    for (const term of forbiddenTerms(lang as Language, text)) hits.push(`${where}: "${term}" in "${text}"`);
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

  it('reads the texts of the demo companies too, in every language (issue 42)', () => {
    expect(SEEDS.sort()).toEqual(['group.json', 'localhost.json']);
    for (const lang of LANGUAGES) expect(seedStrings(lang).length, lang).toBeGreaterThan(20);
  });

  it('the company-file check warns, naming the text and the synonym, and still accepts the file (issue 42)', () => {
    for (const f of SEEDS) {
      const parsed = parseCompanyFile(JSON.parse(readFileSync(path.join(ROOT, 'server/seed', f), 'utf8')));
      expect(parsed.ok && parsed.warnings, f).toEqual([]);
    }
    const warnings = vocabularyWarnings({
      lookAndFeel: {
        es: { siteFrontPage: { paragraph: 'Su denuncia la recibe el responsable del canal de denuncias.' } },
        de: { siteFAQPage: { faqs: [{ heading: 'Urkundenfälschung?', paragraph: 'Melden Sie sie.' }] } },
        en: { siteFrontPage: { heading: 'Report safely' } },
      } as Partial<Record<Language, unknown>>,
    });
    expect(warnings.map((w) => `${w.field}: ${w.term}`)).toEqual([
      'lookAndFeel.es.siteFrontPage.paragraph: denuncia',
      'lookAndFeel.es.siteFrontPage.paragraph: denuncias',
      'lookAndFeel.es.siteFrontPage.paragraph: responsable del canal',
      'lookAndFeel.es.siteFrontPage.paragraph: canal de denuncias',
      'lookAndFeel.de.siteFAQPage.faqs.0.heading: Urkundenfälschung',
    ]);
    expect(warnings[0]!.message).toContain('"denuncia"');
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
    // An e-mail address or a web address is a name, not a word of the text.
    expect(forbiddenTerms('de', 'E-Mail: whistleblower@firma.example, https://firma.example/whistleblower')).toEqual([]);
    expect(forbiddenTerms('de', 'Der Whistleblower meldet')).toEqual(['Whistleblower']);
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

    it(`${lang}: a chosen, called or named officer is a person, not a unit (issue 42)`, () => {
      const person = (GLOSSARY[lang] as { person?: string }).person;
      const read = (area: string, key: string) => (JSON.parse(readFileSync(path.join(ROOT, 'src/i18n', area, `${lang}.json`), 'utf8')) as Record<string, string>)[key]!;
      const labels = [
        read('forms', 'forms.step.protectionOfficer.title'),
        read('forms', 'forms.officer.receiver'),
        read('forms', 'forms.officer.relation.INTERNAL'),
        read('forms', 'forms.officer.relation.EXTERNAL'),
        read('forms', 'forms.success.oral.title'),
        read('private', 'private.report.officer'),
        read('private', 'private.status.initiated'),
        read('handler', 'handler.case.officer'),
      ];
      // Only where the officer's term names a unit does the person need a term of its own.
      if (!person) return expect(['da', 'de']).not.toContain(lang);
      // Each word as a stem: "kontaktpersonen i whistleblowerenheden" is the same term.
      const stems = new RegExp(person.split(' ').map((w) => `${w}\\p{L}*`).join('\\s+'), 'iu');
      for (const label of labels) expect(label, lang).toMatch(stems);
    });

    it(`${lang}: the protection officer has its one name, "${glossary[lang]?.officer}"`, () => {
      // The term's first word as a stem: inflected forms (da "whistleblowerenheden") are the same term.
      const officer = new RegExp(`(?<![\\p{L}\\p{N}])${glossary[lang]!.officer.split(' ')[0]!}`, 'iu');
      const uses = strings(lang).filter(({ text }) => officer.test(text));
      expect(uses.length).toBeGreaterThan(3);
    });
  }
});
