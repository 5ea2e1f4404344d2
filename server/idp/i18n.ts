/**
 * The sign-in pages' messages (server/idp/i18n/*.json, ICU, identical keys in all
 * seven languages) and the choice of language from `ui_locales`.
 */
import { readFileSync } from 'node:fs';
import { IntlMessageFormat } from 'intl-messageformat';
import { LANGUAGES, type Language } from '../../machines/schema.ts';

type Catalogue = Record<string, string>;

const catalogues = Object.fromEntries(
  LANGUAGES.map((l) => [l, JSON.parse(readFileSync(new URL(`./i18n/${l}.json`, import.meta.url), 'utf8')) as Catalogue]),
) as Record<Language, Catalogue>;

export const catalogueKeys = (l: Language) => Object.keys(catalogues[l]);

/** BCP 47 tag for `<html lang>`: the spec's `se` is Swedish (`sv`), `no` Norwegian. */
export function htmlLang(l: Language): string {
  return l === 'se' ? 'sv' : l;
}

const ALIASES: Record<string, Language> = { sv: 'se', nb: 'no', nn: 'no' };

/**
 * An `Accept-Language` header as a `ui_locales`-style list, most wanted first: the
 * browser's language is the choice when the request names none (spec §1).
 */
export function acceptLanguageTags(header: string | string[] | undefined | null): string {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  return value
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag: tag!.trim(), q: q === undefined ? 1 : Number(q), i };
    })
    .filter((x) => /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(x.tag) && x.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .map((x) => x.tag)
    .join(' ');
}

/** First supported language of a `ui_locales` value (space separated BCP 47 tags), else the fallback. */
export function pickLanguage(uiLocales: string | undefined | null, offered: readonly string[], fallback: string): Language {
  for (const tag of (uiLocales ?? '').split(/\s+/).filter(Boolean)) {
    const base = tag.toLowerCase().split('-')[0]!;
    const lang = (ALIASES[base] ?? base) as Language;
    if ((LANGUAGES as readonly string[]).includes(lang) && (offered.length === 0 || offered.includes(lang))) return lang;
  }
  return (LANGUAGES as readonly string[]).includes(fallback) ? (fallback as Language) : 'da';
}

export function translator(lang: Language) {
  const cat = catalogues[lang];
  return (key: string, values?: Record<string, string | number>): string => {
    const msg = cat[key] ?? catalogues.en[key] ?? key;
    return values ? String(new IntlMessageFormat(msg, htmlLang(lang)).format(values)) : msg;
  };
}
export type Translate = ReturnType<typeof translator>;
