/**
 * The reporter's language choice. The choice is the only thing the portal keeps in
 * localStorage (spec §1, §9): no report data ever goes there.
 */
import { DEFAULT_LANGUAGE, fromBcp47, isLanguage, type Language } from '../i18n/index.ts';

export const LANGUAGE_STORAGE_KEY = 'wb.language';

export function storedLanguage(storage: Pick<Storage, 'getItem'> | undefined = safeStorage()): Language | undefined {
  try {
    const v = storage?.getItem(LANGUAGE_STORAGE_KEY);
    return isLanguage(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

export function storeLanguage(lang: Language, storage: Pick<Storage, 'setItem'> | undefined = safeStorage()): void {
  try {
    storage?.setItem(LANGUAGE_STORAGE_KEY, lang);
  } catch {
    // storage disabled (private mode): the choice lasts for this page only
  }
}

/** The reporter's own preference: the stored choice, else the first supported browser language; undefined when neither. */
export function preferredLanguage(
  browserLanguages: readonly string[] = typeof navigator === 'undefined' ? [] : navigator.languages ?? [navigator.language],
  storage: Pick<Storage, 'getItem'> | undefined = safeStorage(),
): Language | undefined {
  const stored = storedLanguage(storage);
  if (stored) return stored;
  for (const tag of browserLanguages) {
    const lang = fromBcp47(tag);
    if (lang) return lang;
  }
  return undefined;
}

/** Stored choice, else the first supported browser language, else `fallback` (the handler workspace: da). */
export function initialLanguage(
  browserLanguages: readonly string[] = typeof navigator === 'undefined' ? [] : navigator.languages ?? [navigator.language],
  storage: Pick<Storage, 'getItem'> | undefined = safeStorage(),
  fallback: Language = DEFAULT_LANGUAGE,
): Language {
  return preferredLanguage(browserLanguages, storage) ?? fallback;
}

/** What the page the server sent says about the company (core/boot.ts), as far as the choice needs it. */
export interface BootLanguageHint {
  language?: string;
  lookAndFeel?: { languageCode?: string; defaultLanguage?: string; availableLanguages?: readonly string[] } | null;
}

/**
 * The reporter portal's first language (spec §1): the reporter's preference when the
 * company offers it, else the company's default language, the site default for it.
 * The page's boot data names the company's languages; without it (the Vite dev
 * server, an unknown host) `followDefault` tells the look-and-feel fetch to switch to
 * the default the company answers with (src/app/lookAndFeel.tsx).
 */
export function firstLanguage(preferred: Language | undefined, boot: BootLanguageHint | null | undefined): { language: Language; followDefault: boolean } {
  const laf = boot?.lookAndFeel;
  const offered = laf?.availableLanguages;
  if (preferred && (!offered || offered.includes(preferred))) return { language: preferred, followDefault: false };
  if (laf && isLanguage(laf.defaultLanguage)) return { language: laf.defaultLanguage, followDefault: false };
  if (preferred) return { language: preferred, followDefault: false };
  return { language: isLanguage(boot?.language) ? boot.language : DEFAULT_LANGUAGE, followDefault: true };
}

function safeStorage(): Storage | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined;
  }
}
