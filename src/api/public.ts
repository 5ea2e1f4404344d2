/** Public calls of spec §7 used by the frame and the public pages. */
import type { CompanyInfo, LookAndFeel } from '../../machines/lookAndFeel.ts';
import type { Language } from '../../machines/languages.ts';
import type { ApiClient } from './client.ts';

export function getLookAndFeel(api: ApiClient, language: Language, signal?: AbortSignal): Promise<LookAndFeel> {
  return api.json<LookAndFeel>(`/api/public/site-look-and-feel/language/${encodeURIComponent(language)}`, { signal });
}

export function getCompanyInfo(api: ApiClient, signal?: AbortSignal): Promise<CompanyInfo> {
  return api.json<CompanyInfo>('/api/public/case/company-info', { signal });
}

export function logoUrl(api: ApiClient, logoFileName: string): string {
  return api.url(`/api/public/site-look-and-feel/logo/${encodeURIComponent(logoFileName)}`);
}
