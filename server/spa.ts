/**
 * How the built SPA and the API's text answers reach the browser
 * (docs/decisions/performance.md):
 * - build assets are precompressed at build time (scripts/precompress.ts) and sent
 *   as Brotli or gzip by `Accept-Encoding`; hashed files are answered from memory
 *   (server/hashedAssets.ts) and cached for a year;
 * - other text answers over 1 kB (JSON, HTML) are compressed per request;
 * - `index.html` is `no-cache` with an ETag, so a revisit costs a 304;
 * - `/robots.txt` follows the company's `allowIndexing` (off by default);
 * - `index.html` is rendered per host and language with what the first paint
 *   needs: the runtime config, the company's look and feel and company info as
 *   inline JSON (`<script type="application/json">`, never executed, so the CSP
 *   needs no 'unsafe-inline'), `modulepreload` for the route's chunks and its
 *   catalogues, and the logo preloaded. The SPA reads the JSON instead of
 *   fetching (core/boot.ts) and fetches as before when it is absent.
 */
import { identitySettings } from './idp/settings.ts';
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import fastifyCompress from '@fastify/compress';
import type { AppContext } from './context.ts';
import { COMPRESSIBLE_TYPES, COMPRESSION_ENCODINGS, COMPRESSION_THRESHOLD_BYTES } from './compression.ts';
import { companyByHost, requestHost, type Company } from './companies/service.ts';
import { lookAndFeelResponse, voiceSettings, type CompanyFile } from './companies/format.ts';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '../machines/languages.ts';
import { FALLBACK_API_BASE_URL, QUICK_EXIT_FLAG, apiBaseUrlOf } from '../machines/config.ts';
import { EARLY_READ_EXCLUDED_PATH } from '../core/earlyRead.ts';
import { EARLY_READ_JS } from '../core/earlyReadScript.ts';
import { BOOT_ELEMENT_ID, CATALOGUES_DIR, groupedRoutesFile, manifestFile, type SpaPage } from '../core/boot.ts';
import { HashedAssets } from './hashedAssets.ts';
import { INTEGRITY_MANIFEST_FILE, readIntegrity, reachableScripts, withIntegrity, type BuildIntegrity, type IntegrityOf } from './integrity.ts';

/**
 * A page reached by a quick exit's history traversal must show nothing on its way to
 * /leave (src/app/quickExit.ts). Without a first paint the page is blank until its
 * script runs; with one, this script hides the page before the picture can paint. It
 * is written into the head (a file of its own was a render-blocking round trip), and
 * the page's CSP allows it by its hash only (`FIRST_PAINT_GATE_SOURCE`): no other
 * inline script runs, as on the identity provider's pages.
 */
export const FIRST_PAINT_GATE_JS = `try{if(sessionStorage.getItem(${JSON.stringify(QUICK_EXIT_FLAG)})==='1')document.documentElement.style.visibility='hidden'}catch(e){}`;
const hashSource = (js: string) => `'sha256-${createHash('sha256').update(js).digest('base64')}'`;
export const FIRST_PAINT_GATE_SOURCE = hashSource(FIRST_PAINT_GATE_JS);

/**
 * A private page's first reads, started from its head (core/earlyRead.ts,
 * docs/decisions/private-early-read.md), allowed by its hash like the gate.
 */
export const EARLY_READ_SOURCE = hashSource(EARLY_READ_JS);

/** The build's HTML pages: rendered per request below, never served as files. */
const SPA_PAGES = new Set(['/index.html', '/private.html', '/report.html']);

/** True for the paths answered with the private area's page (private.html, docs/decisions/private-entry.md). */
export const isPrivatePath = (pathname: string): boolean => /^\/private(\/|$)/.test(pathname);

/** True for the paths answered with the report forms' page (report.html, docs/decisions/report-entry.md). */
export const isReportPath = (pathname: string): boolean => /^\/(online-form|oral-report|book-meeting)$/.test(pathname);

/** The page a path is answered with: its own page's, or index.html's for every other path. */
export function spaPageFor(pathname: string): SpaPage {
  return isPrivatePath(pathname) ? 'private' : isReportPath(pathname) ? 'report' : 'index';
}

/**
 * The pages a voice message is recorded on (issue 40): the report forms' page (the
 * online form's description step) and the private area's page (the message
 * composer), each one document however the reporter moves within it.
 */
export function allowsMicrophone(pathname: string, settings: Pick<CompanyFile, 'voice'>): boolean {
  return voiceSettings(settings).enabled && (isReportPath(pathname) || isPrivatePath(pathname));
}

/** SECURITY_HEADERS' policy (server/app.ts) with the microphone allowed to this origin alone. */
export const MICROPHONE_ALLOWED_POLICY = 'camera=(), microphone=(self), geolocation=(), interest-cohort=()';

/** True for the private pages whose head starts the early read. */
export function hasEarlyRead(pathname: string): boolean {
  return isPrivatePath(pathname) && pathname !== EARLY_READ_EXCLUDED_PATH;
}

/** The server's CSP with these inline scripts' hashes added to script-src (and nothing else). */
export function cspWithScripts(csp: string, sources: readonly string[]): string {
  if (sources.length === 0) return csp;
  return csp.replace(/(^|;\s*)script-src ([^;]*)/, (_m, lead: string, own: string) => `${lead}script-src ${own} ${sources.join(' ')}`);
}

