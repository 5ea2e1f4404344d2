/** Public calls of spec §7 used by the frame and the public pages. */
import type { CompanyInfo, LookAndFeel } from '../../machines/lookAndFeel.ts';
import type { Language } from '../../machines/languages.ts';
import type { ApiClient } from './client.ts';

/** `orDefault`: a company that does not offer `language` answers in its default language instead of 404. */
export function getLookAndFeel(api: ApiClient, language: Language, signal?: AbortSignal, orDefault = false): Promise<LookAndFeel> {
  const query = orDefault ? '?orDefault=true' : '';
  return api.json<LookAndFeel>(`/api/public/site-look-and-feel/language/${encodeURIComponent(language)}${query}`, { signal });
}

export function getCompanyInfo(api: ApiClient, signal?: AbortSignal): Promise<CompanyInfo> {
  return api.json<CompanyInfo>('/api/public/case/company-info', { signal });
}

export function logoUrl(api: ApiClient, logoFileName: string): string {
  return api.url(`/api/public/site-look-and-feel/logo/${encodeURIComponent(logoFileName)}`);
}
