/**
 * Where the SPA sends its calls when /config/config.json cannot be read (spec §7,
 * §8): a development address, for the SPA served by something other than this
 * portal. The portal's own Content-Security-Policy does not allow it (issue 36, 6a):
 * the pages it sends carry their config inlined and same-origin.
 * Kept apart from schema.ts so that the landing page does not load valibot for it.
 */
export const FALLBACK_API_BASE_URL = 'http://localhost:9000';

/**
 * The API address a runtime config names (spec §7: protocol, host, port), or null if
 * it names none. One rule for the SPA (src/api/config.ts) and for the server, which
 * puts the same address into the pages it draws (server/spa.ts).
 */
export function apiBaseUrlOf(file: { api?: { protocol?: string; host?: string; port?: number | string } }): string | null {
  const api = file.api;
  if (!api?.host || !api.protocol) return null;
  const protocol = api.protocol.replace(/:$/, '');
  const port = api.port === undefined || api.port === '' ? '' : String(api.port);
  const defaultPort = (protocol === 'https' && port === '443') || (protocol === 'http' && port === '80');
  return `${protocol}://${api.host}${port && !defaultPort ? `:${port}` : ''}`;
}

/**
 * The sessionStorage key a quick exit leaves for the portal page its history
 * traversal lands on (src/app/quickExit.ts); the server's first-paint gate reads it
 * too (server/spa.ts), so that page never shows its picture on the way out.
 */
export const QUICK_EXIT_FLAG = 'quick-exit';

/**
 * The sessionStorage key under which the success dialog's "Log in to your case" hands
 * the case number just shown to the embedded provider's sign-in page on the same
 * origin (src/app/signinHandover.ts, server/idp/assets/signin.js;
 * docs/decisions/signin-handover.md). Removed when the form is sent, after 15 minutes,
 * by a quick exit, and with the tab.
 */
export const SIGNIN_HANDOVER_KEY = 'signin-case-number';

/**
 * The reporter key the embedded provider's sign-in (or new-password) page derived,
 * handed to the SPA on the same origin (issue 37, docs/decisions/blind-server.md):
 * one sessionStorage item of this tab, `{ k: base64 of the key's 32 bytes, t }`,
 * never a URL, cookie or request. The sign-in page removes a stale one on load; the
 * private area reads it into memory (src/private/reporterKey.ts); a quick exit and
 * sign-out clear it with the tab's storage.
 */
export const REPORTER_KEY_HANDOVER = 'reporter-key';
