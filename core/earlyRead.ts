/**
 * The private area's first read (my-case, which also verifies the token: spec §4
 * Session), started by a small
 * script in the head of a private page instead of after the SPA's scripts have
 * loaded and run (docs/decisions/private-early-read.md). On a slow phone that is
 * the difference between "scripts, then a round trip" and "scripts": the answer
 * is there when the session chart asks for it.
 *
 * Nothing new is exposed: the script reads the token the SPA itself keeps in this
 * tab's sessionStorage (oidc-client-ts's own entry) and sends it where the SPA
 * would, with the same headers, to the API address of the page's inline runtime
 * config. It runs only while that token has time left, never on the sign-in
 * callback, and its answer is handed out once, to the session holding the same
 * token; the chart still renders nothing private before that read answered 200.
 *
 * The server writes the script (`EARLY_READ_JS`, ./earlyReadScript.ts: not in the
 * SPA's bundle) into the head after the boot JSON and allows it by its SHA-256 hash
 * (server/spa.ts); the SPA takes the answers with `takeCaseInHand` and
 * `takeEarlyRead` (src/private/services.ts).
 */
/** Where the answers wait for the SPA (this tab's window only). */
export const EARLY_READ_GLOBAL = '__wbEarlyRead';
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
  myCase: Promise<Response>;
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
  // An answer nobody takes must not turn into an unhandled rejection.
  early.myCase?.catch?.(() => undefined);
  return token && early.token === token ? early : null;
}

/**
 * The case, if its answer (a 200) is already here and was asked for with `token`:
 * then the session starts signed in with it, and the first screen is
 * the page itself, not "checking" first (machines/session.ts `hasCaseInHand`).
 * Taken once. An answer still on its way is left for `takeEarlyRead`.
 */
export function takeCaseInHand(token: string | null, win: object = globalThis): { etag: string | null; data: unknown } | null {
  const holder = win as Record<string, unknown>;
  const early = holder[EARLY_READ_GLOBAL] as EarlyRead | undefined;
  if (!early || !token || early.token !== token || !early.answer) return null;
  delete holder[EARLY_READ_GLOBAL];
  return early.answer;
}
