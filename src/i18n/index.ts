/**
 * The portal's i18n runtime: ICU messages (intl-messageformat), one catalogue per
 * area and language, each loaded on demand with a dynamic import so the landing
 * page fetches only `common` in one language. See ./README.md for how areas
 * (forms, private) plug in.
 */
import { createContext, createElement, use, useCallback, useMemo, type ReactNode } from 'react';
import type { IntlMessageFormat } from 'intl-messageformat';
import { DEFAULT_LANGUAGE, LANGUAGE_NAMES, LANGUAGES, PRIVATE_LANGUAGES, type Language } from '../../machines/languages.ts';

import { formatSimple, isSimpleMessage, toBcp47, type Message, type MessageValues } from './message.ts';

export { DEFAULT_LANGUAGE, LANGUAGES, PRIVATE_LANGUAGES, type Language };
export { formatSimple, isSimpleMessage, toBcp47, type Message, type MessageValues };

/** Each language's own name, for the language selectors. */
export { LANGUAGE_NAMES };

/** The languages a private page's selector offers (spec §1): Dansk, Norsk, Svenska, English. */
export const PRIVATE_LANGUAGE_OPTIONS: ReadonlyArray<{ code: Language; name: string }> = PRIVATE_LANGUAGES.map(
  (code) => ({ code, name: LANGUAGE_NAMES[code] }),
);

export function isLanguage(x: unknown): x is Language {
  return typeof x === 'string' && (LANGUAGES as readonly string[]).includes(x);
}

/** Spec code from a browser tag (`sv-SE` → `se`, `nb`/`nn` → `no`), or undefined if unsupported. */
export function fromBcp47(tag: string): Language | undefined {
  const base = tag.toLowerCase().split(/[-_]/)[0] ?? '';
  const mapped = base === 'sv' ? 'se' : base === 'nb' || base === 'nn' ? 'no' : base;
  return isLanguage(mapped) ? mapped : undefined;
}

/**
 * A catalogue as the SPA gets it: its JSON, except that a production build hands over
 * the messages that need the ICU formatter already parsed (scripts/precompileMessages.ts).
 */
export type Catalogue = Record<string, Message>;
/** What `import.meta.glob('./*.json', { import: 'default' })` gives (typed or not). */
export type CatalogueLoader = () => Promise<unknown>;

const loaders = new Map<string, Map<Language, CatalogueLoader>>();
type TrackedPromise<T> = Promise<T> & { status?: 'pending' | 'fulfilled' | 'rejected'; value?: T; reason?: unknown };
const loaded = new Map<string, TrackedPromise<Catalogue>>();

/**
 * Registers an area's catalogues. `files` is what `import.meta.glob('./*.json')`
 * returns in the area's folder (keys like `./da.json`), or a map keyed by language.
 * Registering again replaces the loaders (hot reload).
 */
