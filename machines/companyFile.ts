/**
 * The company file's rules (docs/decisions/company-file.md): one valibot schema that
 * the importer (server/companies/format.ts), the admin API and the company editor in
 * the browser (src/handler/admin) all apply, so a form can never save what the file
 * would refuse, nor the other way round.
 *
 * Invariants checked here, so the server never has to:
 * - every offered language has a complete look-and-feel entry and a phone code, and no
 *   entry exists for a language that is not offered;
 * - host names are lower-case, without port, and unique within the file;
 * - ids of officers, subsidiaries and about pages are unique;
 * - colours are `#rrggbb` and readable: the primary colour carries white text and the
 *   secondary colour carries dark text, each at WCAG AA 4.5:1;
 * - asset paths are relative and stay inside the folder of the JSON file.
 *
 * Messages are plain English: they are read by the operator at the command line. The
 * browser form does not show them; it shows the `rule` of `companyIssues()` in the
 * reader's language.
 */
import * as v from 'valibot';
import { INTERNATIONAL_PHONE, VOICE_DISGUISE_POLICIES, VOICE_LIMITS } from './schema.ts';
import { LANGUAGES, type Language } from './languages.ts';

export { LANGUAGES, type Language };

export const ABOUT_PAGE_TYPES = ['PERSONAL_DATA', 'ANONYMITY', 'CASE_MANAGEMENT'] as const;
export type AboutPageType = (typeof ABOUT_PAGE_TYPES)[number];

export const BACKGROUND_IMAGE_COLORS = ['blue', 'green', 'grey', 'purple'] as const;
export type BackgroundImageColor = (typeof BACKGROUND_IMAGE_COLORS)[number];

export const CUSTOMER_RELATIONS = ['INTERNAL', 'EXTERNAL'] as const;
export type CustomerRelation = (typeof CUSTOMER_RELATIONS)[number];

/** Icon names the navigation may use; the SPA maps each to one of its own icons. */
export const NAV_ICONS = ['home', 'report', 'info', 'privacy', 'protection', 'process', 'faq'] as const;
export type NavIcon = (typeof NAV_ICONS)[number];

/** Image types accepted for logos; the server sends them as they are. */
export const LOGO_CONTENT_TYPES = ['image/svg+xml', 'image/png', 'image/jpeg', 'image/webp'] as const;

/** Colour rules (WCAG 2.1 AA, normal text). */
export const MIN_CONTRAST = 4.5;
export const LIGHT_TEXT = '#ffffff';
/** The darkest text the SPA puts on the secondary colour is at least this dark. */
export const DARK_TEXT = '#1a1a1a';
/** What a colour picker shows while the typed colour is not (yet) a #rrggbb value: an input of type color needs one. */
export const UNSET_COLOUR = '#000000';

export const LIMITS = {
  short: 200,
  paragraph: 5000,
  sections: 30,
  faqs: 60,
  navigation: 12,
  officers: 50,
  subsidiaries: 200,
  hosts: 20,
} as const;

// ---- single values ---------------------------------------------------------

const text = (max: number = LIMITS.short) =>
  v.pipe(v.string('must be a string'), v.trim(), v.nonEmpty('must not be empty'), v.maxLength(max, `must be at most ${max} characters`));

/** May be empty: the SPA then shows its own default (spec §2 /ask-questions). */
const optionalText = (max: number = LIMITS.short) =>
  v.pipe(v.string('must be a string'), v.trim(), v.maxLength(max, `must be at most ${max} characters`));

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const slug = v.pipe(v.string('must be a string'), v.regex(SLUG, 'must be a slug: lower-case letters, digits and single hyphens'), v.maxLength(63, 'must be at most 63 characters'));

/** A host name as a browser sends it, lower-case, without port. */
const HOST = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const host = v.pipe(v.string('must be a string'), v.regex(HOST, 'must be a lower-case host name without port, e.g. "whistle.example.com"'));

const language = v.picklist(LANGUAGES, `must be one of ${LANGUAGES.join(', ')}`);

const COLOR = /^#[0-9a-fA-F]{6}$/;
/** Whether a colour is written as the company file takes it (#rrggbb). */
export const isHexColour = (c: string): boolean => COLOR.test(c);
const color = v.pipe(v.string('must be a string'), v.regex(COLOR, 'must be a colour written #rrggbb'), v.toLowerCase());

const uuid = v.pipe(v.string('must be a string'), v.uuid('must be a UUID'), v.toLowerCase());

const e164 = v.pipe(v.string('must be a string'), v.trim(), v.regex(INTERNATIONAL_PHONE, 'must be an international phone number, e.g. +4512345678'));

