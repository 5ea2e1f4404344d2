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

/** Stored choice, else the first supported browser language, else the site default (da). */
export function initialLanguage(
  browserLanguages: readonly string[] = typeof navigator === 'undefined' ? [] : navigator.languages ?? [navigator.language],
  storage: Pick<Storage, 'getItem'> | undefined = safeStorage(),
): Language {
  const stored = storedLanguage(storage);
  if (stored) return stored;
  for (const tag of browserLanguages) {
    const lang = fromBcp47(tag);
    if (lang) return lang;
  }
  return DEFAULT_LANGUAGE;
}

function safeStorage(): Storage | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined;
  }
}
