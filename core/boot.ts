/**
 * What the server put into index.html for the first paint (server/spa.ts): the
 * runtime config, the company's look and feel in the language the server expects
 * the SPA to ask for, and the company info, as inline JSON in
 * `<script type="application/json" id="wb-boot">` (data, never executed). The SPA
 * reads it instead of fetching; without it (the Vite dev server, an old page) it
 * fetches as before.
 */
import type { CompanyInfo, LookAndFeel } from '../machines/lookAndFeel.ts';
import type { Language } from '../machines/languages.ts';

export interface BootData {
  config?: { api?: { protocol?: string; host?: string; port?: number | string }; version?: string; idSettings?: { authority: string; realm: string; clientId: string } };
  language?: string;
  lookAndFeel?: LookAndFeel | null;
  companyInfo?: CompanyInfo | null;
  /** The route's catalogues in `language`, keyed `<area>/<language>`, as the build precompiled them. */
  catalogues?: Record<string, unknown>;
}

export const BOOT_ELEMENT_ID = 'wb-boot';

/**
 * Where a build keeps its precompiled catalogues as JSON, `<area>/<language>.json`
 * (scripts/precompileMessages.ts writes them, server/spa.ts copies a route's into
 * `catalogues`); inside the build folder's `.vite/`, which is never served.
 */
export const CATALOGUES_DIR = '.vite/catalogues';

/**
 * Which group chunk holds a route component that has no manifest entry of its own
 * (vite.config.ts writes it, server/spa.ts reads it): `{ "<manifest key>": "_<chunk>.js" }`.
 */
export const GROUPED_ROUTES_FILE = '.vite/grouped-routes.json';

/**
 * The reporter build's HTML pages (vite.config.ts, `reporterConfig`): `private` for
 * /private/… (docs/decisions/private-entry.md), `report` for the three report forms
 * (docs/decisions/report-entry.md), `index` for every other path. Each has its own
 * manifest and grouped-routes file in `.vite/`.
 */
export type SpaPage = 'index' | 'private' | 'report';
export const manifestFile = (page: SpaPage): string => (page === 'index' ? '.vite/manifest.json' : `.vite/manifest-${page}.json`);
export const groupedRoutesFile = (page: SpaPage): string => (page === 'index' ? GROUPED_ROUTES_FILE : `.vite/grouped-routes-${page}.json`);

/** The last boot text parsed and what it gave: the start reads it four times. */
let lastRead: { text: string; data: BootData | null } | undefined;

/**
 * Parses the page's boot data; null when there is none or it is unreadable. The same
 * text is parsed once (it holds the route's catalogues, ≈ 25 kB, read in the first
 * script task by the config, the catalogues, the look and feel and the picture), so
 * callers share one object and must not change it.
 */
export function readBootData(doc: Pick<Document, 'getElementById'> | undefined = typeof document === 'undefined' ? undefined : document): BootData | null {
  const text = doc?.getElementById(BOOT_ELEMENT_ID)?.textContent;
  if (!text) return null;
  if (lastRead?.text === text) return lastRead.data;
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // unreadable: null, as when there is none
  }
  const data = parsed && typeof parsed === 'object' ? (parsed as BootData) : null;
  lastRead = { text, data };
  return data;
}

/**
 * The page's first-paint data, each part handed out once: a later language change
 * or retry fetches fresh data from the API.
 */
export class BootStore {
  private lookAndFeelTaken = false;
  private companyInfoTaken = false;
  constructor(readonly data: BootData | null = readBootData()) {}

  /**
   * The inlined look and feel if it is for `language`, or, with `orDefault`, if it is
   * the company's default-language answer and the company does not offer `language`
   * (what the API would answer with `?orDefault=true`).
   */
  takeLookAndFeel(language: Language, orDefault = false): LookAndFeel | null {
    const laf = this.data?.lookAndFeel;
    if (this.lookAndFeelTaken || !laf) return null;
    const forLanguage = this.data?.language === language && laf.languageCode === language;
    const forDefault = orDefault && laf.languageCode === laf.defaultLanguage && Array.isArray(laf.availableLanguages) && !laf.availableLanguages.includes(language);
    if (!forLanguage && !forDefault) return null;
    this.lookAndFeelTaken = true;
    return laf;
  }

  takeCompanyInfo(): CompanyInfo | null {
    const info = this.data?.companyInfo;
    if (this.companyInfoTaken || !info) return null;
    this.companyInfoTaken = true;
    return info;
  }
}
