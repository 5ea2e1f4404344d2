/**
 * The reporter key the embedded provider's sign-in page derived (issue 37,
 * docs/decisions/blind-server.md): it comes in this tab's sessionStorage
 * (`REPORTER_KEY_HANDOVER`, machines/config.ts), never a URL, cookie or request, and
 * is read once into memory as a non-extractable AES-GCM key: what unwraps the case's
 * data key once sealing lands. The item stays for the tab (a reload reads it again,
 * as the tokens beside it), and goes with sign-out, a refused token, a quick exit and
 * the tab. After a password change the new-password page left the old key beside the
 * new one (`was`) until the server took the change; the first read drops it.
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
    const { k, t, was } = JSON.parse(raw) as { k?: unknown; t?: unknown; was?: unknown };
    if (typeof k !== 'string') return null;
    // The old key a password change kept until the server took it (password.js): the change was taken, as this page shows.
    if (was !== undefined) storage?.setItem(REPORTER_KEY_HANDOVER, JSON.stringify({ k, t }));
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