/** Hashed build output: its name changes with its content, so it never needs revalidating. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Per-request compression of API answers; must be registered before any route. */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCompress, {
    global: true,
    threshold: COMPRESSION_THRESHOLD_BYTES,
    encodings: [...COMPRESSION_ENCODINGS],
    customTypes: COMPRESSIBLE_TYPES,
  });
}

/** A weak validator of a body: the same bytes give the same ETag in every process. */
export function etagOf(body: string | Buffer): string {
  return `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** True when the request's `If-None-Match` names `etag` (or `*`). */
export function isFresh(req: FastifyRequest, etag: string): boolean {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  const strip = (t: string) => t.trim().replace(/^W\//, '');
  const want = strip(etag);
  return header.split(',').some((t) => t.trim() === '*' || strip(t) === want);
}

/** Sends `body` with its ETag, or a bodiless 304 when the client holds it already. */
export function sendWithEtag(req: FastifyRequest, reply: FastifyReply, body: string, type: string, etag = etagOf(body)) {
  reply.header('etag', etag);
  if (isFresh(req, etag)) return reply.status(304).send();
  return reply.type(type).send(body);
}

/** A body held in memory with its validator and, over 1 kB, its compressed forms. */
export interface Representation {
  body: Buffer;
  etag: string;
  br?: Buffer;
  gzip?: Buffer;
}

/**
 * `brotliQuality` 11 for a body that is kept and sent many times: a page of the form
 * is ≈ 1.3 kB smaller than at 9 (12.7 against 14.0 kB), which keeps it, with its
 * headers, inside the first round trip of a new connection (ten segments, 14.6 kB);
 * ≈ 60 ms once per page kept. A body made for one request takes a cheap level.
 */
export function representation(text: string, brotliQuality = 11): Representation {
  const body = Buffer.from(text, 'utf8');
  const rep: Representation = { body, etag: etagOf(body) };
  if (body.length >= 1024) {
    rep.br = brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: brotliQuality, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } });
    rep.gzip = gzipSync(body, { level: 9 });
  }
  return rep;
}

/** When the build's digests were written (0 without them), so that pages are re-read with new ones. */
function integrityMtime(distDir: string): number {
  try {
    return statSync(path.join(distDir, INTEGRITY_MANIFEST_FILE)).mtimeMs;
  } catch {
    return 0;
  }
}

/** The Brotli size of a page as `representation` would compress it. */
function brotliSize(text: string, brotliQuality: number): number {
  const body = Buffer.from(text, 'utf8');
  return brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: brotliQuality, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } }).length;
}

/**
 * Sends a representation: 304 when the client's copy is current, else the body in
 * the best encoding the client accepts. (The not-found handler, which answers the
 * SPA's routes, gets no compression from @fastify/compress, which hooks routes.)
 */
export function sendRepresentation(req: FastifyRequest, reply: FastifyReply, rep: Representation, type: string) {
  if (!rep.etag) return reply.type(type).send(rep.body);
  reply.header('etag', rep.etag);
  if (rep.br || rep.gzip) {
    const vary = reply.getHeader('vary');
    if (!/accept-encoding/i.test(String(vary ?? ''))) reply.header('vary', vary ? `${String(vary)}, accept-encoding` : 'accept-encoding');
  }
  if (isFresh(req, rep.etag)) return reply.status(304).send();
  reply.type(type);
  const accepted = req.headers['accept-encoding'];
  const encoding = accepted && rep.br && rep.gzip ? negotiate(accepted, ['br', 'gzip']) : undefined;
  if (encoding === 'br' || encoding === 'gzip') {
    return reply.header('content-encoding', encoding).send(encoding === 'br' ? rep.br : rep.gzip);
  }
  return reply.send(rep.body);
}

export function robotsTxt(allowIndexing: boolean): string {
  return allowIndexing
    ? // The public pages may be found; the reporter's own area and the API never.
      'User-agent: *\nAllow: /\nDisallow: /private\nDisallow: /api/\nDisallow: /idp/\n'
    : 'User-agent: *\nDisallow: /\n';
}

/** The runtime config of spec §7 (`/config/config.json`), for this request's host. */
export function runtimeConfig(ctx: AppContext, req: FastifyRequest) {
  const publicUrl = ctx.config.publicUrl ? new URL(ctx.config.publicUrl) : null;
  const proto = publicUrl ? publicUrl.protocol.replace(':', '') : req.protocol;
  const hostHeader = publicUrl ? publicUrl.host : req.host;
  const [host, port] = splitHost(hostHeader, proto);
  const origin = publicUrl ? publicUrl.origin : `${proto}://${hostHeader}`;
  return {
    api: { protocol: proto, host, port },
    version: ctx.version,
    // Another OpenID provider (OIDC_ISSUER, docs/identity.md) signs in: the pages' inlined copy names it too, not only config.json.
    idSettings: { authority: identitySettings(ctx.config.identity).externalIssuer ?? `${origin}/idp/realms/whistleblower`, realm: 'whistleblower', clientId: 'whistleblower-app' },
  };
}

function splitHost(hostHeader: string, proto: string): [string, number] {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(hostHeader);
  const host = m?.[1] ?? 'localhost';
  const port = m?.[2] ? Number(m[2]) : proto === 'https' ? 443 : 80;
  return [host, port];
}

/** The company info answer (spec §7 `/api/public/case/company-info`). */
export function companyInfoResponse(company: Company) {
  return {
    protectionOfficers: company.settings.protectionOfficers.map((o) => ({
      id: o.id,
      name: o.name,
      jobTitle: o.jobTitle,
      company: o.company,
      phone: o.phone,
      customerRelation: o.customerRelation,
      logoUrl: o.logo ? `/api/public/case/protection-officer/${o.id}/logo` : null,
    })),
    subsidiaries: company.settings.subsidiaries.map((s) => ({ id: s.id, name: s.name })),
  };
}

