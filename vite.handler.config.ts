/**
 * The handlers' workspace is its own build (docs/decisions/handler-spa.md): its own
 * entry (handler.html → src/handler/main.tsx) and a code-based, lazy route tree under
 * /handler, written to dist/handler with assets under /handler/assets/. The reporter's
 * build (vite.config.ts) is untouched, so its landing bundle does not change by a byte
 * and no reporter page can load handler code.
 */
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { vanillaExtractPlugin } from '@vanilla-extract/vite-plugin';
import { readFileSync } from 'node:fs';
import { precompress } from './scripts/precompress.ts';
import { precompiledMessages } from './scripts/precompileMessages.ts';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  base: '/handler/',
  plugins: [react(), vanillaExtractPlugin(), precompiledMessages(), precompress()],
  define: { __APP_VERSION__: JSON.stringify(pkg.version) },
  build: {
    outDir: 'dist/handler',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    sourcemap: false,
    rollupOptions: { input: { handler: 'handler.html' } },
  },
});