/** The contact phone is shown to people: digits may be grouped with spaces. Empty means the SPA default. */
const CONTACT_PHONE = /^(?:\+[1-9](?: ?\d){7,14})?$/;
const contactPhone = v.pipe(v.string('must be a string'), v.trim(), v.regex(CONTACT_PHONE, 'must be an international phone number, e.g. +45 70 20 30 40, or empty'));

const ISO_COUNTRY = /^[A-Z]{2}$/;
const countryCode = v.pipe(v.string('must be a string'), v.regex(ISO_COUNTRY, 'must be an ISO 3166 country code in capitals, e.g. DK'));

/** One message function for every object: a missing key, an unknown key, or not an object at all. */
/** An absolute http(s) address without credentials: a plain top-level navigation the reporter chooses. */
const quickExitUrl = v.pipe(
  v.string('must be a string'),
  v.trim(),
  v.check((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password && s.length <= 500;
    } catch {
      return false;
    }
  }, 'must be an absolute https:// address (e.g. https://www.dr.dk/), without user name or password'),
);

const unknownKey = (issue: v.BaseIssue<unknown>) =>
  issue.expected === 'never'
    ? `unknown field "${String(issue.input)}"`
    : issue.input === undefined && issue.expected?.startsWith('"')
      ? 'is required'
      : 'must be an object';

/** Relative, forward slashes, no `..`, no scheme: the asset sits beside the JSON file. */
const assetPath = v.pipe(
  v.string('must be a string'),
  v.nonEmpty('must not be empty'),
  v.check(
    (p) => !p.startsWith('/') && !p.includes('\\') && !/^[a-z][a-z0-9+.-]*:/i.test(p) && !p.split('/').some((s) => s === '..' || s === '' || s === '.'),
    'must be a path relative to the JSON file, inside its folder',
  ),
);

const asset = v.strictObject(
  {
    file: assetPath,
    contentType: v.picklist(LOGO_CONTENT_TYPES, `must be one of ${LOGO_CONTENT_TYPES.join(', ')}`),
  },
  unknownKey,
);

/** In-app links only: a path of the SPA, never another site (no third-party requests). */
const link = v.pipe(v.string('must be a string'), v.regex(/^\/[a-z0-9\-/]*$/, 'must be a path of this site starting with "/"'));

// ---- look and feel ---------------------------------------------------------

const textSection = v.strictObject({ heading: text(), paragraph: text(LIMITS.paragraph) }, unknownKey);

const navigationChild = v.strictObject(
  {
    text: text(),
    link,
    icon: v.picklist(NAV_ICONS, `must be one of ${NAV_ICONS.join(', ')}`),
    pageType: v.optional(v.picklist(ABOUT_PAGE_TYPES, `must be one of ${ABOUT_PAGE_TYPES.join(', ')}`)),
    children: v.optional(v.array(v.never('a sub-page cannot have children of its own')), []),
  },
  unknownKey,
);

const navigationPage = v.strictObject(
  {
    text: text(),
    link,
    icon: v.picklist(NAV_ICONS, `must be one of ${NAV_ICONS.join(', ')}`),
    pageType: v.optional(v.picklist(ABOUT_PAGE_TYPES, `must be one of ${ABOUT_PAGE_TYPES.join(', ')}`)),
    children: v.optional(v.pipe(v.array(navigationChild), v.maxLength(LIMITS.navigation, 'too many sub-pages')), []),
  },
  unknownKey,
);

