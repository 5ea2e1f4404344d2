import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { vanillaExtractPlugin } from '@vanilla-extract/vite-plugin';

// One `npm test` runs every suite; each suite is a project so it can also run alone
// (`vitest run --project server`).
export default defineConfig({
  test: {
    projects: [
      // vitest's 5 s default is a speed check on a loaded two-core CI machine (a PDF made and
      // read back twice took 5.1 s beside the model suite): the limit guards against a hang only.
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node', testTimeout: 60_000 } },
      {
        test: {
          name: 'model',
          include: ['test/model/**/*.test.ts'],
          environment: 'node',
          // A guard against a hang, not a speed check: a coverage walk over every path of
          // the larger machines (a sealed case's) passed vitest's 5 s default on a loaded
          // 2-core machine.
          testTimeout: 60_000,
        },
      },
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
          // A guard against a hang, not a speed check: on a slow CI machine single
          // tests (a key rotation, an upload through shutdown) took 30–40 s.
          testTimeout: 180_000,
          hookTimeout: 180_000,
          fileParallelism: false,
          // One process for every file, in turn: each file starts its own servers on
          // fresh databases and nothing is mocked or stubbed, so re-importing the server
          // for each file (≈ 3 s a file on a slow CI machine) bought no isolation.
          // Its own group, so its single worker does not clash with the parallel suites.
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/helpers/global-setup.ts'],
          // A test is a whole journey, some in all seven languages; on a CI machine
          // several times slower than a desk one, such a loop took more than 120 s.
          // The limit is a guard against a hang, not a speed check (that is npm run bench).
          testTimeout: 300_000,
          hookTimeout: 180_000,
          // What a browser test polls for (a navigation after a failed request, a
          // heading) may take longer than vitest's 1 s default on a loaded CI machine;
          // a poll that never succeeds still fails.
          expect: { poll: { timeout: 10_000 } },
          fileParallelism: false,
          // As the server suite: one process, each file with its own server and browser.
          isolate: false,
          sequence: { groupOrder: 2 },
        },
      },
      {
        test: {
          // Clients and checkers nobody here wrote (openid-client, tus-js-client, swagger-parser,
          // Redocly) run against the real server: what a third party sees, not what our helpers assume.
          name: 'conformance',
          include: ['test/conformance/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/helpers/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          fileParallelism: false,
          isolate: false,
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
