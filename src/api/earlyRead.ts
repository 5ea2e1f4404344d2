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
 * The server writes `EARLY_READ_JS` into the head after the boot JSON and allows it
 * by its SHA-256 hash (server/spa.ts); the SPA takes the answers with
 * `takeEarlyRead` (src/private/services.ts).
 */
import { BOOT_ELEMENT_ID } from './boot.ts';

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

/**
 * The head script. Plain ES5 so that it runs before anything else, with the API
 * address worked out as machines/config.ts `apiBaseUrlOf` does (a unit test holds
 * the two together, and the storage key to oidc-client-ts's own).
 */
export const EARLY_READ_JS = `(function(){try{if(location.pathname===${JSON.stringify(EARLY_READ_EXCLUDED_PATH)})return;var e=document.getElementById(${JSON.stringify(BOOT_ELEMENT_ID)}),b=e&&JSON.parse(e.textContent||"null"),c=b&&b.config,i=c&&c.idSettings,a=c&&c.api;if(!i||!a||!a.host||!a.protocol)return;var u=JSON.parse(sessionStorage.getItem("oidc.user:"+i.authority+":"+i.clientId)||"null");if(!u||typeof u.access_token!=="string"||!(u.expires_at-Date.now()/1000>${EARLY_READ_MIN_VALIDITY_SECONDS}))return;var p=String(a.protocol).replace(/:$/,""),o=a.port===undefined||a.port===""?"":String(a.port);if((p==="https"&&o==="443")||(p==="http"&&o==="80"))o="";var r=p+"://"+a.host+(o?":"+o:""),h={headers:{accept:"application/json",authorization:"Bearer "+u.access_token},credentials:"omit",referrerPolicy:"no-referrer"},x={token:u.access_token,verify:fetch(r+${JSON.stringify(VERIFY_PATH)},h),myCase:fetch(r+${JSON.stringify(MY_CASE_PATH)},h)};x.verify.then(function(s){x.verified=s.status},function(){});x.myCase.then(function(s){if(s.status===200)return s.clone().json().then(function(d){x.answer={etag:s.headers.get("etag"),data:d}})}).catch(function(){});window[${JSON.stringify(EARLY_READ_GLOBAL)}]=x}catch(y){}})()`;

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
