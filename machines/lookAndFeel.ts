/**
 * Look and feel: the company's branding, texts and settings for the display
 * language, plus the company info (officers, subsidiaries) the forms need.
 *
 * Invariants (spec §7, §8):
 * - A look-and-feel failure without an HTTP status (server unreachable) ends in
 *   `failed`; the view sends the reporter to /something-went-wrong.
 * - Any other look-and-feel failure uses the built-in defaults of spec §3: Danish,
 *   both oral and booking options on, colours 172a55 / ecf1f5 / ffffff.
 * - Company info failing with 404, a 5xx or no status ends in `failed`; any other
 *   failure (e.g. 400) leaves the company without officers or subsidiaries.
 * - Only a 200 sets the display language; changing language reloads the look and
 *   feel (company info is loaded once).
 * - The fetches and the storing of the chosen language are actors/actions given by
 *   name and supplied with `.provide()`: this file knows no `fetch` or storage.
 */
import { assign, fromPromise, setup } from 'xstate';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from './languages.ts';
import type { VoiceSettings } from './schema.ts';

export interface TextSection {
  heading: string;
  paragraph: string;
}
export type AboutPageType = 'PERSONAL_DATA' | 'ANONYMITY' | 'CASE_MANAGEMENT';
export interface NavigationPage {
  text: string;
  link: string;
  icon?: string | null;
  pageType?: string | null;
  children?: NavigationPage[];
}
export interface LookAndFeel {
  languageCode: string;
  languageName: string;
  logoFileName: string | null;
  supportLanguages: Array<{ languageCode: string; languageName: string }>;
  siteColors: { primaryColorCode: string; secondaryColorCode: string; infoColorCode: string };
  contactPhone: string | null;
  contactPerson: string | null;
  contactDetails: string | null;
  siteHowToReportPage: { heading: string; textSections: TextSection[] };
  siteFrontPage: {
    heading: string;
    subHeading: string;
    paragraph: string;
    showVerbalOption: boolean;
    showBookingOption: boolean;
    backgroundImageColor: string;
  };
  siteFAQPage: { heading: string; faqs: TextSection[] };
  siteAboutPages: Array<{ aboutPageType: AboutPageType; heading: string; visible: boolean; textSections: TextSection[] }>;
  navigationPages: NavigationPage[];
  phoneCodes: Record<string, string>;
  defaultLanguage: string;
  availableLanguages: string[];
  /** Voice messages (issue 40); absent (an older server, the defaults) means off. */
  voice?: VoiceSettings;
}

export interface ProtectionOfficer {
  id: string;
  name: string;
  jobTitle: string;
  company: string;
  phone: string;
  customerRelation: string;
  logoUrl: string | null;
}
export interface CompanyInfo {
  protectionOfficers: ProtectionOfficer[];
  subsidiaries: Array<{ id: string; name: string }>;
}

/** What a failed fetch reports: the HTTP status, or 'no status' when none came back. */
export interface LoadFailure {
  status: number | 'no status';
}

/**
 * Spec §3 defaults. Texts are empty: the views show the built-in catalogue texts
 * (e.g. the front-page heading "whistleblower scheme") when a text is empty.
 */
export const DEFAULT_LOOK_AND_FEEL: LookAndFeel = {
  languageCode: DEFAULT_LANGUAGE,
  languageName: 'Dansk',
  logoFileName: null,
  supportLanguages: [],
  siteColors: { primaryColorCode: '#172a55', secondaryColorCode: '#ecf1f5', infoColorCode: '#ffffff' },
  contactPhone: null,
  contactPerson: null,
  contactDetails: null,
  siteHowToReportPage: { heading: '', textSections: [] },
  siteFrontPage: {
    heading: '',
    subHeading: '',
    paragraph: '',
    showVerbalOption: true,
    showBookingOption: true,
    backgroundImageColor: 'blue',
  },
  siteFAQPage: { heading: '', faqs: [] },
  siteAboutPages: [],
  navigationPages: [],
  phoneCodes: {},
  defaultLanguage: DEFAULT_LANGUAGE,
  availableLanguages: [...LANGUAGES],
};

const EMPTY_COMPANY_INFO: CompanyInfo = { protectionOfficers: [], subsidiaries: [] };

export interface LookAndFeelContext {
  /** The language asked for (stored choice, browser or default). */
  requested: Language;
  /**
   * True once the reporter picked a language on this page. Until then the request
   * asks for the company's default language when the company does not offer the
   * one derived from the browser (spec §1 "otherwise the site default").
   */
  chosen: boolean;
  /** The display language: set only by a 200 or by falling back to the defaults. */
  language: Language;
  lookAndFeel: LookAndFeel | null;
  usingDefaults: boolean;
  companyInfo: CompanyInfo | null;
  failure: LoadFailure | null;
}

export type LookAndFeelEvent = { type: 'language.change'; language: Language } | { type: 'retry' };

function failureOf(error: unknown): LoadFailure {
  const status = (error as { status?: unknown } | null)?.status;
  return { status: typeof status === 'number' ? status : 'no status' };
}

