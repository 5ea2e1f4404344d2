import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { vanillaExtractPlugin } from '@vanilla-extract/vite-plugin';
import { tanstackRouter } from '@tanstack/router-plugin/vite';
import { readFileSync } from 'node:fs';
import { precompress } from './scripts/precompress.ts';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

// The router plugin must run before react(), or the route tree is not generated
// before JSX is transformed (STACK.md).
export default defineConfig({
  plugins: [
    tanstackRouter({ target: 'react', autoCodeSplitting: true, routesDirectory: 'src/routes', generatedRouteTree: 'src/routeTree.gen.ts' }),
    react(),
    vanillaExtractPlugin(),
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
        codeSplitting: { groups: [{ name: 'app', tags: ['$initial'] }] },
      },
    },
  },
  server: { port: 5173, proxy: { '/api': 'http://localhost:9000', '/config': 'http://localhost:9000', '/idp': 'http://localhost:9000' } },
});
