/**
 * The portal's one legal vocabulary per language (docs/i18n-glossary.md), as data:
 * server/companies/glossary.json is the machine-readable list, read by the glossary
 * test for every catalogue and the demo companies' texts, and by the company-file
 * check, which warns when a company text uses a synonym the interface never uses.
 */
import { readFileSync } from 'node:fs';
import type { Language } from '../../machines/languages.ts';

export interface GlossaryEntry {
  /** The term each language uses for the protection officer. */
  officer: string;
  /**
   * Where `officer` names a unit (da *whistleblowerenhed*, de *Meldestelle*), the term
   * for the person of that unit the reporter chooses, calls or sees named.
   */
  person?: string;
  /** Whole words or phrases that must not appear. */
  forbidden: string[];
}

export const GLOSSARY = JSON.parse(readFileSync(new URL('./glossary.json', import.meta.url), 'utf8')) as Record<Language, GlossaryEntry>;

/** A whole word or phrase, any case: "rapport" does not match "rapporterande" or "ärendenummer". */
export function wordPattern(term: string): RegExp {
  const escaped = term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+');
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'iu');
}

const patterns = new Map<string, RegExp>();
/** The forbidden terms of `lang` that `text` uses, in the glossary's order. */
export function forbiddenTerms(lang: Language, text: string): string[] {
  const entry = GLOSSARY[lang];
  if (!entry) return [];
  // An address is a name, not a word of the text: whistleblower@example.org, https://…
  const words = text.replace(/[^\s@]+@[^\s@]+|\b[a-z][a-z0-9+.-]*:\/\/\S+/giu, ' ');
  return entry.forbidden.filter((term) => {
    let re = patterns.get(term);
    if (!re) patterns.set(term, (re = wordPattern(term)));
    return re.test(words);
  });
}

export interface VocabularyWarning {
  /** Dotted path of the text in the company file (`lookAndFeel.es.siteFrontPage.paragraph`). */
  field: string;
  term: string;
  message: string;
}

/** Every string under `value`, with its dotted path. */
function* texts(value: unknown, at: string): Generator<{ field: string; text: string }> {
  if (typeof value === 'string') yield { field: at, text: value };
  else if (Array.isArray(value)) for (const [i, v] of value.entries()) yield* texts(v, `${at}.${i}`);
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) yield* texts(v, `${at}.${k}`);
}

/**
 * The company's texts (each language's `lookAndFeel` entry) that use a synonym the
 * glossary forbids in that language: warnings, not errors, so an import still goes
 * through; the operator is told which text and which word.
 */
export function vocabularyWarnings(company: { lookAndFeel: Partial<Record<Language, unknown>> }): VocabularyWarning[] {
  const out: VocabularyWarning[] = [];
  for (const [lang, entry] of Object.entries(company.lookAndFeel) as [Language, unknown][]) {
    for (const { field, text } of texts(entry, `lookAndFeel.${lang}`)) {
      for (const term of forbiddenTerms(lang, text)) {
        out.push({ field, term, message: `uses "${term}", which the portal's ${lang} vocabulary does not use (docs/i18n-glossary.md); say it as the interface does` });
      }
    }
  }
  return out;
}
