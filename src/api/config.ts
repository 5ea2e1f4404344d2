/**
 * Runtime configuration (spec §3, §7): the copy the server inlined into index.html
 * (core/boot.ts), else /config/config.json; if neither is readable, fall back to
 * the local backend address.
 */
import { readBootData, type BootData } from '../../core/boot.ts';
import { FALLBACK_API_BASE_URL, apiBaseUrlOf } from '../../machines/config.ts';

export { FALLBACK_API_BASE_URL, apiBaseUrlOf };

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

export async function loadRuntimeConfig(doFetch: typeof fetch = (i, init) => fetch(i, init), boot: BootData | null = readBootData()): Promise<RuntimeConfig> {
  const inlined = boot?.config ? apiBaseUrlOf(boot.config) : null;
  if (boot?.config && inlined) return { apiBaseUrl: inlined, version: boot.config.version ?? null, idSettings: boot.config.idSettings ?? null, fromFile: true };
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
