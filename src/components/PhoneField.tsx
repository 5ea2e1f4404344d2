/**
 * The identity's phone (spec §5), in the report forms and on the private info page:
 * react-international-phone with a country selector and flags served by the portal
 * itself (country-flag-icons, STACK.md), never from the library's CDN.
 * Validity comes from the input: the digits the country's format expects.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { PhoneInput, buildCountryData, defaultCountries, parseCountry, type CustomFlagImage } from 'react-international-phone';
import { INTERNATIONAL_PHONE, type Language } from '../../machines/schema.ts';
import { toBcp47 } from '../i18n/index.ts';
import * as styles from './PhoneField.css.ts';

const flagUrls = import.meta.glob<string>('../../node_modules/country-flag-icons/3x2/*.svg', {
  query: '?url',
  import: 'default',
  eager: true,
});

const FLAGS: CustomFlagImage[] = Object.entries(flagUrls).map(([path, src]) => ({
  iso2: path.replace(/^.*\//, '').replace(/\.svg$/, '').toLowerCase() as CustomFlagImage['iso2'],
  src,
}));

export { DEFAULT_PHONE_COUNTRY, companyPhoneCountry } from './phoneDefaults.ts';

/** The library's countries with their names in the display language (Intl), sorted by that name. */
export function localizedCountries(language: Language) {
  let names: Intl.DisplayNames | undefined;
  try {
    names = new Intl.DisplayNames([toBcp47(language)], { type: 'region' });
  } catch {
    names = undefined;
  }
  const collator = new Intl.Collator(toBcp47(language));
  return defaultCountries
    .map((c) => {
      const parsed = parseCountry(c);
      return { ...parsed, name: names?.of(parsed.iso2.toUpperCase()) ?? parsed.name };
    })
    .sort((a, b) => collator.compare(a.name, b.name))
    .map(buildCountryData);
}

/** The phone as the draft keeps it: empty when only the dial code is there, no spaces. */
export function phoneValue(phone: string, dialCode: string): string {
  const compact = phone.replace(/\s/g, '');
  return compact === `+${dialCode}` ? '' : compact;
}

/** Valid when the national part has as many digits as the country's format mask. */
export function isPhoneInputValid(phone: string, iso2: string): boolean {
  const digits = phone.replace(/\D/g, '');
  if (!INTERNATIONAL_PHONE.test(`+${digits}`)) return false;
  const country = defaultCountries.map(parseCountry).find((c) => c.iso2 === iso2);
  if (!country) return true;
  const national = digits.slice(country.dialCode.length);
  const mask = typeof country.format === 'string' ? country.format : undefined;
  const expected = mask ? (mask.match(/\./g) ?? []).length : 0;
  return expected ? national.length === expected : national.length >= 4;
}

export function PhoneField(props: {
  id: string;
  /** The phone when the field mounts; from then on the input owns its text. */
  value: string;
  defaultCountry: string;
  invalid: boolean;
  describedBy?: string;
  countryLabel: string;
  /** Country names in this language; without it, the library's English names. */
  language?: Language;
  onChange: (phone: string, iso2: string, isValid: boolean) => void;
  /** The number field was left. */
  onBlur?: () => void;
}) {
  const wrapper = useRef<HTMLDivElement>(null);
  // The library's country button carries a fixed English label; give it ours.
  useEffect(() => {
    wrapper.current
      ?.querySelector('.react-international-phone-country-selector-button')
      ?.setAttribute('aria-label', props.countryLabel);
  });
  // The input owns its text (formatting, dial code); the caller gets the E.164 number.
  // Feeding the value back would reset the dial code whenever the number is empty.
  const [initial] = useState(props.value);
  const countries = useMemo(() => (props.language ? localizedCountries(props.language) : defaultCountries), [props.language]);
  const known = defaultCountries.some((c) => parseCountry(c).iso2 === props.defaultCountry);
  return (
    <div ref={wrapper}>
      <PhoneInput
        className={styles.phone}
        defaultCountry={known ? props.defaultCountry : 'dk'}
        value={initial}
        flags={FLAGS}
        countries={countries}
        // The dial code cannot be deleted: digits typed into an emptied field are read in
        // the selected country (20304050 → +45 20 30 40 50, not Egypt's +20). Another
        // country is chosen with the selector, or by pasting a number with its + code (a
        // typed "+" cannot replace the code).
        forceDialCode
        onBlur={props.onBlur}
        onChange={(phone, meta) => {
          const value = phoneValue(phone, meta.country.dialCode);
          props.onChange(value, meta.country.iso2, value ? isPhoneInputValid(value, meta.country.iso2) : false);
        }}
        inputProps={{
          id: props.id,
          'aria-invalid': props.invalid,
          'aria-describedby': props.describedBy,
          autoComplete: 'tel',
        }}
      />
    </div>
  );
}
