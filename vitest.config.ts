import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { vanillaExtractPlugin } from '@vanilla-extract/vite-plugin';

// One `npm test` runs every suite; each suite is a project so it can also run alone
// (`vitest run --project server`).
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node' } },
      { test: { name: 'model', include: ['test/model/**/*.test.ts'], environment: 'node' } },
      {
        plugins: [react(), vanillaExtractPlugin()],
        define: { __APP_VERSION__: JSON.stringify('test') },
        test: { name: 'view', include: ['test/view/**/*.test.tsx'], environment: 'jsdom', setupFiles: ['test/view/setup.ts'] },
      },
      {
        test: {
          name: 'server',
          include: ['test/server/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/helpers/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/helpers/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // What a browser test polls for (a navigation after a failed request, a
          // heading) may take longer than vitest's 1 s default on a loaded CI machine;
          // a poll that never succeeds still fails.
          expect: { poll: { timeout: 10_000 } },
          fileParallelism: false,
        },
      },
    ],
  },
});
