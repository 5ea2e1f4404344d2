/**
 * The public side of the mobile journey (issue 17 §2): phone examples in the
 * company's format, grouped numbers accepted as the hint writes them, and the
 * words the landing and the meeting form use for calling.
 */
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { companyPhoneCountry, phoneExample } from '../../src/components/phoneDefaults.ts';
import { INTERNATIONAL_PHONE, phoneOrEmailSchema, reportedPersonSchema } from '../../machines/schema.ts';
import { LANGUAGES, type Language } from '../../machines/languages.ts';

const catalogue = async (area: string, lang: Language) =>
  (await import(`../../src/i18n/${area}/${lang}.json`, { with: { type: 'json' } })).default as Record<string, string>;

describe('phone examples follow the company and the language', () => {
  const danish = { defaultLanguage: 'da', phoneCodes: { da: 'DK', en: 'GB', pl: 'PL' } };
  it('spec §5: the example follows the display language\'s country (the company\'s code for it, else the language\'s)', () => {
    expect(phoneExample(companyPhoneCountry(danish, 'da'), 'da')).toBe('+45 12 34 56 78');
    expect(phoneExample(companyPhoneCountry(danish, 'en'), 'en')).toBe('+44 7700 900123');
    expect(phoneExample(companyPhoneCountry(danish, 'pl'), 'pl')).toBe('+48 512 345 678');
    // The company names no country for Norwegian: the language's own.
    expect(phoneExample(companyPhoneCountry(danish, 'no'), 'no')).toBe('+47 412 34 567');
  });
  it('without a company country: the display language\'s own format', () => {
    expect(phoneExample(companyPhoneCountry(null, 'pl'), 'pl')).toBe('+48 512 345 678');
    expect(phoneExample(companyPhoneCountry(null, 'se'), 'se')).toBe('+46 70 123 45 67');
    expect(phoneExample('zz', 'de')).toBe('+49 1512 3456789');
  });
  it('every example is a valid number once its spaces are gone, and valid as typed for a reported person', () => {
    for (const lang of LANGUAGES) {
      const example = phoneExample(companyPhoneCountry(null, lang), lang);
      expect(example).toMatch(/^\+\d+( \d+)+$/);
      expect(INTERNATIONAL_PHONE.test(example.replace(/ /g, ''))).toBe(true);
      expect(v.is(phoneOrEmailSchema, example)).toBe(true);
      expect(v.is(reportedPersonSchema, { name: 'A', jobTitle: 'B', phoneOrEmail: example })).toBe(true);
    }
  });
  it('groups do not loosen the Danish rule: still +45 and exactly 8 digits', () => {
    expect(v.is(phoneOrEmailSchema, '+45 12 34 56 7')).toBe(false);
    expect(v.is(phoneOrEmailSchema, '+45 12 34 56 789')).toBe(false);
    expect(v.is(phoneOrEmailSchema, '+45 1234 5678')).toBe(true);
  });
  it('the catalogues show the example, never "+45xxxxxxxx"', async () => {
    for (const lang of LANGUAGES) {
      const common = await catalogue('common', lang);
      const forms = await catalogue('forms', lang);
      expect(common['validation.phoneOrEmail'], lang).toContain('{example}');
      expect(forms['forms.related.phoneOrEmailHint'], lang).toContain('{example}');
    }
  });
});

// The word for the telephone in each language, as the catalogues use it.
const PHONE_WORD: Record<Language, RegExp> = {
  da: /telefon/i,
  no: /telefon/i,
  se: /telefon/i,
  en: /phone/i,
  es: /teléfono/i,
  pl: /telefon/i,
  de: /telefon/i,
};

const CALL_WORD: Record<Language, RegExp> = {
  da: /\bring\b/i,
  no: /\bring\b/i,
  se: /\bring\b/i,
  en: /\bcall\b/i,
  es: /\bllame\b/i,
  pl: /zadzwoń/i,
  de: /\brufen\b/i,
};

describe('calling is said plainly', () => {
  it('"Book a meeting" says on the landing card and in the form that the meeting is arranged by phone', async () => {
    for (const lang of LANGUAGES) {
      const common = await catalogue('common', lang);
      const forms = await catalogue('forms', lang);
      expect(common['landing.cards.meeting.text'], lang).toMatch(PHONE_WORD[lang]);
      // The form: send, then call to agree on a time.
      expect(forms['forms.meeting.intro'], lang).toMatch(CALL_WORD[lang]);
      expect(forms['forms.success.meeting.text'], lang).toMatch(CALL_WORD[lang]);
    }
  });
  it('the oral card does not say "Call us" while it leads to a form', async () => {
    for (const lang of LANGUAGES) {
      const common = await catalogue('common', lang);
      expect(common['landing.cards.oral.action'], lang).not.toBe(common['ask.phone.title']);
    }
  });
});