/**
 * The language the SPA will show when it has no stored choice (src/app/language.ts
 * `firstLanguage`): the first supported browser language if the company offers it,
 * else the company's default language (spec §1 "otherwise the site default"); Danish
 * without a company. Browsers send `Accept-Language` in `navigator.languages` order.
 */
export function browserLanguage(acceptLanguage: string | undefined, company?: { languages: readonly string[]; defaultLanguage: string } | null): Language {
  let asked: Language | null = null;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const base = (part.split(';')[0] ?? '').trim().toLowerCase().split(/[-_]/)[0] ?? '';
    const mapped = base === 'sv' ? 'se' : base === 'nb' || base === 'nn' ? 'no' : base;
    if ((LANGUAGES as readonly string[]).includes(mapped)) {
      asked = mapped as Language;
      break;
    }
  }
  // A damaged company row (settings that are not the company file's shape) counts as no company.
  if (!company || !Array.isArray(company.languages)) return asked ?? DEFAULT_LANGUAGE;
  if (asked && company.languages.includes(asked)) return asked;
  return (LANGUAGES as readonly string[]).includes(company.defaultLanguage) ? (company.defaultLanguage as Language) : (asked ?? DEFAULT_LANGUAGE);
}

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}
type Manifest = Record<string, ManifestChunk>;

/** Route files of the router plugin that may render `pathname`: layouts first, then the leaf. */
export function routeSources(pathname: string): string[] {
  const segs = pathname.split('/').filter(Boolean);
  if (segs.some((s) => !/^[a-z0-9-]+$/.test(s))) return [];
  if (!segs.length) return ['src/routes/index.tsx'];
  const out: string[] = [];
  for (let i = 1; i <= segs.length; i++) out.push(`src/routes/${segs.slice(0, i).join('/')}.tsx`);
  out.push(`src/routes/${segs.join('/')}/index.tsx`);
  return out;
}

/**
 * Catalogue areas no first screen shows: the hidden-data check's texts appear once a
 * file is attached, and the page that attaches files loads them after its first paint
 * (src/metadata/context.tsx). Not preloaded: on a slow phone each request beside the
 * entry slows the entry down.
 */
const LATER_AREAS = ['metadata', 'voice'];

/** A catalogue's manifest key, `src/i18n/<area>/<language>.json`: its area and language. */
const CATALOGUE_KEY = /^src\/i18n\/([a-z]+)\/([a-z]{2})\.json$/;

/**
 * What a route needs beyond what index.html already loads: its chunks, their imports
 * and CSS, its catalogues. A catalogue `inline` accepts (`<area>/<language>`) is
 * listed in `catalogues` instead of `js`: the page carries it in its boot JSON.
 */
export function routePreloads(
  manifest: Manifest,
  pathname: string,
  lang: Language,
  inline: (catalogue: string) => boolean = () => false,
): { js: string[]; css: string[]; catalogues: string[] } {
  const entry = Object.values(manifest).find((c) => c.isEntry);
  const have = new Set<string>();
  const markLoaded = (key: string) => {
    if (have.has(key)) return;
    have.add(key);
    for (const k of manifest[key]?.imports ?? []) markLoaded(k);
  };
  const entryKey = Object.keys(manifest).find((k) => manifest[k] === entry);
  if (entryKey) markLoaded(entryKey);
  const haveCss = new Set([...have].flatMap((k) => manifest[k]?.css ?? []));

  const js: string[] = [];
  const css: string[] = [];
  const catalogues: string[] = [];
  // The route's catalogues in the page's language (each area registers all seven).
  const catalogueOfPage = new RegExp(`^src/i18n/(?!${LATER_AREAS.join('|')}/)[a-z]+/${lang}\\.json$`);
  const seen = new Set<string>();
  const add = (key: string) => {
    if (seen.has(key) || have.has(key)) return;
    seen.add(key);
    const chunk = manifest[key];
    if (!chunk) return;
    const catalogue = CATALOGUE_KEY.exec(key);
    if (catalogue && inline(`${catalogue[1]}/${catalogue[2]}`)) {
      catalogues.push(`${catalogue[1]}/${catalogue[2]}`);
      return;
    }
    // A group chunk is reached under its own key and under each route it holds.
    if (js.includes(chunk.file) || [...have].some((k) => manifest[k]?.file === chunk.file)) return;
    js.push(chunk.file);
    for (const c of chunk.css ?? []) if (!haveCss.has(c) && !css.includes(c)) css.push(c);
    for (const k of chunk.imports ?? []) add(k);
    for (const k of chunk.dynamicImports ?? []) if (catalogueOfPage.test(k)) add(k);
  };
  add(`src/i18n/common/${lang}.json`);
  for (const src of routeSources(pathname)) {
    const component = `${src}?tsr-split=component`;
    // A route component inside the entry (the private page's, src/entries/private.ts):
    // nothing to load, but its catalogues are the page's.
    if (manifest[component] && manifest[component] === entry) for (const k of entry.dynamicImports ?? []) if (catalogueOfPage.test(k)) add(k);
    add(component);
    add(src);
  }
  // An area's catalogue waits for the ICU formatter (src/i18n/index.ts loads it for a
  // catalogue with plurals or selects; the forms' and the private area's have them,
  // `common` has none): fetched with the rest, not a round trip after the catalogue.
  if ([...seen].some((k) => /^src\/i18n\/(?!common\/)[a-z]+\/[a-z]+\.json$/.test(k))) {
    const icu = Object.keys(manifest).find((k) => k.includes('node_modules/intl-messageformat/') && manifest[k]?.isDynamicEntry);
    if (icu) add(icu);
  }
  return { js, css, catalogues };
}

