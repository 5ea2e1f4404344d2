/**
 * The company import file (`npm run company -- import FILE`, and the demo companies in
 * server/seed/). One JSON file describes one company: its host names, languages,
 * colours, logo, contact fields, protection officers, subsidiaries and the public
 * texts (spec §3 "Site look and feel") for every language it offers.
 *
 * The rules themselves are machines/companyFile.ts, shared with the company editor in
 * the browser; this module adds what only the server does: the glossary warnings and
 * the public look-and-feel answer.
 */
import * as v from 'valibot';
import { companyFileSchema, checkCompany, type CompanyFile, type LookAndFeelEntry, type NavigationPage, type SiteColors } from '../../machines/companyFile.ts';
import type { Language } from '../../machines/languages.ts';
import { VOICE_LIMITS, type VoiceSettings } from '../../machines/schema.ts';
import { vocabularyWarnings, type VocabularyWarning } from './vocabulary.ts';

// The rules live in machines/companyFile.ts (the browser's company editor applies the same).
export * from '../../machines/companyFile.ts';

/**
 * A valid file may still say something the portal would not: a company text using a
 * synonym the glossary forbids (server/companies/vocabulary.ts). Warnings name the
 * text by its dotted path and the word; they never refuse the file.
 */
export type ParseResult = { ok: true; company: CompanyFile; warnings: VocabularyWarning[] } | { ok: false; field: string; message: string };

/** Validates a parsed JSON value as a company file. The error names the field by its dotted path. */
export function parseCompanyFile(json: unknown): ParseResult {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { ok: false, field: '(file)', message: 'must be a JSON object describing one company' };
  }
  const result = v.safeParse(companyFileSchema, json, { abortEarly: true });
  if (!result.success) {
    const issue = result.issues[0];
    return { ok: false, field: v.getDotPath(issue) ?? '(file)', message: issue.message };
  }
  const problem = checkCompany(result.output);
  return problem ? { ok: false, ...problem } : { ok: true, company: result.output, warnings: vocabularyWarnings(result.output) };
}

// ---- the wire: GET /api/public/site-look-and-feel/language/{code} ----------

export interface LookAndFeelResponse {
  languageCode: Language;
  languageName: string;
  logoFileName: string;
  supportLanguages: { languageCode: Language; languageName: string }[];
  siteColors: SiteColors;
  contactPhone: string;
  contactPerson: string;
  contactDetails: string;
  siteHowToReportPage: LookAndFeelEntry['siteHowToReportPage'];
  siteFrontPage: LookAndFeelEntry['siteFrontPage'];
  siteFAQPage: LookAndFeelEntry['siteFAQPage'];
  siteAboutPages: LookAndFeelEntry['siteAboutPages'];
  navigationPages: NavigationPage[];
  phoneCodes: Partial<Record<Language, string>>;
  defaultLanguage: Language;
  availableLanguages: Language[];
  voice: VoiceSettings;
}

/** A company's voice settings with the defaults filled in (a company stored before issue 40 has none: off). */
export function voiceSettings(company: Pick<CompanyFile, 'voice'>): VoiceSettings {
  const v = company.voice;
  return { enabled: v?.enabled === true, maxMinutes: v?.maxMinutes ?? VOICE_LIMITS.defaultMinutes, disguise: v?.disguise ?? 'choice' };
}

/**
 * The answer for one language, per docs/architecture.md "Wire shapes".
 * Null when the company does not offer `languageCode` (the server answers 404),
 * unless `orDefault` asks for the company's default language instead.
 */
export function lookAndFeelResponse(
  company: CompanyFile,
  languageCode: string,
  logoFileName: string,
  opts: { orDefault?: boolean } = {},
): LookAndFeelResponse | null {
  // `orDefault`: a first visit asks in the browser's language; a company that does
  // not offer it answers in its own default language (spec §1 "the site default").
  const code = (opts.orDefault && !company.languages.includes(languageCode as Language) ? company.defaultLanguage : languageCode) as Language;
  if (!company.languages.includes(code)) return null;
  const entry = company.lookAndFeel[code];
  if (!entry) return null;
  const phoneCodes: Partial<Record<Language, string>> = {};
  for (const lang of company.languages) {
    const cc = company.phoneCodes[lang];
    if (cc) phoneCodes[lang] = cc;
  }
  return {
    languageCode: code,
    languageName: entry.languageName,
    logoFileName,
    supportLanguages: company.languages.map((l) => ({ languageCode: l, languageName: company.lookAndFeel[l]?.languageName ?? l })),
    siteColors: { ...company.siteColors },
    contactPhone: company.contactPhone,
    contactPerson: entry.contactPerson || company.contactPerson,
    contactDetails: entry.contactDetails || company.contactDetails,
    siteHowToReportPage: entry.siteHowToReportPage,
    siteFrontPage: entry.siteFrontPage,
    siteFAQPage: entry.siteFAQPage,
    siteAboutPages: entry.siteAboutPages,
    navigationPages: entry.navigationPages,
    phoneCodes,
    defaultLanguage: company.defaultLanguage,
    availableLanguages: [...company.languages],
    voice: voiceSettings(company),
  };
}