export const lookAndFeelEntrySchema = v.strictObject(
  {
    /** The language's own name, e.g. "Dansk", "Svenska"; shown in the language selector. */
    languageName: text(50),
    /** Optional per-language override of the company's contact person and details. */
    contactPerson: v.optional(optionalText()),
    contactDetails: v.optional(optionalText(LIMITS.paragraph)),
    siteFrontPage: v.strictObject(
      {
        heading: text(),
        subHeading: text(),
        paragraph: text(LIMITS.paragraph),
        showVerbalOption: v.boolean('must be true or false'),
        showBookingOption: v.boolean('must be true or false'),
        backgroundImageColor: v.picklist(BACKGROUND_IMAGE_COLORS, `must be one of ${BACKGROUND_IMAGE_COLORS.join(', ')}`),
      },
      unknownKey,
    ),
    siteHowToReportPage: v.strictObject(
      {
        heading: text(),
        textSections: v.pipe(v.array(textSection, 'must be a list'), v.minLength(1, 'must have at least one section'), v.maxLength(LIMITS.sections, 'too many sections')),
      },
      unknownKey,
    ),
    siteFAQPage: v.strictObject(
      {
        heading: text(),
        faqs: v.pipe(v.array(textSection, 'must be a list'), v.minLength(1, 'must have at least one question'), v.maxLength(LIMITS.faqs, 'too many questions')),
      },
      unknownKey,
    ),
    siteAboutPages: v.pipe(
      v.array(
        v.strictObject(
          {
            aboutPageType: v.picklist(ABOUT_PAGE_TYPES, `must be one of ${ABOUT_PAGE_TYPES.join(', ')}`),
            heading: text(),
            visible: v.boolean('must be true or false'),
            textSections: v.pipe(v.array(textSection, 'must be a list'), v.minLength(1, 'must have at least one section'), v.maxLength(LIMITS.sections, 'too many sections')),
          },
          unknownKey,
        ),
        'must be a list',
      ),
      v.length(ABOUT_PAGE_TYPES.length, `must have exactly ${ABOUT_PAGE_TYPES.length} pages: ${ABOUT_PAGE_TYPES.join(', ')}`),
    ),
    navigationPages: v.pipe(v.array(navigationPage, 'must be a list'), v.minLength(1, 'must have at least one page'), v.maxLength(LIMITS.navigation, 'too many pages')),
  },
  unknownKey,
);

// ---- the file --------------------------------------------------------------

export const protectionOfficerSchema = v.strictObject(
  {
    id: uuid,
    name: text(),
    jobTitle: text(),
    company: text(),
    phone: e164,
    customerRelation: v.picklist(CUSTOMER_RELATIONS, `must be one of ${CUSTOMER_RELATIONS.join(', ')}`),
    logo: v.optional(asset),
  },
  unknownKey,
);

export const subsidiarySchema = v.strictObject({ id: slug, name: text() }, unknownKey);

/**
 * How long cases are kept (issue 15, docs/decisions/mail-and-retention.md). Both
 * optional; the defaults follow Germany's HinSchG §11(5) (three years after the
 * case is closed) and give an oral report that never got its call 90 days.
 */
export const RETENTION_DEFAULTS = { closedCaseMonths: 36, unconfirmedCaseDays: 90 } as const;
export const RETENTION_LIMITS = { closedCaseMonths: { min: 6, max: 120 }, unconfirmedCaseDays: { min: 30, max: 365 } } as const;

const wholeNumber = (min: number, max: number, unit: string) =>
  v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(min, `must be at least ${min} ${unit}`), v.maxValue(max, `must be at most ${max} ${unit}`));

export const retentionSchema = v.strictObject(
  {
    /** Months after a case was closed until it is deleted. */
    closedCaseMonths: v.optional(wholeNumber(RETENTION_LIMITS.closedCaseMonths.min, RETENTION_LIMITS.closedCaseMonths.max, 'months')),
    /** Days after a phone or meeting report was made until it is deleted when the reporter never made contact. */
    unconfirmedCaseDays: v.optional(wholeNumber(RETENTION_LIMITS.unconfirmedCaseDays.min, RETENTION_LIMITS.unconfirmedCaseDays.max, 'days')),
  },
  unknownKey,
);

/**
 * Voice messages (issue 40, docs/decisions/voice-messages.md): off unless the company
 * turns them on; at most `maxMinutes` a recording; `disguise` says whether the voice
 * is always disguised on the device, the reporter chooses (disguised by default), or never.
 */
export const voiceSchema = v.strictObject(
  {
    enabled: v.optional(v.boolean('must be true or false'), false),
    maxMinutes: v.optional(wholeNumber(VOICE_LIMITS.minMinutes, VOICE_LIMITS.maxMinutes, 'minutes'), VOICE_LIMITS.defaultMinutes),
    disguise: v.optional(v.picklist(VOICE_DISGUISE_POLICIES, `must be one of ${VOICE_DISGUISE_POLICIES.join(', ')}`), 'choice'),
  },
  unknownKey,
);

export const siteColorsSchema = v.strictObject(
  { primaryColorCode: color, secondaryColorCode: color, infoColorCode: color },
  unknownKey,
);

