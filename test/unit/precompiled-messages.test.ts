/**
 * The build's message compiler (scripts/precompileMessages.ts): every message of every
 * SPA catalogue, in every language, formats the same from the catalogue the build
 * ships (ICU messages already parsed) as from its source text, through the runtime's
 * own formatMessage; plain messages stay text, so the landing still needs no formatter.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { IntlMessageFormat } from 'intl-messageformat';
import { precompileCatalogue, precompiledMessages } from '../../scripts/precompileMessages.ts';
import { formatMessage, isSimpleMessage, loadCatalogue, loadProvidedCatalogues, provideCatalogues, registerCatalogues, type Catalogue } from '../../src/i18n/index.ts';
import { LANGUAGES, type Language } from '../../machines/languages.ts';

const root = path.resolve(import.meta.dirname, '../../src/i18n');
const areas = readdirSync(root, { withFileTypes: true })
  .filter((d) => d.isDirectory() && readdirSync(path.join(root, d.name)).some((f) => f.endsWith('.json')))
  .map((d) => d.name);
const source = (area: string, lang: Language) =>
  JSON.parse(readFileSync(path.join(root, area, `${lang}.json`), 'utf8')) as Record<string, string>;

type Element = ReturnType<IntlMessageFormat['getAst']>[number];
// @formatjs/icu-messageformat-parser's TYPE.
const T = { argument: 1, number: 2, date: 3, time: 4, select: 5, plural: 6, tag: 8 } as const;
const COUNTS = [0, 1, 2, 3, 5, 11, 22, 1.5];
const WHEN = new Date(Date.UTC(2026, 10, 25, 13, 5));

/** Several sets of values for a message: every plural count kind, every select option. */
function valueSets(ast: Element[]): Record<string, unknown>[] {
  const args = new Map<string, (i: number) => unknown>();
  const walk = (els: Element[]) => {
    for (const el of els) {
      if (el.type === T.argument) args.set(el.value, () => `<${el.value}>`);
      if (el.type === T.number) args.set(el.value, (i) => COUNTS[i % COUNTS.length]);
      if (el.type === T.date || el.type === T.time) args.set(el.value, () => WHEN);
      if (el.type === T.plural) args.set(el.value, (i) => COUNTS[i % COUNTS.length]);
      if (el.type === T.select) {
        const keys = Object.keys(el.options);
        args.set(el.value, (i) => keys[i % keys.length]);
      }
      if (el.type === T.plural || el.type === T.select) for (const o of Object.values(el.options)) walk(o.value);
      if (el.type === T.tag) {
        args.set(el.value, () => (chunks: unknown[]) => `[${chunks.join('')}]`);
        walk(el.children);
      }
    }
  };
  walk(ast);
  return COUNTS.map((_, i) => Object.fromEntries([...args].map(([name, v]) => [name, v(i)])));
}

