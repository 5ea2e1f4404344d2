import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { vanillaExtractPlugin } from '@vanilla-extract/vite-plugin';
import { tanstackRouter } from '@tanstack/router-plugin/vite';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { precompress } from './scripts/precompress.ts';
import { precompiledMessages } from './scripts/precompileMessages.ts';
import { groupedRoutesFile, manifestFile, type SpaPage } from './core/boot.ts';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

const SHARED_MODULES = new RegExp(
  [
    'node_modules/(valibot|intl-messageformat|@formatjs)/',
    'machines/(schema|fileCheck)\\.ts',
    'src/(styles/(field|dialog)\\.css|uploads/memory|api/pow|components/(phone|phoneDefaults|TelLink|UploadProgress)(\\.css)?|i18n/(bytes|duration|metadata/index)|metadata/)',
  ].join('|'),
);

// A dialog's parts (focus trap, scroll lock, portal) apart from the small Radix base a
// collapsible needs: a signed-in status page shows collapsibles but no dialog. (The
// dialog's class names are in `shared`: the private pages' styles extend them.)
const DIALOG_MODULES = /node_modules\/(@radix-ui\/react-(dialog|alert-dialog|dismissable-layer|focus-scope|focus-guards|portal)|react-remove-scroll|react-remove-scroll-bar|use-callback-ref|use-sidecar|get-nonce|react-style-singleton|aria-hidden|tslib)\/|src\/components\/(ConfirmDialog|returnFocus)/;
// The FAQ's accordion stays with the FAQ.
const RADIX_MODULES = /node_modules\/@radix-ui\/(?!react-(dialog|alert-dialog|dismissable-layer|focus-scope|focus-guards|portal|accordion|collection|direction)\/)/;
/**
 * Routes whose component is not split off but stays in the public page's entry, by
 * route id, with their route file (manifest key).
 */
const ENTRY_ROUTES: Record<string, string> = { '/': 'src/routes/index.tsx' };
const REPORT_MODULES = /src\/(forms\/ReportPage\.tsx|routes\/(online-form|oral-report|book-meeting)\.tsx\?tsr-split=component)/;
// The private area's layout route and its status page are in it too: every sign-in
// lands there, and as two chunks of their own (0.2 and 1.3 kB Brotli) they were two
// more requests beside the entry on the signed-in page's first load.
const PRIVATE_MODULES = /src\/(private\/(?!.*\.tsx$)|private\/(Layout|PrivateIcon|StatusPage)\.tsx|routes\/private(\/status)?\.tsx\?tsr-split=component|i18n\/dates)/;

/**
 * Vite's manifest names a chunk by the module it was made for; a route component put
 * into a group chunk (PRIVATE_MODULES) then has no entry of its own, and the server
 * could not preload it (server/spa.ts, routePreloads). This writes beside the manifest
 * which group chunk holds each such route component, by the manifest's keys.
 */
function groupedRouteComponents(fileName: string, entryRouteFiles: string[]): Plugin {
  let root = process.cwd();
  let write = true;
  return {
    name: 'wb-grouped-route-components',
    apply: 'build',
    configResolved(config) {
      root = config.root;
      write = Boolean(config.build.manifest) && !config.build.ssr;
    },
    generateBundle(_options, bundle) {
      if (!write) return;
      const grouped: Record<string, string> = {};
      const keyOf = (id: string) => path.relative(root, id).split(path.sep).join('/');
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk' || (chunk.facadeModuleId && !chunk.isEntry)) continue;
        // The private page's entry holds its first routes' components (src/entries/private.ts).
        const chunkKey = chunk.isEntry && chunk.facadeModuleId ? keyOf(chunk.facadeModuleId) : `_${path.basename(chunk.fileName)}`;
        for (const id of chunk.moduleIds) {
          const key = keyOf(id);
          if (key.endsWith('?tsr-split=component')) grouped[key] = chunkKey;
          // A route left unsplit (ENTRY_ROUTES) has its component in the entry itself.
          else if (chunk.isEntry && entryRouteFiles.includes(key)) grouped[`${key}?tsr-split=component`] = chunkKey;
        }
      }
      this.emitFile({ type: 'asset', fileName, source: JSON.stringify(grouped) });
    },
  };
}

/**
 * The private page's build links the first build's stylesheet instead of its own. Both
 * hold the same rules, but in the order their entries import them, and where two rules
 * of equal specificity meet, that order decides: the private page must be drawn by the
 * same cascade as every other page. Its own stylesheet is not written.
 */
