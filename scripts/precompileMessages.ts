/**
 * Build step: the catalogues' ICU messages are parsed when the SPA is built, not in
 * the reporter's phone. A message that needs intl-messageformat (a plural, a select,
 * a number or date format, a quote) is written into its catalogue chunk as the AST
 * intl-messageformat would have parsed from it in that language; every other message
 * stays text, formatted by substitution (src/i18n/message.ts decides which, for both).
 *
 * With no text left to parse, the client bundles take formatjs's `no-parser` build of
 * the parser package: the ICU parser and its skeleton parser (≈ 47 kB minified, 12 kB
 * Brotli) leave every route that formats a plural; what is left of the formatter is
 * ≈ 12 kB minified. A message that reached the runtime unparsed would throw, so the
 * browser tests, which run this build, would see it. Development and the unit tests
 * keep the parser and the text catalogues. See docs/decisions/spa-bundle.md.
 */
import { IntlMessageFormat } from 'intl-messageformat';
import type { Plugin } from 'vite';
import { LANGUAGES, type Language } from '../machines/languages.ts';
import { isSimpleMessage, toBcp47, type Message } from '../src/i18n/message.ts';
import { CATALOGUES_DIR } from '../core/boot.ts';

/** A catalogue file of the SPA: src/i18n/<area>/<language>.json. */
const CATALOGUE = /\/src\/i18n\/([a-z]+)\/([a-z]{2})\.json$/;


/** One catalogue with its ICU messages parsed as the runtime would parse them in `lang`. */
export function precompileCatalogue(catalogue: Record<string, string>, lang: Language): Record<string, Message> {
  return Object.fromEntries(
    Object.entries(catalogue).map(([key, text]) => [key, isSimpleMessage(text) ? text : new IntlMessageFormat(text, toBcp47(lang)).getAst()]),
  );
}

export function precompiledMessages(): Plugin {
  const compiled = new Map<string, string>();
  let writeData = true;
  return {
    name: 'wb-precompiled-messages',
    apply: 'build',
    // Before Vite's own JSON plugin, which turns the JSON this returns into a module.
    enforce: 'pre',
    config: () => ({
      resolve: {
        alias: [{ find: /^@formatjs\/icu-messageformat-parser$/, replacement: '@formatjs/icu-messageformat-parser/no-parser.js' }],
      },
    }),
    configResolved(config) {
      // Only the build that writes a manifest (the reporter SPA's) is one the server
      // renders pages from; the first-paint and handler builds keep no copy.
      writeData = Boolean(config.build.manifest) && !config.build.ssr;
    },
    buildStart() {
      compiled.clear();
    },
    transform(code, id) {
      const match = CATALOGUE.exec(id.split('?')[0] ?? '');
      const lang = match?.[2];
      if (!match || !lang || !(LANGUAGES as readonly string[]).includes(lang)) return null;
      const json = JSON.stringify(precompileCatalogue(JSON.parse(code) as Record<string, string>, lang as Language));
      compiled.set(`${match[1]}/${lang}`, json);
      return { code: json, map: null };
    },
    // The same catalogues as data beside the manifest, for the server to write into a
    // page's boot JSON (server/spa.ts): a first load then asks for no catalogue chunk.
    // `.vite/` is never served.
    generateBundle() {
      if (!writeData) return;
      for (const [key, json] of compiled) this.emitFile({ type: 'asset', fileName: `${CATALOGUES_DIR}/${key}.json`, source: json });
    },
  };
}