export const companyFileSchema = v.strictObject(
  {
    /** Optional pointer to a JSON schema, for editors; ignored. */
    $schema: v.optional(v.string()),
    id: slug,
    name: text(),
    hosts: v.pipe(v.array(host, 'must be a list'), v.minLength(1, 'must have at least one host'), v.maxLength(LIMITS.hosts, 'too many hosts')),
    defaultLanguage: language,
    languages: v.pipe(v.array(language, 'must be a list'), v.minLength(1, 'must offer at least one language')),
    logo: asset,
    siteColors: siteColorsSchema,
    contactPhone,
    contactPerson: optionalText(),
    contactDetails: optionalText(LIMITS.paragraph),
    phoneCodes: v.record(language, v.optional(countryCode), 'must be an object of language code to country code'),
    protectionOfficers: v.pipe(v.array(protectionOfficerSchema, 'must be a list'), v.minLength(1, 'must have at least one protection officer'), v.maxLength(LIMITS.officers, 'too many officers')),
    subsidiaries: v.pipe(v.array(subsidiarySchema, 'must be a list'), v.maxLength(LIMITS.subsidiaries, 'too many subsidiaries')),
    lookAndFeel: v.record(language, v.optional(lookAndFeelEntrySchema), 'must be an object of language code to texts'),
    retention: v.optional(retentionSchema),
    /**
     * Whether search engines may index the public pages (robots.txt). Off unless
     * the company asks: a whistleblowing portal need not be found by search.
     */
    allowIndexing: v.optional(v.boolean('must be true or false'), false),
    /** Where "Leave quickly" goes (docs/decisions/quick-exit.md); absent: the portal's own blank /leave page. */
    quickExitUrl: v.optional(quickExitUrl),
    voice: v.optional(voiceSchema),
  },
  unknownKey,
);

export type CompanyFile = v.InferOutput<typeof companyFileSchema>;
export type CompanyFileInput = v.InferInput<typeof companyFileSchema>;
export type LookAndFeelEntry = v.InferOutput<typeof lookAndFeelEntrySchema>;
export type ProtectionOfficer = v.InferOutput<typeof protectionOfficerSchema>;
export type Subsidiary = v.InferOutput<typeof subsidiarySchema>;
export type SiteColors = v.InferOutput<typeof siteColorsSchema>;
export type CompanyAsset = CompanyFile['logo'];
export type TextSection = v.InferOutput<typeof textSection>;
export type NavigationPage = v.InferOutput<typeof navigationPage>;
export type SiteAboutPage = LookAndFeelEntry['siteAboutPages'][number];

// ---- colour contrast (WCAG 2.1) ---------------------------------------------

function channel(c: number): number {
  const s = c / 255;
  return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
}

