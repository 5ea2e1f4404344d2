/**
 * The identity's phone: react-international-phone with flags served by the portal
 * itself (country-flag-icons, STACK.md), never from the library's CDN.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { PhoneInput, buildCountryData, defaultCountries, parseCountry, type CustomFlagImage } from 'react-international-phone';
import type { Language } from '../../machines/schema.ts';
import { toBcp47 } from '../i18n/index.ts';
import * as styles from '../components/PhoneField.css.ts';

const flagUrls = import.meta.glob<string>('../../node_modules/country-flag-icons/3x2/*.svg', {
  query: '?url',
  import: 'default',
  eager: true,
});

const FLAGS: CustomFlagImage[] = Object.entries(flagUrls).map(([path, src]) => ({
  iso2: path.replace(/^.*\//, '').replace(/\.svg$/, '').toLowerCase() as CustomFlagImage['iso2'],
  src,
}));

/** Spec §5: default phone country per language (and NO, DE for the other two). */
export const DEFAULT_PHONE_COUNTRY: Record<Language, string> = {
  da: 'dk',
  no: 'no',
  se: 'se',
  en: 'gb',
  es: 'es',
  pl: 'pl',
  de: 'de',
};

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

/** The phone as the draft keeps it: empty when only the dial code is there. */
export function phoneValue(phone: string, dialCode: string): string {
  return phone.replace(/\s/g, '') === `+${dialCode}` ? '' : phone;
}

export function PhoneField(props: {
  id: string;
  value: string;
  defaultCountry: string;
  invalid: boolean;
  describedBy?: string;
  countryLabel: string;
  language: Language;
  onChange: (phone: string, countryCode: string) => void;
}) {
  const wrapper = useRef<HTMLDivElement>(null);
  // The library's country button carries a fixed English label; give it ours.
  useEffect(() => {
    wrapper.current
      ?.querySelector('.react-international-phone-country-selector-button')
      ?.setAttribute('aria-label', props.countryLabel);
  });
  // The input owns its text (formatting, dial code); the draft gets the E.164 number.
  // Feeding the draft back would reset the dial code whenever the number is empty.
  const [initial] = useState(props.value);
  const countries = useMemo(() => localizedCountries(props.language), [props.language]);
  const known = defaultCountries.some((c) => parseCountry(c).iso2 === props.defaultCountry);
  return (
    <div ref={wrapper}>
      <PhoneInput
        className={styles.phone}
        defaultCountry={known ? props.defaultCountry : 'dk'}
        value={initial}
        flags={FLAGS}
        countries={countries}
        onChange={(phone, meta) => props.onChange(phoneValue(phone, meta.country.dialCode), meta.country.iso2)}
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