describe('ICU messages parsed at build time', () => {
  it('formats every message of every catalogue, in every language, as its source text does', async () => {
    // Loading a catalogue with a plural loads the formatter the runtime uses.
    registerCatalogues('test-plural', { './en.json': async () => ({ default: { n: '{n, plural, one {#} other {#}}' } }) });
    await loadCatalogue('test-plural', 'en');
    let parsed = 0;
    let formatted = 0;
    for (const area of areas) {
      for (const lang of LANGUAGES) {
        const text = source(area, lang);
        const built = precompileCatalogue(text, lang);
        expect(Object.keys(built)).toEqual(Object.keys(text));
        for (const [key, message] of Object.entries(text)) {
          const shipped = built[key]!;
          if (isSimpleMessage(message)) {
            expect(shipped, `${area}/${lang} ${key}`).toBe(message);
            continue;
          }
          expect(Array.isArray(shipped), `${area}/${lang} ${key}`).toBe(true);
          parsed++;
          for (const values of valueSets(shipped as Element[])) {
            const fromText = formatMessage(lang, [text as Catalogue], key, values as never);
            expect(formatMessage(lang, [built], key, values as never), `${area}/${lang} ${key} ${JSON.stringify(values)}`).toBe(fromText);
            formatted++;
          }
        }
      }
    }
    // The forms', private area's and handlers' plurals, in seven languages.
    expect(parsed).toBeGreaterThan(100);
    expect(formatted).toBe(parsed * COUNTS.length);
  });

  it('a message that needs the formatter really differs by value (the comparison above can fail)', () => {
    const built = precompileCatalogue({ files: '{n, plural, one {# fil} other {# filer}}' }, 'da');
    expect(formatMessage('da', [built], 'files', { n: 1 })).toBe('1 fil');
    expect(formatMessage('da', [built], 'files', { n: 3 })).toBe('3 filer');
  });

  it('the build plugin rewrites the SPA catalogues only, and points the bundles at the parser-less build', () => {
    const plugin = precompiledMessages();
    const transform = plugin.transform as (code: string, id: string) => { code: string } | null;
    const file = path.join(root, 'private', 'pl.json');
    const code = readFileSync(file, 'utf8');
    const out = transform.call({}, code, file);
    expect(JSON.parse(out!.code)).toEqual(JSON.parse(JSON.stringify(precompileCatalogue(JSON.parse(code), 'pl'))));
    expect(transform.call({}, '{"name":"x"}', path.resolve(root, '../../package.json'))).toBeNull();
    expect(transform.call({}, code, path.resolve(root, '../../server/mail/i18n/pl.json'))).toBeNull();
    expect(plugin.apply).toBe('build');
    const config = (plugin.config as () => { resolve: { alias: { find: RegExp; replacement: string }[] } })();
    const [alias] = config.resolve.alias;
    expect(alias!.find.test('@formatjs/icu-messageformat-parser')).toBe(true);
    expect(alias!.find.test('@formatjs/icu-messageformat-parser/printer.js')).toBe(false);
    expect(alias!.replacement).toBe('@formatjs/icu-messageformat-parser/no-parser.js');
  });

  it('the build plugin also hands the server each catalogue it rewrote, as the same JSON, beside the manifest', () => {
    const plugin = precompiledMessages();
    const transform = plugin.transform as (code: string, id: string) => { code: string } | null;
    const file = path.join(root, 'forms', 'de.json');
    (plugin.buildStart as () => void).call({});
    const out = transform.call({}, readFileSync(file, 'utf8'), file);
    const emitted: { fileName: string; source: string }[] = [];
    (plugin.generateBundle as () => void).call({ emitFile: (f: { fileName: string; source: string }) => emitted.push(f) });
    expect(emitted).toEqual([{ type: 'asset', fileName: '.vite/catalogues/forms/de.json', source: out!.code }]);
  });
});

describe('catalogues the page carries', () => {
  it('are formatted from the page, without their chunk; anything else falls back to the chunk', async () => {
    let fetched = 0;
    registerCatalogues('carried', { './en.json': async () => (fetched++, { hello: 'from the chunk' }), './da.json': async () => (fetched++, { hello: 'fra filen' }) });
    const built = precompileCatalogue({ hello: 'Hello {name}', files: '{n, plural, one {# file} other {# files}}' }, 'en');
    provideCatalogues({ 'carried/en': built, 'carried/da': ['not', 'a catalogue'], 'carried/xx': { hello: 'no language' }, '../carried/en': built, 'carried/pl': null });
    const en = await loadCatalogue('carried', 'en');
    expect(fetched).toBe(0);
    expect(formatMessage('en', [en], 'hello', { name: 'Ada' })).toBe('Hello Ada');
    expect(formatMessage('en', [en], 'files', { n: 2 })).toBe('2 files');
    expect(formatMessage('da', [await loadCatalogue('carried', 'da')], 'hello')).toBe('fra filen');
    expect(fetched).toBe(1);
  });

  it('the page\'s catalogues in its language are ready before the first render, so use() does not suspend on them', async () => {
    let fetched = 0;
    registerCatalogues('early', { './en.json': async () => (fetched++, { hi: 'chunk' }), './se.json': async () => (fetched++, { hi: 'chunk' }) });
    registerCatalogues('later', { './en.json': async () => (fetched++, { hi: 'chunk' }) });
    provideCatalogues({ 'early/en': { hi: 'Hi {name}' }, 'early/se': { hi: 'Hej' } });
    await loadProvidedCatalogues('en');
    // React's use() reads a promise's status: fulfilled means no suspension.
    expect((loadCatalogue('early', 'en') as { status?: string }).status).toBe('fulfilled');
    // Only what the page brought, and only in the language asked for: nothing fetched.
    expect(fetched).toBe(0);
    expect((loadCatalogue('early', 'se') as { status?: string }).status).toBe('pending');
    expect((loadCatalogue('later', 'en') as { status?: string }).status).toBe('pending');
  });
});
