/**
 * The reporter key the embedded provider's sign-in page derived (issue 37,
 * docs/decisions/blind-server.md): it comes in this tab's sessionStorage
 * (`REPORTER_KEY_HANDOVER`, machines/config.ts), never a URL, cookie or request, and
 * is read once into memory as a non-extractable AES-GCM key: what unwraps the case's
 * data key once sealing lands. The item stays for the tab (a reload reads it again,
 * as the tokens beside it), and goes with sign-out, a refused token, a quick exit and
 * the tab. With an external OpenID issuer there is none: the page would ask for the
 * case password once (a follow-up, with sealing).
 */
import { REPORTER_KEY_HANDOVER } from '../../machines/config.ts';

export async function readReporterKey(storage: Storage | undefined = globalThis.sessionStorage): Promise<CryptoKey | null> {
  let raw: string | null = null;
  try {
    raw = storage?.getItem(REPORTER_KEY_HANDOVER) ?? null;
  } catch {
    return null;
  }
  if (!raw) return null;
  try {
    const { k } = JSON.parse(raw) as { k?: unknown };
    if (typeof k !== 'string') return null;
    const bytes = Uint8Array.from(atob(k), (c) => c.charCodeAt(0));
    if (bytes.length !== 32) return null;
    const key = await crypto.subtle.importKey('raw', bytes, 'AES-GCM', false, ['encrypt', 'decrypt']);
    bytes.fill(0);
    return key;
  } catch {
    return null;
  }
}

export function forgetReporterKey(storage: Storage | undefined = globalThis.sessionStorage): void {
  try {
    storage?.removeItem(REPORTER_KEY_HANDOVER);
  } catch {
    // storage unavailable: nothing was kept there either
  }
}