/** JSON inside <script>: no `<` at all, so neither `</script>` nor `<!--` can end or bend it. */
export function inlineJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');


export interface RenderInput {
  html: string;
  manifest: Manifest | null;
  pathname: string;
  language: Language;
  config: ReturnType<typeof runtimeConfig>;
  company: Company | null;
  /** The page's first screen rendered by the SPA's own components (src/ssr.tsx), if any. */
  firstPaint?: FirstPaint | null;
  /**
   * A build's precompiled catalogue (`<area>/<language>`), or null when it has none:
   * the page then preloads the catalogue's chunk instead.
   */
  catalogue?: (key: string) => object | null;
  /** A private page's words until its script runs ("Opening your case…"), in the page's language. */
  opening?: string;
  /** The build's recorded digests (server/integrity.ts): every preload it names carries its `integrity`. */
  integrity?: IntegrityOf | null;
}

/** What src/ssr.tsx gives (kept in step by hand: the bundle is loaded at run time). */
export interface FirstPaint {
  html: string;
  themeStyle: string;
  title: string | null;
}
type RenderFirstPaint = (input: { pathname: string; host: string; boot: BootInput }) => Promise<FirstPaint | null>;
export interface BootInput {
  config: ReturnType<typeof runtimeConfig>;
  language: Language;
  lookAndFeel: unknown;
  companyInfo: unknown;
}

/** The id of the first-paint picture the SPA replaces with its own tree (src/app/firstPaint.ts). */
export const FIRST_PAINT_ELEMENT_ID = 'wb-first-paint';

/**
 * The rendered first screen as a picture: hidden from assistive technology and inert
 * (the real, working page replaces it within moments), with no ids, test ids or form
 * names, so nothing in it is confused with the live page while both are in the document.
 */
export function firstPaintPicture(html: string): string {
  return html
    // No script (the CSP would refuse an inline one anyway) and no resource hints:
    // the head has them.
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, '')
    .replace(/<link\b[^>]*>/gi, '').replace(/\s(?:id|data-testid|name|for|aria-labelledby|aria-describedby|aria-controls)="[^"]*"/g, '').replace(/\sautofocus(?:="[^"]*")?/g, '');
}

/** The boot data for one host and language (also the first-paint render's input). */
export function bootData(company: Company | null, language: Language, config: ReturnType<typeof runtimeConfig>): BootInput {
  const attempt = <T,>(f: () => T): T | null => {
    try {
      return f();
    } catch {
      return null;
    }
  };
  const lookAndFeel = company ? attempt(() => lookAndFeelResponse(company.settings, language, company.settings.logoFileName)) : null;
  return { config, language, lookAndFeel, companyInfo: company ? attempt(() => companyInfoResponse(company)) : null };
}

/**
 * index.html for one host, language and route, and the CSP sources (hashes) of the
 * inline scripts it wrote, which its response must allow.
 */
export function renderIndex({ html, manifest, pathname, language, config, company, firstPaint, catalogue = () => null, opening, integrity }: RenderInput): { html: string; scriptSources: string[] } {
  // A company whose settings the API cannot answer (it then answers 500) gets no
  // inline copy: the SPA fetches and meets the same failure as without inlining.
  const boot: BootInput & { catalogues?: Record<string, unknown> } = bootData(company, language, config);
  const lookAndFeel = boot.lookAndFeel as ReturnType<typeof lookAndFeelResponse> | null;
  const head: string[] = [];
  let out = html;
  if (manifest) {
    // The route's catalogues travel in the boot JSON, not as chunks of their own: each
    // request beside the entry slows the entry on a slow phone's link, and a
    // catalogue is a few kB (performance.md, eleventh round).
    const { js, css, catalogues } = routePreloads(manifest, pathname, language, (key) => catalogue(key) !== null);
    const sri = (f: string) => {
      const value = integrity?.(`/${f}`);
      return value ? ` integrity="${escapeAttr(value)}"` : '';
    };
    for (const f of css) head.push(`<link rel="stylesheet" crossorigin href="/${escapeAttr(f)}"${sri(f)}>`);
    for (const f of js) head.push(`<link rel="modulepreload" crossorigin href="/${escapeAttr(f)}"${sri(f)}>`);
    // `catalogue` is the build's cache: asking again reads nothing.
    if (catalogues.length) boot.catalogues = Object.fromEntries(catalogues.map((key) => [key, catalogue(key)]));
  }
  if (lookAndFeel?.logoFileName) {
    head.push(`<link rel="preload" as="image" href="/api/public/site-look-and-feel/logo/${encodeURIComponent(lookAndFeel.logoFileName)}">`);
  }
  const scriptSources: string[] = [];
  if (firstPaint) {
    head.unshift(`<script>${FIRST_PAINT_GATE_JS}</script>`);
    scriptSources.push(FIRST_PAINT_GATE_SOURCE);
  }
  head.push(`<script type="application/json" id="${BOOT_ELEMENT_ID}">${inlineJson(boot)}</script>`);
  // After the boot JSON, which it reads; the route's scripts are already on their way.
  if (hasEarlyRead(pathname)) {
    head.push(`<script>${EARLY_READ_JS}</script>`);
    scriptSources.push(EARLY_READ_SOURCE);
  }
  out = out.replace(/<html([^>]*)\slang="[^"]*"/, `<html$1 lang="${language === 'se' ? 'sv' : language}"${firstPaint?.themeStyle ? ` style="${escapeAttr(firstPaint.themeStyle)}"` : ''}`);
  if (opening && !firstPaint) {
    // A private page has no picture: until its script runs (seconds on a slow phone,
    // right after the password) it says what is happening instead of a blank screen.
    // React's first render replaces it.
    out = out.replace('<div id="root"></div>', `<div id="root"><p role="status" class="wb-opening">${escapeAttr(opening)}</p></div>`);
  }
  if (firstPaint) {
    out = out.replace(
      '<div id="root"></div>',
      `<div id="${FIRST_PAINT_ELEMENT_ID}" aria-hidden="true" inert>${firstPaintPicture(firstPaint.html)}</div><div id="root" hidden></div>`,
    );
  }
  const description = lookAndFeel?.siteFrontPage.subHeading || lookAndFeel?.siteFrontPage.heading;
  if (description) out = out.replace(/<meta name="description" content="[^"]*"\s*\/?>/, `<meta name="description" content="${escapeAttr(description.slice(0, 300))}" />`);
  const at = out.indexOf('</head>');
  const block = head.join('\n    ');
  return { html: at >= 0 ? `${out.slice(0, at)}  ${block}\n  ${out.slice(at)}` : `${block}\n${out}`, scriptSources };
}

