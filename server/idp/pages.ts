/**
 * The identity provider's own pages, rendered on the server: sign-in, new password,
 * sign-out and errors. No inline script or style: the stylesheet and the company's
 * colours are files served from our origin (assets.ts), the logo comes from the
 * public logo route, so nothing is loaded from another host.
 *
 * They look like the portal (issue 17 §2): the company's logo (or name) and colours
 * in the same top bar, and the language switch: links to this same page in the
 * company's other languages.
 */
import { LIMITS, type Language } from '../../machines/schema.ts';
import { LANGUAGE_NAMES } from '../../machines/languages.ts';
import type { PowChallenge } from '../../core/pow.ts';
import { htmlLang, type Translate } from './i18n.ts';
import { QUICK_EXIT_FLAG, REPORTER_KEY_HANDOVER, SIGNIN_HANDOVER_KEY } from '../../machines/config.ts';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { sriOf } from '../integrity.ts';

/**
 * `integrity` of one of our scripts (assets/), as read once per process: index.ts
 * serves the bytes it read at start, and scripts/build-manifest.mjs records the same
 * files for an auditor (docs/decisions/code-integrity.md).
 */
const SCRIPT_INTEGRITY = new Map<string, string>();
/** Scripts index.ts serves from a package rather than from assets/ (the same file it reads). */
const PACKAGE_SCRIPTS: Record<string, string> = { 'argon2.js': 'hash-wasm/dist/argon2.umd.min.js' };
function scriptIntegrity(name: string): string {
  let sri = SCRIPT_INTEGRITY.get(name);
  if (!sri) {
    const pkg = PACKAGE_SCRIPTS[name];
    const file = pkg ? createRequire(import.meta.url).resolve(pkg) : new URL(`./assets/${name}`, import.meta.url);
    SCRIPT_INTEGRITY.set(name, (sri = sriOf(readFileSync(file))));
  }
  return sri;
}
const scriptTag = (f: PageFrame, name: string) => `<script src="${f.base}/assets/${name}" integrity="${scriptIntegrity(name)}" defer></script>\n`;

/** The portal's blank page a quick exit goes through (server/routes/leave.ts). */
const LEAVE_PATH = '/leave';

export interface PageFrame {
  lang: Language;
  t: Translate;
  base: string;
  company: { name: string; logoFileName?: string } | null;
  /** This page in each of the company's languages (the language switch); none when the page has no address of its own. */
  switchTo?: { lang: Language; href: string }[];
}


function languageSwitch(f: PageFrame): string {
  if (!f.switchTo || f.switchTo.length < 2) return '';
  const items = f.switchTo
    .map((o) =>
      o.lang === f.lang
        ? `<li><a href="${esc(o.href)}" lang="${htmlLang(o.lang)}" hreflang="${htmlLang(o.lang)}" aria-current="page">${LANGUAGE_NAMES[o.lang]}</a></li>`
        : `<li><a href="${esc(o.href)}" lang="${htmlLang(o.lang)}" hreflang="${htmlLang(o.lang)}">${LANGUAGE_NAMES[o.lang]}</a></li>`,
    )
    .join('');
  return `<nav class="languages" aria-label="${esc(f.t('page.language'))}"><ul>${items}</ul></nav>`;
}

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * No icon, said in the page: without it the browser asks for /favicon.ico, which the
 * portal answers with the SPA's page (≈ 10 kB on a slow phone, during a sign-in).
 * The CSP's img-src allows data: URLs.
 */
const NO_FAVICON = '<link rel="icon" href="data:,">';

/**
 * "Leave quickly" and Alt+Q on the sign-in and new-password pages too, where the case
 * number and password are typed (docs/decisions/quick-exit.md). quick-exit.js does what the
 * SPA does; without script the button's form goes to the portal's /leave.
 */
function quickExitButton(f: PageFrame): string {
  return `<form class="quick-exit" method="get" action="${LEAVE_PATH}" data-flag="${QUICK_EXIT_FLAG}"><button type="submit" aria-keyshortcuts="Alt+Q">${esc(f.t('page.quickExit'))}</button></form>`;
}

/** The reporter-key derivation (derive.js) and the Argon2id it uses (hash-wasm's own build, served from here). */
const DERIVE_SCRIPTS = ['argon2.js', 'derive.js'];

function frame(f: PageFrame, title: string, body: string, opts: { script?: string; scripts?: string[]; quickExit?: boolean } = {}): string {
  const scripts = [...(opts.scripts ?? []), ...(opts.script ? [opts.script] : [])];
  const company = f.company?.name ?? '';
  const logo = f.company?.logoFileName
    ? `<a class="logo" href="/"><img src="/api/public/site-look-and-feel/logo/${encodeURIComponent(f.company.logoFileName)}" alt="${esc(f.t('page.logoAlt', { company }))}"></a>`
    : `<a class="brand" href="/">${esc(company)}</a>`;
  return `<!DOCTYPE html>
<html lang="${htmlLang(f.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(title)}</title>
${NO_FAVICON}
<link rel="stylesheet" href="${f.base}/assets/idp.css">
<link rel="stylesheet" href="${f.base}/assets/theme.css">
${scripts.map((name) => scriptTag(f, name)).join('')}${opts.quickExit ? scriptTag(f, 'quick-exit.js') : ''}</head>
<body>
<a class="skip" href="#main">${esc(f.t('page.skip'))}</a>
<header class="bar">${logo}${languageSwitch(f)}${opts.quickExit ? quickExitButton(f) : ''}</header>
<main id="main" tabindex="-1">
<div class="card">
${body}
</div>
</main>
</body>
</html>
`;
}

