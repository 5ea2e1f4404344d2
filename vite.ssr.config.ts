/**
 * The server's first-paint bundle (src/ssr.tsx, docs/decisions/first-paint.md): the
 * SPA's own components built for Node with the same plugins, so class names and
 * texts are the ones the browser build uses. Self-contained (every dependency
 * bundled), so it runs wherever DIST_DIR puts it, with no node_modules beside it.
 */
import { defineConfig, mergeConfig } from 'vite';
import base from './vite.config.ts';

export default mergeConfig(
  base,
  defineConfig({
    ssr: { noExternal: true, target: 'node' },
    // React's production build: no development checks or warnings in the server's log.
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    build: {
      ssr: 'src/ssr.tsx',
      outDir: 'dist/.ssr',
      emptyOutDir: true,
      manifest: false,
      copyPublicDir: false,
    },
    logLevel: 'warn',
  }),
);
