/**
 * Subresource integrity of the code the server names in its pages
 * (docs/decisions/code-integrity.md). The digests come from the build's record,
 * dist/manifest-sha256.json (scripts/build-manifest.mjs), never from the files as
 * they are on disk now: a chunk altered after the build is then refused by the
 * browser instead of run, and the digests a page carries are the ones an auditor
 * compares with a reproducible build of the same commit.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const INTEGRITY_MANIFEST_FILE = 'manifest-sha256.json';

/** `sha256-<base64>` by served path (`/assets/x.js`), or nothing for a path the build did not record. */
export type IntegrityOf = (servedPath: string) => string | undefined;

export interface BuildIntegrity {
  of: IntegrityOf;
  /** Every served path the build recorded. */
  paths: string[];
}

/** Integrity metadata from a hex SHA-256. */
export const sriOfHex = (hex: string): string => `sha256-${Buffer.from(hex, 'hex').toString('base64')}`;

/** Integrity metadata of bytes (the identity provider's assets, read once at start). */
export const sriOf = (bytes: string | Buffer): string => `sha256-${createHash('sha256').update(bytes).digest('base64')}`;

/** The build's record of `distDir`, or null for a build without one (it then names no integrity, and its pages say so by lacking it). */
export function readIntegrity(distDir: string): BuildIntegrity | null {
  let files: Record<string, unknown>;
  try {
    const parsed = JSON.parse(readFileSync(path.join(distDir, INTEGRITY_MANIFEST_FILE), 'utf8')) as { algorithm?: unknown; files?: unknown };
    if (parsed.algorithm !== 'sha256' || !parsed.files || typeof parsed.files !== 'object') return null;
    files = parsed.files as Record<string, unknown>;
  } catch {
    return null;
  }
  const sri = new Map<string, string>();
  for (const [p, hex] of Object.entries(files)) if (typeof hex === 'string' && /^[0-9a-f]{64}$/.test(hex)) sri.set(p, sriOfHex(hex));
  return { of: (servedPath) => sri.get(servedPath), paths: [...sri.keys()] };
}

/**
 * The page's import map: only `integrity`, for every module the page's graph can
 * fetch (static imports inside chunks and `import()` have no attribute of their own,
 * HTML's "resolve a module integrity metadata") and its workers, which
 * src/integrity/worker.ts looks up here before it runs them. Inline, so the CSP
 * allows it by its hash (`scriptSource`).
 */
export function importMap(paths: Iterable<string>, integrity: IntegrityOf): string | null {
  const entries: Record<string, string> = {};
  for (const p of [...new Set(paths)].sort()) {
    const sri = integrity(p);
    if (sri) entries[p] = sri;
  }
  if (!Object.keys(entries).length) return null;
  return JSON.stringify({ integrity: entries });
}

interface GraphChunk {
  file: string;
  imports?: string[];
  dynamicImports?: string[];
  assets?: string[];
}

/**
 * Every script a page's entry can load, as served paths under `base` (`/` or
 * `/handler/`), in two parts: `firstLoad`, the entry and what it imports statically
 * (fetched while the page is still arriving), and `later`, what those and every chunk
 * after them import dynamically, with their static imports, and the workers they start
 * (Vite lists a worker among its chunk's assets): none of it is asked for before the
 * whole page has been parsed, since module scripts run only then.
 */
export function reachableScripts(manifest: Record<string, GraphChunk>, base = '/'): { firstLoad: string[]; later: string[] } {
  const firstLoad = new Set<string>();
  const all = new Set<string>();
  const walk = (key: string, into: Set<string>, seen: Set<string>, dynamic: boolean) => {
    const chunk = manifest[key];
    if (!chunk || seen.has(key)) return;
    seen.add(key);
    into.add(`${base}${chunk.file}`);
    if (dynamic) for (const a of chunk.assets ?? []) if (a.endsWith('.js')) into.add(`${base}${a}`);
    for (const k of [...(chunk.imports ?? []), ...(dynamic ? (chunk.dynamicImports ?? []) : [])]) walk(k, into, seen, dynamic);
  };
  const entries = Object.entries(manifest).filter(([, c]) => (c as { isEntry?: boolean }).isEntry).map(([k]) => k);
  for (const k of entries) walk(k, firstLoad, new Set(), false);
  const seen = new Set<string>();
  for (const k of entries) walk(k, all, seen, true);
  const js = (p: string) => p.endsWith('.js');
  return { firstLoad: [...firstLoad].filter(js), later: [...all].filter((p) => js(p) && !firstLoad.has(p)) };
}

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/** A CSP source allowing one inline script by its SHA-256. */
export const inlineScriptSource = (js: string): string => `'sha256-${createHash('sha256').update(js).digest('base64')}'`;

/**
 * A built page (Vite's HTML) with `integrity` on its module scripts, modulepreloads and
 * stylesheets, an import map of `firstLoad` before its first module script (an import
 * map applies to modules fetched after it), and one of `later` as the body's last
 * element: the first paint's bytes (first-paint.md) do not carry the digests of chunks
 * that no first load asks for, and every module that asks for one runs after the whole
 * page is parsed, when both maps are in (HTML's merged import maps, Chromium 133).
 * `sources` are the CSP hashes the page's answer must allow; `tail` the later map's
 * element, which the first round trip's budget does not count.
 */
export function withIntegrity(html: string, integrity: IntegrityOf, firstLoad: Iterable<string>, later: Iterable<string> = []): { html: string; sources: string[]; tail: string | null } {
  const tagged = html.replace(
    /<(script type="module"|link rel="(?:modulepreload|stylesheet)")( crossorigin)? (src|href)="(\/[^"]+)">/g,
    (tag, kind: string, _cross: string | undefined, attr: string, file: string) => {
      const sri = integrity(file);
      return sri ? `<${kind} crossorigin ${attr}="${file}" integrity="${escapeAttr(sri)}">` : tag;
    },
  );
  let out = tagged;
  const sources: string[] = [];
  const map = importMap(firstLoad, integrity);
  if (map) {
    const at = out.search(/<script type="module"|<link rel="modulepreload"/);
    const element = `<script type="importmap">${map}</script>\n    `;
    out = at >= 0 ? `${out.slice(0, at)}${element}${out.slice(at)}` : out.replace('</head>', `${element}</head>`);
    sources.push(inlineScriptSource(map));
  }
  const laterMap = importMap(later, integrity);
  let tail: string | null = null;
  if (laterMap && out.includes('</body>')) {
    tail = `<script type="importmap">${laterMap}</script>`;
    out = out.replace('</body>', `  ${tail}\n  </body>`);
    sources.push(inlineScriptSource(laterMap));
  }
  return { html: out, sources, tail };
}