function errorBox(message: string | undefined): string {
  return message ? `<div id="form-error" class="alert" role="alert">${esc(message)}</div>\n` : '';
}

function field(opts: { id: string; label: string; type: string; autocomplete: string; hint?: string; invalid: boolean; autofocus?: boolean; inputmode?: string; value?: string; unnamed?: boolean }): string {
  const described = [opts.hint ? `${opts.id}-hint` : '', opts.invalid ? 'form-error' : ''].filter(Boolean).join(' ');
  return `<div class="field">
<label for="${opts.id}">${esc(opts.label)}</label>
${opts.hint ? `<p class="hint" id="${opts.id}-hint">${esc(opts.hint)}</p>\n` : ''}<input id="${opts.id}"${opts.unnamed ? '' : ` name="${opts.id}"`} type="${opts.type}" autocomplete="${opts.autocomplete}"${opts.inputmode ? ` inputmode="${opts.inputmode}"` : ''} required aria-required="true"${described ? ` aria-describedby="${described}"` : ''}${opts.invalid ? ' aria-invalid="true"' : ''}${opts.autofocus ? ' autofocus' : ''}${opts.value ? ` value="${esc(opts.value)}"` : ''} maxlength="300">
</div>`;
}

export interface SignInExtras {
  /**
   * What the reporter typed as case number, kept after a refusal so only the
   * password is typed again (the focus goes there). The password is never echoed.
   */
  caseNumber?: string;
  /**
   * A proof-of-work the form must carry (the company sees a burst of failed
   * sign-ins; docs/decisions/identity-throttle.md). signin.js solves it in a Web
   * Worker while the reporter types and puts `challenge:nonce` into the hidden field.
   */
  pow?: PowChallenge;
}

/**
 * What the page's script sends instead of the password (issue 37): the verifier; for a
 * case made before verifiers (`legacy`) the password once (`password`) with the
 * verifier of a fresh salt (`newVerifier`, `newSalt`, `newKdf`). The typed password's
 * own field has no name, so it is never posted.
 */
const DERIVED_FIELDS = ['verifier', 'password', 'newVerifier', 'newSalt', 'newKdf'].map((n) => `<input type="hidden" name="${n}" value="">`).join('\n');

export function signInPage(f: PageFrame, action: string, error?: string, opts: SignInExtras = {}): string {
  const t = f.t;
  const { pow } = opts;
  const kept = opts.caseNumber?.trim() ? opts.caseNumber.trim() : undefined;
  const powAttrs = pow
    ? ` data-pow-challenge="${esc(pow.challenge)}" data-pow-difficulty="${pow.difficulty}" data-pow-worker="${f.base}/assets/signin-pow.worker.js"`
    : '';
  const powFields = pow
    ? `<input type="hidden" name="pow" value="">
<p class="hint" id="pow-status" role="status" data-working="${esc(t('signin.pow.working'))}"></p>
`
    : '';
  const body = `<h1>${esc(t('signin.heading'))}</h1>
<p>${esc(t('signin.intro'))}</p>
${errorBox(error)}<form method="post" action="${esc(action)}" novalidate${powAttrs} data-handover="${SIGNIN_HANDOVER_KEY}" data-key-handover="${REPORTER_KEY_HANDOVER}" data-kdf="${f.base}/signin/kdf" data-derive-error="${esc(t('signin.error.derive'))}" data-filled="${esc(t('signin.caseNumber.filled'))}" data-opening="${esc(t('signin.opening'))}">
${field({ id: 'caseNumber', label: t('signin.caseNumber.label'), hint: t('signin.caseNumber.hint'), type: 'text', autocomplete: 'username', inputmode: 'numeric', invalid: !!error, autofocus: !kept, value: kept })}
${field({ id: 'password', label: t('signin.password.label'), type: 'password', autocomplete: 'current-password', invalid: !!error, autofocus: !!kept, unnamed: true })}
${DERIVED_FIELDS}
${powFields}<button type="submit">${esc(t('signin.submit'))}</button>
<p class="hint" id="signin-status" role="status"></p>
</form>
<p class="home"><a href="/">${esc(t('page.home'))}</a></p>`;
  // signin.js always: the case number handed over from the success dialog, "Opening your case…" on submit, and the proof when asked.
  return frame(f, t('page.title', { company: f.company?.name ?? '' }), body, { scripts: DERIVE_SCRIPTS, script: 'signin.js', quickExit: true });
}