export function relativeLuminance(hex: string): number {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (!m) throw new Error(`not a #rrggbb colour: ${hex}`);
  const [r, g, b] = [m[1]!, m[2]!, m[3]!].map((x) => channel(parseInt(x, 16))) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

// ---- cross-field rules -----------------------------------------------------

/**
 * What the form tells the reader about a field, by kind, in the reader's language
 * (src/i18n/admin-company `rule.*`); `message` stays the operator's English.
 */
export const ISSUE_RULES = ['required', 'tooLong', 'tooShort', 'tooMany', 'format', 'duplicate', 'contrast', 'noTexts', 'noPhoneCode', 'notOffered', 'invalid'] as const;
export type IssueRule = (typeof ISSUE_RULES)[number];

export type Problem = { field: string; message: string; rule?: IssueRule; ratio?: number };

function duplicate<T>(items: readonly T[], key: (t: T) => string): number {
  const seen = new Set<string>();
  for (const [i, item] of items.entries()) {
    const k = key(item);
    if (seen.has(k)) return i;
    seen.add(k);
  }
  return -1;
}

/**
 * The colour rule alone, for the editor's live check as the reader picks a colour:
 * the same function the file's check calls, so the form and the server agree.
 */
export function colourProblem(colors: { primaryColorCode: string; secondaryColorCode: string }): Problem | null {
  if (!COLOR.test(colors.primaryColorCode) || !COLOR.test(colors.secondaryColorCode)) return null;
  const primaryOnWhite = contrastRatio(colors.primaryColorCode, LIGHT_TEXT);
  if (primaryOnWhite < MIN_CONTRAST) {
    return {
      field: 'siteColors.primaryColorCode',
      message: `white text on ${colors.primaryColorCode} has contrast ${primaryOnWhite.toFixed(2)}:1; at least ${MIN_CONTRAST}:1 is needed (choose a darker colour)`,
      rule: 'contrast',
      ratio: Math.floor(primaryOnWhite * 100) / 100,
    };
  }
  const darkOnSecondary = contrastRatio(colors.secondaryColorCode, DARK_TEXT);
  if (darkOnSecondary < MIN_CONTRAST) {
    return {
      field: 'siteColors.secondaryColorCode',
      message: `dark text on ${colors.secondaryColorCode} has contrast ${darkOnSecondary.toFixed(2)}:1; at least ${MIN_CONTRAST}:1 is needed (choose a lighter colour)`,
      rule: 'contrast',
      ratio: Math.floor(darkOnSecondary * 100) / 100,
    };
  }
  return null;
}

/** Rules that span fields; the first problem found, or null. */
export function checkCompany(c: CompanyFile): Problem | null {
  let i = duplicate(c.hosts, (h) => h);
  if (i >= 0) return { field: `hosts.${i}`, message: `host "${c.hosts[i]}" is listed twice`, rule: 'duplicate' };

  i = duplicate(c.languages, (l) => l);
  if (i >= 0) return { field: `languages.${i}`, message: `language "${c.languages[i]}" is listed twice`, rule: 'duplicate' };
  if (!c.languages.includes(c.defaultLanguage)) {
    return { field: 'defaultLanguage', message: `"${c.defaultLanguage}" is not one of the offered languages`, rule: 'notOffered' };
  }

  for (const lang of c.languages) {
    if (!c.lookAndFeel[lang]) return { field: `lookAndFeel.${lang}`, message: `offered language "${lang}" has no texts`, rule: 'noTexts' };
    if (!c.phoneCodes[lang]) return { field: `phoneCodes.${lang}`, message: `offered language "${lang}" has no phone country code`, rule: 'noPhoneCode' };
  }
  for (const lang of Object.keys(c.lookAndFeel) as Language[]) {
    if (!c.languages.includes(lang)) return { field: `lookAndFeel.${lang}`, message: `"${lang}" has texts but is not in languages`, rule: 'notOffered' };
  }

  const colours = colourProblem(c.siteColors);
  if (colours) return colours;

  i = duplicate(c.protectionOfficers, (o) => o.id);
  if (i >= 0) return { field: `protectionOfficers.${i}.id`, message: `officer id "${c.protectionOfficers[i]!.id}" is used twice`, rule: 'duplicate' };
  i = duplicate(c.subsidiaries, (s) => s.id);
  if (i >= 0) return { field: `subsidiaries.${i}.id`, message: `subsidiary id "${c.subsidiaries[i]!.id}" is used twice`, rule: 'duplicate' };

  for (const lang of c.languages) {
    const entry = c.lookAndFeel[lang]!;
    i = duplicate(entry.siteAboutPages, (p) => p.aboutPageType);
    if (i >= 0) {
      return {
        field: `lookAndFeel.${lang}.siteAboutPages.${i}.aboutPageType`,
        message: `about page "${entry.siteAboutPages[i]!.aboutPageType}" appears twice`,
        rule: 'duplicate',
      };
    }
  }
  return null;
}


// ---- for the form: every problem, by field ---------------------------------

function ruleOf(issue: v.BaseIssue<unknown>): IssueRule {
  switch (issue.type) {
    case 'non_empty':
      return 'required';
    case 'max_length':
    case 'max_value':
      return Array.isArray(issue.input) ? 'tooMany' : 'tooLong';
    case 'min_length':
    case 'min_value':
    case 'length':
      return 'tooShort';
    case 'regex':
    case 'uuid':
    case 'check':
    case 'picklist':
    case 'integer':
      return 'format';
    case 'strict_object':
    case 'object':
      return issue.input === undefined ? 'required' : 'invalid';
    default:
      return 'invalid';
  }
}

export interface CompanyIssue {
  /** Dotted path of the field, e.g. `lookAndFeel.da.siteFrontPage.heading`. */
  field: string;
  rule: IssueRule;
  /** The operator's English text (the CLI and the API's error body). */
  message: string;
  /** For `tooLong`/`tooShort`/`tooMany`: the limit; for `contrast`: the ratio reached. */
  limit?: number;
  ratio?: number;
}

/**
 * Every problem of a draft at once, as the form marks them beside their fields: the
 * schema's issues (not just the first), and, once the shape is right, the first
 * cross-field problem. Empty means the server will take it.
 */
export function companyIssues(json: unknown): CompanyIssue[] {
  const result = v.safeParse(companyFileSchema, json);
  if (!result.success) {
    return result.issues.map((issue) => ({
      field: v.getDotPath(issue) ?? '',
      rule: ruleOf(issue),
      message: issue.message,
      limit: typeof issue.requirement === 'number' ? issue.requirement : undefined,
    }));
  }
  const problem = checkCompany(result.output);
  return problem ? [{ field: problem.field, rule: problem.rule ?? 'invalid', message: problem.message, ratio: problem.ratio }] : [];
}
