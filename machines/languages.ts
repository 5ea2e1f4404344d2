/**
 * Interface languages (spec §1, §9). A module of its own, without valibot, so the
 * landing page can know the languages without loading the validation rules;
 * machines/schema.ts re-exports it.
 */

/** `se` is the spec's code for Swedish; browsers say `sv`. */
export const LANGUAGES = ['da', 'no', 'se', 'en', 'es', 'pl', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];
export const PRIVATE_LANGUAGES = ['da', 'no', 'se', 'en'] as const satisfies readonly Language[];
export const DEFAULT_LANGUAGE: Language = 'da';

/** Each language's own name, as every language selector writes it (portal and sign-in pages). */
export const LANGUAGE_NAMES: Record<Language, string> = {
  da: 'Dansk',
  no: 'Norsk',
  se: 'Svenska',
  en: 'English',
  es: 'Español',
  pl: 'Polski',
  de: 'Deutsch',
};
