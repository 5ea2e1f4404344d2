/**
 * "Log in to your case" in the success dialog hands the case number just shown to
 * the sign-in page (docs/decisions/signin-handover.md): one sessionStorage item of
 * this tab, written only when the sign-in page is the embedded provider's on this
 * very origin (the only page that can read it). Never a URL, a cookie, localStorage
 * or a log line. The sign-in page's script (server/idp/assets/signin.js) fills the
 * field with it and removes it when the form is sent, or after 15 minutes; a quick
 * exit clears it with the rest of the tab's storage.
 */
import { SIGNIN_HANDOVER_KEY } from '../../machines/config.ts';

/** True when `authority` (the OpenID issuer) is served from `origin`. */
export function isSameOriginProvider(authority: string | null | undefined, origin: string): boolean {
  if (!authority) return false;
  try {
    return new URL(authority, origin).origin === origin;
  } catch {
    return false;
  }
}

/** Hands `caseNumber` to a same-origin sign-in page; true when it was stored. */
export function handOverCaseNumber(caseNumber: string, authority: string | null | undefined, storage: Storage | undefined = globalThis.sessionStorage, origin = globalThis.location?.origin ?? ''): boolean {
  if (!/^\d{16}$/.test(caseNumber) || !storage || !isSameOriginProvider(authority, origin)) return false;
  try {
    storage.setItem(SIGNIN_HANDOVER_KEY, JSON.stringify({ n: caseNumber, t: Date.now() }));
    return true;
  } catch {
    return false;
  }
}
