/**
 * The private area's first two reads (token check and my-case), started by a small
 * script in the head of a private page instead of after the SPA's scripts have
 * loaded and run (docs/decisions/private-early-read.md). On a slow phone that is
 * the difference between "scripts, then a round trip" and "scripts": the answers
 * are there when the session chart asks for them.
 *
 * Nothing new is exposed: the script reads the token the SPA itself keeps in this
 * tab's sessionStorage (oidc-client-ts's own entry) and sends it where the SPA
 * would, with the same headers, to the API address of the page's inline runtime
 * config. It runs only while that token has time left, never on the sign-in
 * callback, and its answers are handed out once, to the session holding the same
 * token; the chart still renders nothing private before the check answered 200.
 *
 * The server writes the script (`EARLY_READ_JS`, ./earlyReadScript.ts: not in the
 * SPA's bundle) into the head after the boot JSON and allows it by its SHA-256 hash
 * (server/spa.ts); the SPA takes the answers with `takeCaseInHand` and
 * `takeEarlyRead` (src/private/services.ts).
 */
/** Where the answers wait for the SPA (this tab's window only). */
export const EARLY_READ_GLOBAL = '__wbEarlyRead';
export const VERIFY_PATH = '/api/private/case/token/verify';
export const MY_CASE_PATH = '/api/private/case/my-case';
/** A token with less time left than this is refreshed by the SPA first: no early read. */
export const EARLY_READ_MIN_VALIDITY_SECONDS = 15;
/** The sign-in callback completes a sign-in; it never reads the case itself. */
export const EARLY_READ_EXCLUDED_PATH = '/private/callback';

/** oidc-client-ts's sessionStorage key for the signed-in user (WebStorageStateStore's `oidc.` prefix). */
export function storedUserKey(authority: string, clientId: string): string {
  return `oidc.user:${authority}:${clientId}`;
}

export interface EarlyRead {
  token: string;
  verify: Promise<Response>;
  myCase: Promise<Response>;
  /** The check's status, once it has answered. */
  verified?: number;
  /** The case, once my-case has answered 200 and its body was read (a copy: `myCase` keeps its own). */
  answer?: { etag: string | null; data: unknown };
}

/**
 * The early answers, once, if they were sent with `token`; otherwise null. Either
 * way they are gone from the window afterwards (a token refreshed in between makes
 * them someone else's answers: the chart reads again).
 */
export function takeEarlyRead(token: string | null, win: object = globalThis): EarlyRead | null {
  const holder = win as Record<string, unknown>;
  const early = holder[EARLY_READ_GLOBAL] as EarlyRead | undefined;
  if (early === undefined) return null;
  delete holder[EARLY_READ_GLOBAL];
  // Answers nobody takes must not turn into unhandled rejections.
  early.verify?.catch?.(() => undefined);
  early.myCase?.catch?.(() => undefined);
  return token && early.token === token ? early : null;
}

/**
 * The case, if both answers are already here, the check said 200 and they were sent
 * with `token`: then the session starts signed in with it, and the first screen is
 * the page itself, not "checking" first (machines/session.ts `hasCaseInHand`).
 * Taken once. Answers still on their way are left for `takeEarlyRead`.
 */
export function takeCaseInHand(token: string | null, win: object = globalThis): { etag: string | null; data: unknown } | null {
  const holder = win as Record<string, unknown>;
  const early = holder[EARLY_READ_GLOBAL] as EarlyRead | undefined;
  if (!early || !token || early.token !== token || early.verified !== 200 || !early.answer) return null;
  delete holder[EARLY_READ_GLOBAL];
  return early.answer;
}
