/**
 * The identity phone (spec §5): react-international-phone with a country selector
 * and flags served by the portal (country-flag-icons), never the library's CDN.
 * Validity comes from the input: the digits the country's format expects.
 */
import { useEffect, useRef } from 'react';
import { PhoneInput, defaultCountries, parseCountry, type CustomFlagImage } from 'react-international-phone';
import { INTERNATIONAL_PHONE, type Language } from '../../machines/schema.ts';
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

/** Spec §5: DK, GB, PL, SE, ES by language; NO and DE for the other two. */
export const DEFAULT_PHONE_COUNTRY: Record<Language, string> = { da: 'dk', no: 'no', se: 'se', en: 'gb', es: 'es', pl: 'pl', de: 'de' };

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
  value: string;
  defaultCountry: string;
  invalid: boolean;
  describedBy?: string;
  countryLabel: string;
  onChange: (phone: string, iso2: string, isValid: boolean) => void;
}) {
  const wrapper = useRef<HTMLDivElement>(null);
  useEffect(() => {
    wrapper.current
      ?.querySelector('.react-international-phone-country-selector-button')
      ?.setAttribute('aria-label', props.countryLabel);
  });
  const known = defaultCountries.some((c) => parseCountry(c).iso2 === props.defaultCountry);
  return (
    <div ref={wrapper}>
      <PhoneInput
        className={styles.phone}
        defaultCountry={known ? props.defaultCountry : 'dk'}
        value={props.value}
        flags={FLAGS}
        onChange={(phone, meta) => {
          const only = phone.replace(/\s/g, '') === `+${meta.country.dialCode}`;
          const value = only ? '' : phone.replace(/\s/g, '');
          props.onChange(value, meta.country.iso2, value ? isPhoneInputValid(value, meta.country.iso2) : false);
        }}
        inputProps={{ id: props.id, 'aria-invalid': props.invalid, 'aria-describedby': props.describedBy, autoComplete: 'tel' }}
      />
    </div>
  );
}
