/**
 * Spec §5: DK, GB, PL, SE, ES by language; NO and DE for the other two. Apart from
 * PhoneField.tsx, so a form can pick the default country without loading the phone
 * input (react-international-phone and its flags) before it is shown.
 */
import type { Language } from '../../machines/languages.ts';

export const DEFAULT_PHONE_COUNTRY: Record<Language, string> = {
  da: 'dk',
  no: 'no',
  se: 'se',
  en: 'gb',
  es: 'es',
  pl: 'pl',
  de: 'de',
};

/**
 * The country the phone field starts with (spec §5: a default country per language):
 * the company's phone code for the display language, else the language's own
 * (DEFAULT_PHONE_COUNTRY). Not the company's default language's: a Norwegian group
 * whose default is English would start every language at +44.
 */
export function companyPhoneCountry(
  laf: { phoneCodes?: Partial<Record<string, string>>; defaultLanguage?: string } | null | undefined,
  lang: Language,
): string {
  return (laf?.phoneCodes?.[lang] ?? DEFAULT_PHONE_COUNTRY[lang]).toLowerCase();
}

/**
 * A number written as people of each country write it, for hints and error messages
 * ("+45 12 34 56 78" for a Danish company, not "+45xxxxxxxx" everywhere). Fictional
 * numbers in each country's usual grouping.
 */
const PHONE_EXAMPLES: Record<string, string> = {
  dk: '+45 12 34 56 78',
  no: '+47 412 34 567',
  se: '+46 70 123 45 67',
  gb: '+44 7700 900123',
  es: '+34 612 34 56 78',
  pl: '+48 512 345 678',
  de: '+49 1512 3456789',
  fi: '+358 40 123 4567',
  nl: '+31 6 12345678',
  fr: '+33 6 12 34 56 78',
};

/** The example for the country the phone field starts with (see companyPhoneCountry), else the language's. */
export function phoneExample(country: string, lang: Language): string {
  return PHONE_EXAMPLES[country.toLowerCase()] ?? PHONE_EXAMPLES[DEFAULT_PHONE_COUNTRY[lang]]!;
}
