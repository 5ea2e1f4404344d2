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
 * The country the phone field starts with: the company's own (the phone code of its
 * default language: +45 for a Danish company), else the display language's.
 */
export function companyPhoneCountry(
  laf: { phoneCodes?: Partial<Record<string, string>>; defaultLanguage?: string } | null | undefined,
  lang: Language,
): string {
  const own = laf?.defaultLanguage ? laf.phoneCodes?.[laf.defaultLanguage] : undefined;
  return (own ?? laf?.phoneCodes?.[lang] ?? DEFAULT_PHONE_COUNTRY[lang]).toLowerCase();
}