/**
 * The new password (spec §4). Its script checks length and confirmation, derives the
 * new keys from the case number (`caseNumber`, the case this step belongs to) and a
 * fresh salt, and sends only `verifier`, `salt` and `kdf`; the two password fields
 * have no name (issue 37).
 */
/**
 * A sealed case's page also carries the case id and its reporter wraps (`data-case-id`,
 * `data-wraps`): password.js unwraps the data key with the old reporter key and wraps it
 * under the new one (server/cases/reporter-rewrap.ts). `code` names a refusal for
 * scripted clients (the product's error code, on the error box).
 */
export function newPasswordPage(
  f: PageFrame,
  action: string,
  error: string | undefined,
  caseNumber: string,
  opts: { sealed?: { caseId: string; wraps: { epoch: number; wrap: string }[] } | null; code?: string } = {},
): string {
  const t = f.t;
  const hidden = ['verifier', 'salt', 'kdf', ...(opts.sealed ? ['wraps'] : [])].map((n) => `<input type="hidden" name="${n}" value="">`).join('\n');
  const sealed = opts.sealed ? ` data-case-id="${esc(opts.sealed.caseId)}" data-wraps="${esc(JSON.stringify(opts.sealed.wraps))}" data-error-rewrap="${esc(t('password.error.rewrap'))}"` : '';
  const body = `<h1>${esc(t('password.heading'))}</h1>
<p>${esc(t('password.intro'))}</p>
<div id="form-error" class="alert" role="alert"${opts.code ? ` data-code="${esc(opts.code)}"` : ''}${error ? '' : ' hidden'}>${esc(error ?? '')}</div>
<form method="post" action="${esc(action)}" novalidate data-case-number="${esc(caseNumber)}" data-key-handover="${REPORTER_KEY_HANDOVER}" data-min="${LIMITS.passwordMin}" data-max="${LIMITS.passwordMax}" data-error-min="${esc(t('password.error.min'))}" data-error-max="${esc(t('password.error.max'))}" data-error-mismatch="${esc(t('password.error.mismatch'))}" data-error-derive="${esc(t('password.error.derive'))}"${sealed}>
${field({ id: 'newPassword', label: t('password.new.label'), hint: t('password.new.hint'), type: 'password', autocomplete: 'new-password', invalid: !!error, autofocus: true, unnamed: true })}
<p class="strength" id="newPassword-strength" aria-live="polite" data-label="${esc(t('password.strength.label', { level: '{level}' }))}" data-weak="${esc(t('password.strength.weak'))}" data-fair="${esc(t('password.strength.fair'))}" data-strong="${esc(t('password.strength.strong'))}"></p>
${field({ id: 'confirmPassword', label: t('password.confirm.label'), type: 'password', autocomplete: 'new-password', invalid: !!error, unnamed: true })}
${hidden}
<button type="submit">${esc(t('password.submit'))}</button>
</form>`;
  return frame(f, t('password.heading'), body, { scripts: DERIVE_SCRIPTS, script: 'password.js', quickExit: true });
}

/** oidc-provider hands over its hidden logout form (`op.logoutForm`); our script submits it with logout=yes. */
export function logoutPage(f: PageFrame, form: string, autoConfirm: boolean): string {
  const t = f.t;
  const body = `<h1>${esc(t('logout.heading'))}</h1>
<p>${esc(t('logout.text'))}</p>
${form}
<div class="actions">
<button id="logout-yes" type="submit" form="op.logoutForm" value="yes" name="logout">${esc(t('logout.submit'))}</button>
<button class="secondary" type="submit" form="op.logoutForm">${esc(t('logout.cancel'))}</button>
</div>`;
  return frame(f, t('logout.heading'), body, autoConfirm ? { script: 'logout.js' } : {});
}

/**
 * `/session/end` when nobody is signed in: nothing to confirm, so logout.js sends the
 * provider's form on at once (to where the client asked to land); without script the
 * button does.
 */
export function nothingToSignOutPage(f: PageFrame, form: string): string {
  const t = f.t;
  const body = `<h1>${esc(t('logout.done.heading'))}</h1>
<p>${esc(t('logout.done.text'))}</p>
${form}
<div class="actions">
<button id="logout-yes" type="submit" form="op.logoutForm" value="yes" name="logout">${esc(t('logout.continue'))}</button>
</div>`;
  return frame(f, t('logout.done.heading'), body, { script: 'logout.js' });
}

export function loggedOutPage(f: PageFrame): string {
  const t = f.t;
  return frame(f, t('logout.done.heading'), `<h1>${esc(t('logout.done.heading'))}</h1>
<p>${esc(t('logout.done.text'))}</p>
<p class="home"><a href="/">${esc(t('page.home'))}</a></p>`);
}

export function errorPage(f: PageFrame, detail?: string): string {
  const t = f.t;
  return frame(f, t('error.heading'), `<h1>${esc(t('error.heading'))}</h1>
<div class="alert" role="alert">${esc(t('error.text'))}</div>
${detail ? `<p class="detail">${esc(detail)}</p>\n` : ''}<p class="home"><a href="/">${esc(t('page.home'))}</a></p>`);
}