export const lookAndFeelMachine = setup({
  types: {
    context: {} as LookAndFeelContext,
    events: {} as LookAndFeelEvent,
    input: {} as { language: Language },
    tags: {} as 'loading' | 'themed' | 'failed',
  },
  actors: {
    fetchLookAndFeel: fromPromise<LookAndFeel, { language: Language; orDefault: boolean }>(async () => {
      throw new Error('fetchLookAndFeel must be provided');
    }),
    fetchCompanyInfo: fromPromise<CompanyInfo, void>(async () => {
      throw new Error('fetchCompanyInfo must be provided');
    }),
  },
  actions: {
    storeLanguage: (_, _params: { language: Language }) => {},
    assignRequested: assign({
      requested: (_, params: { language: Language }) => params.language,
      chosen: true,
    }),
    assignLookAndFeel: assign(({ context }, params: { lookAndFeel: LookAndFeel }) => {
      // A 200 sets the display language: the one answered, which is the company's
      // default when it does not offer the one asked for.
      const language = (LANGUAGES as readonly string[]).includes(params.lookAndFeel.languageCode)
        ? (params.lookAndFeel.languageCode as Language)
        : context.requested;
      return { lookAndFeel: params.lookAndFeel, usingDefaults: false, failure: null, language, requested: language };
    }),
    assignDefaults: assign((_, params: { error: unknown }) => ({
      lookAndFeel: DEFAULT_LOOK_AND_FEEL,
      usingDefaults: true,
      language: DEFAULT_LANGUAGE,
      failure: failureOf(params.error),
    })),
    assignCompanyInfo: assign({ companyInfo: (_, params: { companyInfo: CompanyInfo }) => params.companyInfo }),
    assignEmptyCompanyInfo: assign({ companyInfo: EMPTY_COMPANY_INFO }),
    assignFailure: assign({ failure: (_, params: { error: unknown }) => failureOf(params.error) }),
  },
  guards: {
    isNoStatus: (_, params: { error: unknown }) => failureOf(params.error).status === 'no status',
    isCompanyInfoFatal: (_, params: { error: unknown }) => {
      const { status } = failureOf(params.error);
      return status === 'no status' || status === 404 || status >= 500;
    },
    hasCompanyInfo: ({ context }) => context.companyInfo !== null,
  },
}).createMachine({
  id: 'lookAndFeel',
  context: ({ input }) => ({
    requested: input.language,
    chosen: false,
    language: input.language,
    lookAndFeel: null,
    usingDefaults: false,
    companyInfo: null,
    failure: null,
  }),
  initial: 'loadingLookAndFeel',
  on: {
    'language.change': {
      target: '.loadingLookAndFeel',
      reenter: true,
      actions: [
        { type: 'assignRequested', params: ({ event }) => ({ language: event.language }) },
        { type: 'storeLanguage', params: ({ event }) => ({ language: event.language }) },
      ],
    },
  },
  states: {
    loadingLookAndFeel: {
      tags: ['loading'],
      invoke: {
        id: 'fetchLookAndFeel',
        src: 'fetchLookAndFeel',
        input: ({ context }) => ({ language: context.requested, orDefault: !context.chosen }),
        onDone: [
          {
            guard: 'hasCompanyInfo',
            target: 'ready',
            actions: { type: 'assignLookAndFeel', params: ({ event }) => ({ lookAndFeel: event.output }) },
          },
          {
            target: 'loadingCompanyInfo',
            actions: { type: 'assignLookAndFeel', params: ({ event }) => ({ lookAndFeel: event.output }) },
          },
        ],
        onError: [
          {
            guard: { type: 'isNoStatus', params: ({ event }) => ({ error: event.error }) },
            target: 'failed',
            actions: { type: 'assignFailure', params: ({ event }) => ({ error: event.error }) },
          },
          {
            guard: 'hasCompanyInfo',
            target: 'ready',
            actions: { type: 'assignDefaults', params: ({ event }) => ({ error: event.error }) },
          },
          {
            target: 'loadingCompanyInfo',
            actions: { type: 'assignDefaults', params: ({ event }) => ({ error: event.error }) },
          },
        ],
      },
    },
    loadingCompanyInfo: {
      tags: ['loading', 'themed'],
      invoke: {
        id: 'fetchCompanyInfo',
        src: 'fetchCompanyInfo',
        onDone: {
          target: 'ready',
          actions: { type: 'assignCompanyInfo', params: ({ event }) => ({ companyInfo: event.output }) },
        },
        onError: [
          {
            guard: { type: 'isCompanyInfoFatal', params: ({ event }) => ({ error: event.error }) },
            target: 'failed',
            actions: { type: 'assignFailure', params: ({ event }) => ({ error: event.error }) },
          },
          { target: 'ready', actions: 'assignEmptyCompanyInfo' },
        ],
      },
    },
    ready: {
      tags: ['themed'],
    },
    failed: {
      tags: ['failed'],
      on: {
        retry: 'loadingLookAndFeel',
      },
    },
  },
});