export function registerCatalogues(area: string, files: Record<string, CatalogueLoader>): void {
  const byLang = new Map<Language, CatalogueLoader>();
  for (const [key, loader] of Object.entries(files)) {
    const lang = key.replace(/^.*\//, '').replace(/\.json$/, '');
    if (isLanguage(lang)) byLang.set(lang, loader);
  }
  loaders.set(area, byLang);
}

registerCatalogues('common', import.meta.glob<Catalogue>('./common/*.json', { import: 'default' }));

const provided = new Map<string, Catalogue>();

/**
 * Catalogues the page already carries, keyed `<area>/<language>` (the server writes a
 * route's into its boot JSON): `loadCatalogue` takes them instead of fetching their
 * chunks. An entry that is not a catalogue is ignored, and its chunk is loaded.
 */
export function provideCatalogues(catalogues: unknown): void {
  if (!catalogues || typeof catalogues !== 'object') return;
  for (const [id, cat] of Object.entries(catalogues)) {
    const [area, lang, ...rest] = id.split('/');
    if (rest.length || !area || !/^[a-z]+$/.test(area) || !isLanguage(lang)) continue;
    if (!cat || typeof cat !== 'object' || Array.isArray(cat)) continue;
    if (!Object.values(cat).every((msg) => typeof msg === 'string' || Array.isArray(msg))) continue;
    provided.set(id, cat as Catalogue);
  }
}

/**
 * Loads the catalogues the page brought in `lang`, so that the first render finds them
 * ready: a `use()` of one still pending suspends the route, and the render that
 * follows its arrival is a synchronous one, the whole form in one long task
 * (performance.md, fourteenth round). Settles when all have, loaded or not.
 */
export function loadProvidedCatalogues(lang: Language): Promise<unknown> {
  const ids = [...provided.keys()].filter((id) => id.endsWith(`/${lang}`));
  return Promise.allSettled(ids.map((id) => loadCatalogue(id.slice(0, id.indexOf('/')), lang)));
}

/**
 * Loads (once) and returns an area's catalogue in a language. The promise carries
 * React's `status`/`value` fields, so `use()` reads an already loaded catalogue
 * without suspending.
 */
export function loadCatalogue(area: string, lang: Language): Promise<Catalogue> {
  const id = `${area}/${lang}`;
  const cached = loaded.get(id);
  if (cached) return cached;
  const given = provided.get(id);
  const loader = given ? () => Promise.resolve(given) : loaders.get(area)?.get(lang);
  if (!loader) return Promise.reject(new Error(`No catalogue registered for ${id}`));
  const p: TrackedPromise<Catalogue> = loader().then(async (m) => {
    const mod = m as { default?: unknown } | null;
    const cat = (mod && typeof mod.default === 'object' ? mod.default : mod) as Catalogue;
    // The full ICU formatter is loaded only for catalogues that need it (plurals,
    // selects, number/date formats, escapes). `common` (the first screen's text) has
    // none, so the landing page never loads it (test/unit/i18n.test.ts keeps it so);
    // should one appear, `common` still does not wait: on a slow phone network the
    // wait was seconds of blank landing page. A message formatted before the
    // formatter arrives suspends until then.
    if (Object.values(cat).some((msg) => typeof msg !== 'string' || !isSimpleMessage(msg))) {
      if (area === 'common') void loadIcu().catch(() => {});
      else await loadIcu();
    }
    return cat;
  });
  p.status = 'pending';
  p.then(
    (value) => {
      p.status = 'fulfilled';
      p.value = value;
    },
    (reason: unknown) => {
      p.status = 'rejected';
      p.reason = reason;
      loaded.delete(id); // a failed chunk load may be retried
    },
  );
  loaded.set(id, p);
  return p;
}

let Icu: typeof IntlMessageFormat | undefined;
let icuLoading: Promise<void> | undefined;
function loadIcu(): Promise<void> {
  icuLoading ??= import('intl-messageformat').then(
    (m) => {
      Icu = m.IntlMessageFormat;
      // The portal formats only in its own seven languages, tags every browser has, so
      // Intl is not asked which of them it supports, once per message.
      Icu.resolveLocale = memoizeByArgs((locales: string | string[]) => new Intl.Locale(typeof locales === 'string' ? locales : locales[0]!));
    },
    (err: unknown) => {
      icuLoading = undefined; // a failed chunk load may be retried
      throw err;
    },
  );
  return icuLoading;
}

/**
 * Every `IntlMessageFormat` resolves its locale and builds its own number, date and
 * plural formatters, once per message. The answers depend only on the arguments, so
 * they are worked out once per language and options and shared (performance.md,
 * tenth round).
 */
function memoizeByArgs<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  const seen = new Map<string, R>();
  return (...args: A) => {
    const key = JSON.stringify(args);
    let hit = seen.get(key);
    if (hit === undefined && !seen.has(key)) seen.set(key, (hit = fn(...args)));
    return hit as R;
  };
}
const sharedFormatters = {
  getNumberFormat: memoizeByArgs((...args: ConstructorParameters<typeof Intl.NumberFormat>) => new Intl.NumberFormat(...args)),
  getDateTimeFormat: memoizeByArgs((...args: ConstructorParameters<typeof Intl.DateTimeFormat>) => new Intl.DateTimeFormat(...args)),
  getPluralRules: memoizeByArgs((...args: ConstructorParameters<typeof Intl.PluralRules>) => new Intl.PluralRules(...args)),
};

const formats = new Map<string, IntlMessageFormat>();
const parsedFormats = new WeakMap<object, IntlMessageFormat>();
export type TFunction = (key: string, values?: MessageValues) => string;

/** Formats `key` from the given catalogues (first match wins); a missing key renders as the key itself. */
export function formatMessage(lang: Language, catalogues: Catalogue[], key: string, values?: MessageValues): string {
  for (const cat of catalogues) {
    const source = cat[key];
    if (source === undefined) continue;
    if (typeof source === 'string' && isSimpleMessage(source)) return formatSimple(source, values);
    // Suspends the component (React Suspense) until the formatter has arrived.
    if (!Icu) throw loadIcu();
    let fmt: IntlMessageFormat | undefined;
    if (typeof source === 'string') {
      const id = `${lang}\u0000${source}`;
      fmt = formats.get(id);
      if (!fmt) formats.set(id, (fmt = new Icu(source, toBcp47(lang), undefined, { formatters: sharedFormatters })));
    } else {
      // Parsed at build time: each catalogue (one language) holds its own AST objects.
      fmt = parsedFormats.get(source);
      if (!fmt) parsedFormats.set(source, (fmt = new Icu(source, toBcp47(lang), undefined, { formatters: sharedFormatters })));
    }
    const out = fmt.format(values as Record<string, string | number | Date>);
    return Array.isArray(out) ? out.join('') : String(out);
  }
  if (import.meta.env?.DEV) console.warn(`i18n: missing key ${key} (${lang})`);
  return key;
}

const LanguageContext = createContext<Language>(DEFAULT_LANGUAGE);

/** Provides the display language; the look-and-feel machine decides it (spec §7: a 200 sets it). */
export function I18nProvider({ language, children }: { language: Language; children: ReactNode }) {
  return createElement(LanguageContext.Provider, { value: language }, children);
}

export function useLanguage(): Language {
  return use(LanguageContext);
}

/**
 * `t(key, values)` for an area (default `common`). Keys not in the area fall back
 * to `common`. Suspends while a catalogue loads; wrap lazy areas in <Suspense>.
 */
export function useT(area: string = 'common'): TFunction {
  const lang = useLanguage();
  const common = use(loadCatalogue('common', lang));
  const own = area === 'common' ? undefined : use(loadCatalogue(area, lang));
  const cats = useMemo(() => (own ? [own, common] : [common]), [own, common]);
  return useCallback((key: string, values?: MessageValues) => formatMessage(lang, cats, key, values), [lang, cats]);
}
