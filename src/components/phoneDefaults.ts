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