/** Which build's first-paint bundle this process has loaded (one per process: see renderFirstPaint). */
let loadedFirstPaintBuild: string | null = null;

/** Beyond this a stylesheet stays a file of its own: the HTML is sent on every visit. */
const INLINE_CSS_MAX_BYTES = 64 * 1024;

/**
 * The build's stylesheet (one for the whole SPA, vite.config.ts) written into the
 * HTML instead of linked: it is render-blocking, so as a file it cost the first paint
 * a round trip of its own on a slow phone, for ≈ 6 kB Brotli (performance.md, fifth
 * round). The SPA navigates without reloading the HTML, so nothing is lost to caching.
 * The CSP allows inline styles. A stylesheet that cannot be read, is larger than the
 * cap, or could close the element stays a link.
 */
export function inlineStylesheets(html: string, distDir: string): string {
  return html.replace(/<link rel="stylesheet" crossorigin href="\/(assets\/[\w.-]+\.css)">/g, (tag, file: string) => {
    try {
      const css = readFileSync(path.join(distDir, file), 'utf8');
      if (Buffer.byteLength(css) > INLINE_CSS_MAX_BYTES || /<\/style/i.test(css)) return tag;
      return `<style>${css}</style>`;
    } catch {
      return tag;
    }
  });
}

/**
 * The manifest with an entry for each route component that a group chunk holds
 * (`groupedRoutesFile`): the group chunk's own entry under the route's key, so the
 * route's chunks are found and preloaded. A missing or unreadable file adds nothing.
 */
export function withGroupedRoutes(manifest: Manifest, file: string): Manifest {
  try {
    const grouped = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    for (const [key, chunkKey] of Object.entries(grouped)) {
      const chunk = typeof chunkKey === 'string' ? manifest[chunkKey] : undefined;
      if (chunk && !(key in manifest)) manifest[key] = chunk;
    }
  } catch {
    // An older build: its route components all have entries of their own.
  }
  return manifest;
}

/** One page of the build (index.html, private.html or report.html) and its Vite manifest as built, re-read when the page changes (a rebuild under a running server). */
class BuiltFiles {
  private mtime = -1;
  html = '';
  manifest: Manifest | null = null;
  /** The build's recorded digests, and the CSP sources of what `html` holds inline (its import map). */
  integrity: BuildIntegrity | null = null;
  templateSources: string[] = [];
  /** The import map at the body's end (server/integrity.ts), which the first round trip need not carry. */
  laterMap: string | null = null;
  /** The first-paint renderer of this build (dist/.ssr/ssr.js), loaded on first use. */
  private firstPaint: Promise<RenderFirstPaint | null> | null = null;
  constructor(
    private readonly distDir: string,
    private readonly page: SpaPage = 'index',
  ) {}

  renderFirstPaint(): Promise<RenderFirstPaint | null> {
    // Node keeps a module for the life of the process, and the bundle's chunks import
    // its entry by its plain path: a build made after the first load is not loaded
    // again, so its pages get no first paint (rather than one with old class names)
    // until the server restarts.
    if (loadedFirstPaintBuild !== null && loadedFirstPaintBuild !== `${this.distDir}|${this.mtime}`) return Promise.resolve(null);
    this.firstPaint ??= (async () => {
      const file = path.join(this.distDir, '.ssr', 'ssr.js');
      if (!existsSync(file)) return null;
      loadedFirstPaintBuild = `${this.distDir}|${this.mtime}`;
      try {
        const mod = (await import(pathToFileURL(file).href)) as { renderFirstPaint?: RenderFirstPaint };
        return mod.renderFirstPaint ?? null;
      } catch {
        return null;
      }
    })();
    return this.firstPaint;
  }
  /** True when the files changed since the last call. */
  refresh(): boolean {
    // A rebuild under a running server removes the pages for a few seconds (the first
    // build empties dist): what was read stays in use until the new page is there.
    let m: number;
    let html: string;
    try {
      // The digests are written last (npm run build): a page read before them is read again once they are there.
      m = statSync(path.join(this.distDir, `${this.page}.html`)).mtimeMs + integrityMtime(this.distDir);
      if (m === this.mtime) return false;
      html = readFileSync(path.join(this.distDir, `${this.page}.html`), 'utf8');
    } catch {
      return false;
    }
    const mf = path.join(this.distDir, manifestFile(this.page));
    let graph: Manifest | null = null;
    try {
      graph = existsSync(mf) ? (JSON.parse(readFileSync(mf, 'utf8')) as Manifest) : null;
      this.manifest = graph ? withGroupedRoutes({ ...graph }, path.join(this.distDir, groupedRoutesFile(this.page))) : null;
    } catch {
      this.manifest = null;
    }
    this.integrity = readIntegrity(this.distDir);
    const scripts = graph ? reachableScripts(graph) : { firstLoad: [], later: [] };
    const pinned = this.integrity ? withIntegrity(inlineStylesheets(html, this.distDir), this.integrity.of, scripts.firstLoad, scripts.later) : null;
    this.html = pinned?.html ?? inlineStylesheets(html, this.distDir);
    this.templateSources = pinned?.sources ?? [];
    this.laterMap = pinned?.tail ?? null;
    this.mtime = m;
    this.firstPaint = null;
    this.catalogues.clear();
    return true;
  }

