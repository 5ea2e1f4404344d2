import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { vanillaExtractPlugin } from '@vanilla-extract/vite-plugin';
import { tanstackRouter } from '@tanstack/router-plugin/vite';
import { readFileSync } from 'node:fs';
import { precompress } from './scripts/precompress.ts';
import { precompiledMessages } from './scripts/precompileMessages.ts';

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
const PRIVATE_MODULES = /src\/(private\/(?!.*\.tsx$)|private\/(Layout|PrivateIcon)|i18n\/dates)/;

// The router plugin must run before react(), or the route tree is not generated
// before JSX is transformed (STACK.md).
export default defineConfig({
  plugins: [
    tanstackRouter({ target: 'react', autoCodeSplitting: true, routesDirectory: 'src/routes', generatedRouteTree: 'src/routeTree.gen.ts' }),
    react(),
    vanillaExtractPlugin(),
    // ICU messages parsed at build time; the bundles carry no ICU parser.
    precompiledMessages(),
    // Brotli and gzip copies of every text asset, served by Accept-Encoding (server/spa.ts).
    precompress(),
  ],
  define: { __APP_VERSION__: JSON.stringify(pkg.version) },
  build: {
    outDir: 'dist',
    // Flags and images stay separate files: inlining every flag SVG would add ~50 kB gzip.
    assetsInlineLimit: 0,
    sourcemap: false,
    // The server reads it to preload each route's chunks (server/spa.ts); never served.
    manifest: true,
    // Every browser the portal supports has <link rel=modulepreload>.
    modulePreload: { polyfill: false },
    // One stylesheet for the whole SPA (≈ 6 kB Brotli) instead of one per chunk: a page
    // needed four to eight render-blocking requests, each a round trip on a slow phone.
    cssCodeSplit: false,
    rolldownOptions: {
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
          ],
        },
      },
    },
  },
  server: { port: 5173, proxy: { '/api': 'http://localhost:9000', '/config': 'http://localhost:9000', '/idp': 'http://localhost:9000' } },
});
