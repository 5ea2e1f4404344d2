/**
 * Runtime configuration (spec §3, §7): read /config/config.json at start; if it is
 * unreadable, fall back to the local backend address.
 */
import { FALLBACK_API_BASE_URL } from '../../machines/config.ts';

export { FALLBACK_API_BASE_URL };

export interface RuntimeConfig {
  apiBaseUrl: string;
  version: string | null;
  idSettings: { authority: string; realm: string; clientId: string } | null;
  /** False when the file could not be read and the fallback is in use. */
  fromFile: boolean;
}

interface ConfigFile {
  api?: { protocol?: string; host?: string; port?: number | string };
  version?: string;
  idSettings?: { authority: string; realm: string; clientId: string };
}

export function apiBaseUrlOf(file: ConfigFile): string | null {
  const api = file.api;
  if (!api?.host || !api.protocol) return null;
  const protocol = api.protocol.replace(/:$/, '');
  const port = api.port === undefined || api.port === '' ? '' : String(api.port);
  const defaultPort = (protocol === 'https' && port === '443') || (protocol === 'http' && port === '80');
  return `${protocol}://${api.host}${port && !defaultPort ? `:${port}` : ''}`;
}

export async function loadRuntimeConfig(doFetch: typeof fetch = (i, init) => fetch(i, init)): Promise<RuntimeConfig> {
  try {
    const res = await doFetch('/config/config.json', { headers: { accept: 'application/json' }, credentials: 'omit' });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const file = (await res.json()) as ConfigFile;
    const apiBaseUrl = apiBaseUrlOf(file);
    if (!apiBaseUrl) throw new Error('config.json has no api address');
    return { apiBaseUrl, version: file.version ?? null, idSettings: file.idSettings ?? null, fromFile: true };
  } catch {
    return { apiBaseUrl: FALLBACK_API_BASE_URL, version: null, idSettings: null, fromFile: false };
  }
}