  private readonly catalogues = new Map<string, object | null>();
  /** A precompiled catalogue of this build (`<area>/<language>`, CATALOGUES_DIR), read once; null if it has none. */
  catalogue(key: string): object | null {
    let messages = this.catalogues.get(key);
    if (messages === undefined) {
      messages = null;
      if (/^[a-z]+\/[a-z]{2}$/.test(key)) {
        try {
          const data = JSON.parse(readFileSync(path.join(this.distDir, CATALOGUES_DIR, `${key}.json`), 'utf8')) as unknown;
          if (data && typeof data === 'object' && !Array.isArray(data)) messages = data;
        } catch {
          // No such file (an older build, the Vite dev server): the chunk is preloaded.
        }
      }
      this.catalogues.set(key, messages);
    }
    return messages;
  }
}

/**
 * The pictures are drawn against this API address and given the request's own when
 * the page is put together (`withApiBase`), so a picture depends only on the company,
 * language and path: Host header variants (ports, case) cost no new drawing.
 */
const PICTURE_CONFIG_API = { protocol: 'http', host: 'wb-first-paint.invalid', port: 80 };
const PICTURE_API_BASE = apiBaseUrlOf({ api: PICTURE_CONFIG_API })!;

/** A picture with the request's API address in place of the one it was drawn with. */
export function withApiBase(picture: FirstPaint | null, config: ReturnType<typeof runtimeConfig>): FirstPaint | null {
  return picture && { ...picture, html: picture.html.split(PICTURE_API_BASE).join(escapeAttr(apiBaseUrlOf(config) ?? FALLBACK_API_BASE_URL)) };
}

/**
 * What a page's compressed body may weigh to arrive in the first round trip of a new
 * connection: ten TCP segments (14,600 bytes) less ≈ 1 kB of response headers (the
 * CSP is most of them). One byte over costs a slow phone a whole round trip before
 * anything can paint.
 */
const FIRST_ROUND_TRIP_BYTES = 13_500;
/**
 * Which catalogues a page carries, tried in turn until its body fits the first round
 * trip: all of the route's, then the frame's (`common`) alone, then none (their chunks
 * are preloaded instead). If none fits, the first is kept: the round trip is lost
 * anyway, and each inlined catalogue is one request fewer beside the entry.
 */
const CATALOGUE_CHOICES: ReadonlyArray<(key: string) => boolean> = [() => true, (key) => key.startsWith('common/'), () => false];

/** Pictures kept per company: its languages times the route files, nothing an attacker can grow. */
const MAX_PICTURES_PER_COMPANY = 400;

/**
 * The picture of one page, drawn once per company object, language and path and kept
 * (null too); a failing renderer costs the picture, never the page. Only paths whose
 * own route file exists are drawn, so made-up paths cost nothing.
 */
function pictureOf(built: BuiltFiles, pictures: WeakMap<Company, Map<string, Promise<FirstPaint | null>>>, company: Company, pathname: string, host: string, language: Language, config: ReturnType<typeof runtimeConfig>): Promise<FirstPaint | null> {
  const manifest = built.manifest;
  if (!manifest || !routeSources(pathname).slice(-2).some((src) => `${src}?tsr-split=component` in manifest)) return Promise.resolve(null);
  let forCompany = pictures.get(company);
  if (!forCompany) pictures.set(company, (forCompany = new Map()));
  const key = `${language}|${pathname}`;
  let picture = forCompany.get(key);
  if (!picture) {
    if (forCompany.size >= MAX_PICTURES_PER_COMPANY) return Promise.resolve(null);
    const boot = bootData(company, language, { ...config, api: PICTURE_CONFIG_API });
    picture = (async () => {
      try {
        const render = await built.renderFirstPaint();
        return render ? await render({ pathname, host, boot }) : null;
      } catch {
        return null;
      }
    })();
    forCompany.set(key, picture);
  }
  return picture;
}

/** Rendered pages kept per company object (a re-imported company is a new object) and request shape. */
const MAX_RENDERED = 500;

