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