function firstBuildStylesheet(): Plugin {
  let outDir = 'dist';
  return {
    name: 'wb-first-build-stylesheet',
    apply: 'build',
    enforce: 'post',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    generateBundle(_options, bundle) {
      const indexHtml = path.join(outDir, 'index.html');
      if (!existsSync(indexHtml)) this.error(`${indexHtml} is missing: the private page is built after the first build (npm run build)`);
      const link = /<link rel="stylesheet" crossorigin href="\/assets\/[\w.-]+\.css">/;
      const first = link.exec(readFileSync(indexHtml, 'utf8'))?.[0];
      if (!first) this.error(`${indexHtml} links no stylesheet`);
      for (const [name, file] of Object.entries(bundle)) {
        if (file.type === 'asset' && name.endsWith('.css')) delete bundle[name];
        if (file.type === 'asset' && name.endsWith('.html')) {
          const html = String(file.source);
          if (!link.test(html)) this.error(`${name} links no stylesheet`);
          file.source = html.replace(link, first);
        }
      }
    },
  };
}

/**
 * The reporter's SPA. `page` names the HTML page and its entry: `index` (index.html →
 * src/main.tsx, every path but the private area's and the report forms'), `private`
 * (private.html → src/entries/private.ts, vite.private.config.ts) or `report`
 * (report.html → src/entries/report.ts, vite.report.config.ts). Each build writes its own manifest
 * and grouped-routes file; their chunks share dist/assets (equal content, equal names).
 */
export function reporterConfig(page: SpaPage) {
  // The router plugin must run before react(), or the route tree is not generated
  // before JSX is transformed (STACK.md).
  return defineConfig({
    plugins: [
      tanstackRouter({
        target: 'react',
        autoCodeSplitting: true,
        routesDirectory: 'src/routes',
        generatedRouteTree: 'src/routeTree.gen.ts',
        // The landing page's component stays in the public page's entry: it is the
        // most common first page, and as a 2 kB chunk of its own it was one more
        // request beside the entry on that first load (performance.md, sixteenth round).
        codeSplittingOptions: page === 'index' ? { splitBehavior: ({ routeId }) => (routeId in ENTRY_ROUTES ? [] : undefined) } : undefined,
      }),
      react(),
      vanillaExtractPlugin(),
      // ICU messages parsed at build time; the bundles carry no ICU parser.
      precompiledMessages(),
      // Brotli and gzip copies of every text asset, served by Accept-Encoding (server/spa.ts).
      precompress(),
      groupedRouteComponents(groupedRoutesFile(page), page === 'index' ? Object.values(ENTRY_ROUTES) : []),
      ...(page === 'index' ? [] : [firstBuildStylesheet()]),
    ],
    define: { __APP_VERSION__: JSON.stringify(pkg.version) },
    build: {
      outDir: 'dist',
      // The private page's build adds its files beside the first's.
      emptyOutDir: page === 'index',
      // Flags and images stay separate files: inlining every flag SVG would add ~50 kB gzip.
      assetsInlineLimit: 0,
      sourcemap: false,
      // The server reads it to preload each route's chunks (server/spa.ts); never served.
      manifest: manifestFile(page),
      // Every browser the portal supports has <link rel=modulepreload>.
      modulePreload: { polyfill: false },
      // One stylesheet for the whole SPA (≈ 6 kB Brotli) instead of one per chunk: a page
      // needed four to eight render-blocking requests, each a round trip on a slow phone.
      cssCodeSplit: false,
      rolldownOptions: {
        input: { [page]: `${page}.html` },
        output: {
          // Everything the entry imports statically in one chunk beside it, not in ten
          // small ones: the first load was a queue of requests (performance.md, fifth round).
          codeSplitting: {
            groups: [
              { name: 'app', tags: ['$initial'], priority: 3 },
              // The small modules the report forms share with the private area (the
              // schema and valibot, the phone link, upload progress, the ICU formatter)
              // in one chunk instead of seven: the form's first load was thirteen script
              // requests, each a round trip on a slow phone (performance.md, sixth round).
              { name: 'shared', test: SHARED_MODULES, priority: 1 },
              // Radix's base, its dialogs with what they bring (scroll lock, focus
              // guards), and the private area's own modules: each was five to eight
              // small chunks, so a signed-in page made eighteen script requests. The
              // dialogs and the OpenID client load after a status page's first screen
              // (src/private/Layout.tsx, services.ts): it shows neither.
              { name: 'dialog', test: DIALOG_MODULES, priority: 1 },
              { name: 'radix', test: RADIX_MODULES, priority: 2 },
              { name: 'private', test: PRIVATE_MODULES, priority: 1 },
              // The report routes' components are one-line stubs that render the report
              // page: with it, not a request of their own beside the entry on a form's
              // first load.
              { name: 'ReportPage', test: REPORT_MODULES, priority: 0 },
            ],
          },
        },
      },
    },
    server: { port: 5173, proxy: { '/api': 'http://localhost:9000', '/config': 'http://localhost:9000', '/idp': 'http://localhost:9000' } },
  });
}

export default reporterConfig('index');