export interface Spa {
  /** True when a build is being served. */
  hasDist: boolean;
  /** True when the handlers' workspace is built too (dist/handler, vite.handler.config.ts). */
  hasHandlerDist: boolean;
  /** Answers a client-side route with index.html. */
  sendIndex(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>;
  /** Answers a route of the handlers' workspace with handler.html, its scripts pinned by their digests. */
  sendHandler(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>;
  /**
   * The landing page of `company` (an unsaved draft of the company editor) in
   * `language`, drawn by the first-paint renderer, without any script: a picture for
   * the editor's preview frame (docs/decisions/company-editor.md). Null without a build.
   */
  renderPreview(req: FastifyRequest, company: Company, language: Language, imageUrl: (logoFileName: string) => string): Promise<string | null>;
}

/** A first-paint picture as a page of its own: the build's styles, no script, nothing to click. */
export function previewPage(html: string, css: readonly string[], picture: FirstPaint, language: Language): string {
  let out = html
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, '')
    .replace(/<link\b(?![^>]*rel="stylesheet")[^>]*>/gi, '')
    .replace(/<html([^>]*)\slang="[^"]*"/, `<html$1 lang="${language === 'se' ? 'sv' : language}"${picture.themeStyle ? ` style="${escapeAttr(picture.themeStyle)}"` : ''}`)
    .replace('<div id="root"></div>', `<div inert>${firstPaintPicture(picture.html)}</div>`);
  if (picture.title) out = out.replace(/<title>[^<]*<\/title>/, `<title>${escapeAttr(picture.title)}</title>`);
  const links = css.map((f) => `<link rel="stylesheet" href="/${escapeAttr(f)}">`).join('');
  return links ? out.replace('</head>', `${links}</head>`) : out;
}

/**
 * The handlers' page as built, with `integrity` on its scripts and stylesheets and an
 * import map of every script of its build (dist/handler/assets: one build, one page),
 * re-read when the page changes.
 */
class HandlerPage {
  private mtime = -1;
  page: (Representation & { policy?: string }) | null = null;
  constructor(
    private readonly distDir: string,
    private readonly securityPolicy?: string,
  ) {}
  get(): (Representation & { policy?: string }) | null {
    const file = path.join(this.distDir, 'handler', 'handler.html');
    try {
      const m = statSync(file).mtimeMs + integrityMtime(this.distDir);
      if (m === this.mtime && this.page) return this.page;
      const html = readFileSync(file, 'utf8');
      const integrity = readIntegrity(this.distDir);
      const pinned = integrity ? withIntegrity(html, integrity.of, integrity.paths.filter((p) => p.startsWith('/handler/assets/') && p.endsWith('.js'))) : { html, sources: [] };
      this.page = { ...representation(pinned.html), policy: this.securityPolicy && pinned.sources.length ? cspWithScripts(this.securityPolicy, pinned.sources) : undefined };
      this.mtime = m;
    } catch {
      // Mid-rebuild: what was read stays in use.
    }
    return this.page;
  }
}

export async function registerSpa(app: FastifyInstance, ctx: AppContext, securityPolicy?: string): Promise<Spa> {
  app.get('/robots.txt', async (req, reply) => {
    const host = requestHost(req);
    const company = host ? await companyByHost(ctx.db, host) : null;
    return reply.type('text/plain; charset=utf-8').header('cache-control', 'public, max-age=300').send(robotsTxt(company?.settings.allowIndexing === true));
  });

  const distDir = ctx.config.distDir;
  const hasDist = existsSync(path.join(distDir, 'index.html'));
  const hasHandlerDist = existsSync(path.join(distDir, 'handler', 'handler.html'));
  if (!hasDist) return { hasDist, hasHandlerDist: false, sendIndex: async (_req, reply) => reply.status(404).send(), sendHandler: async (_req, reply) => reply.status(404).send(), renderPreview: async () => null };

  await app.register(fastifyStatic, {
    root: distDir,
    wildcard: false,
    index: false,
    cacheControl: false,
    preCompressed: true,
    // The hashed files are answered from memory below.
    globIgnore: ['assets/**', 'handler/assets/**'],
    // The compressed copies are variants, not resources of their own; index.html is
    // rendered per request below; the build manifest is for the server only.
    // No dot-folder or dotfile anywhere (`.vite/`, `.ssr/`, `handler/.vite/`: build data).
    allowedPath: (pathName) => !/\.(?:br|gz)$/.test(pathName) && !SPA_PAGES.has(pathName) && !/(?:^|\/)\./.test(pathName),
    setHeaders: (reply, filePath) => {
      // Hashed names: the reporter's assets/ and the handlers' handler/assets/.
      const parts = path.relative(distDir, filePath).split(path.sep);
      const inAssets = parts[0] === 'assets' || (parts[0] === 'handler' && parts[1] === 'assets');
      reply.header('cache-control', inAssets ? IMMUTABLE : 'no-cache');
    },
  });

  // Hashed build files from memory, as a CDN would answer them (server/hashedAssets.ts).
  // Not through the compression plug-in: each is sent in the encoding built for it.
  const hashed = new HashedAssets(distDir);
  for (const folder of ['assets', 'handler/assets'] as const) {
    app.get(`/${folder}/:name`, { compress: false }, async (req, reply) => {
      const asset = await hashed.get(folder, (req.params as { name: string }).name);
      if (!asset) return reply.callNotFound();
      reply.header('cache-control', IMMUTABLE);
      return sendRepresentation(req, reply, asset, asset.type);
    });
  }

  const built = new BuiltFiles(distDir);
  // The private area's and the report forms' pages, when this build has them (an older
  // build answers every path with index.html).
  const ownPages = new Map<SpaPage, BuiltFiles>();
  for (const page of ['private', 'report'] as const) if (existsSync(path.join(distDir, `${page}.html`))) ownPages.set(page, new BuiltFiles(distDir, page));
  let rendered = new WeakMap<Company, Map<string, Representation & { policy?: string }>>();
  let renderedCount = 0;
  let pictures = new WeakMap<Company, Map<string, Promise<FirstPaint | null>>>();
  const handlerPage = new HandlerPage(distDir, securityPolicy);
  return {
    hasDist,
    hasHandlerDist,
    sendHandler: async (req, reply) => {
      const page = handlerPage.get();
      if (!page) return reply.status(404).send();
      reply.header('cache-control', 'no-cache');
      if (page.policy) reply.header('content-security-policy', page.policy);
      return sendRepresentation(req, reply, page, 'text/html; charset=utf-8');
    },
    renderPreview: async (req, company, language, imageUrl) => {
      built.refresh();
      if (!built.html) return null;
      const config = runtimeConfig(ctx, req);
      const render = await built.renderFirstPaint();
      const boot = bootData(company, language, { ...config, api: PICTURE_CONFIG_API });
      const drawn = render ? await render({ pathname: '/', host: requestHost(req), boot }).catch(() => null) : null;
      const picture = withApiBase(drawn, config);
      if (!picture) return null;
      // The draft's logo may be unsaved: the editor's own image route serves it to the editor.
      const name = company.settings.logoFileName;
      const logoPath = `/api/public/site-look-and-feel/logo/${encodeURIComponent(name)}`;
      const base = escapeAttr(apiBaseUrlOf(config) ?? FALLBACK_API_BASE_URL);
      const html = picture.html.split(`${base}${logoPath}`).join(escapeAttr(imageUrl(name))).split(logoPath).join(escapeAttr(imageUrl(name)));
      const css = built.manifest ? routePreloads(built.manifest, '/', language, () => false).css : [];
      return previewPage(built.html, css, { ...picture, html }, language);
    },
    sendIndex: async (req, reply) => {
      // Every page is checked on every request: a rebuild replaces them together.
      if ([built, ...ownPages.values()].map((b) => b.refresh()).some(Boolean)) {
        rendered = new WeakMap();
        renderedCount = 0;
        pictures = new WeakMap();
      }
      const host = requestHost(req);
      const company = host ? await companyByHost(ctx.db, host) : null;
      const pathname = (req.url.split('?')[0] ?? '/').replace(/\/+$/, '') || '/';
      // The path's own page once it has been read; until then (or in a build without it) index.html.
      const own = ownPages.get(spaPageFor(pathname));
      const spa = own?.html ? own : built;
      const language = browserLanguage(req.headers['accept-language'], company?.settings);
      const config = runtimeConfig(ctx, req);
      const key = `${req.protocol}|${req.host}|${language}|${pathname}`;
      let rep = company ? rendered.get(company)?.get(key) : undefined;
      if (!rep) {
        // Only a known company's known pages get a first paint (an unknown host or path
        // costs no drawing); src/ssr.tsx answers null for anything else it should not draw.
        const firstPaint = company ? withApiBase(await pictureOf(built, pictures, company, pathname, host ?? '', language, config), config) : null;
        // Kept only for a known company (below): an unknown host's page is made per request.
        const quality = company ? 11 : 5;
        let page!: ReturnType<typeof renderIndex>;
        let made!: Representation;
        let madeFirstBytes = 0;
        for (const inline of CATALOGUE_CHOICES) {
          const opening = isPrivatePath(pathname) ? ((spa.catalogue(`common/${language}`) as Record<string, unknown> | null)?.['page.openingCase'] as string | undefined) : undefined;
          const candidate = renderIndex({ html: spa.html, manifest: spa.manifest, pathname, language, config, company, firstPaint, catalogue: (key) => (inline(key) ? spa.catalogue(key) : null), opening, integrity: spa.integrity?.of });
          const compressed = representation(candidate.html, quality);
          // What the first paint needs: the page up to the later chunks' import map at its end.
          const firstBytes = spa.laterMap ? brotliSize(candidate.html.replace(spa.laterMap, ''), quality) : (compressed.br?.length ?? 0);
          if (!made || firstBytes <= FIRST_ROUND_TRIP_BYTES) [page, made, madeFirstBytes] = [candidate, compressed, firstBytes];
          if (madeFirstBytes <= FIRST_ROUND_TRIP_BYTES) break;
        }
        const sources = [...spa.templateSources, ...page.scriptSources];
        rep = { ...made, policy: securityPolicy && sources.length ? cspWithScripts(securityPolicy, sources) : undefined };
        // Only known companies are kept: an unknown Host header costs a render, never memory.
        if (company) {
          if (renderedCount >= MAX_RENDERED) {
            rendered = new WeakMap();
            renderedCount = 0;
          }
          let forCompany = rendered.get(company);
          if (!forCompany) rendered.set(company, (forCompany = new Map()));
          forCompany.set(key, rep);
          renderedCount++;
        }
      }
      // The SPA decides what the path means, including not-found; the page is
      // revalidated on every visit, so a deploy or a company import is seen at once.
      reply.header('cache-control', 'no-cache');
      reply.header('vary', 'accept-language');
      if (rep.policy) reply.header('content-security-policy', rep.policy);
      // The microphone only where a voice message is recorded, for a company that takes them.
      if (company && allowsMicrophone(pathname, company.settings)) reply.header('permissions-policy', MICROPHONE_ALLOWED_POLICY);
      return sendRepresentation(req, reply, rep, 'text/html; charset=utf-8');
    },
  };
}
