import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'packages/*/test/**/*.test.tsx'],
    exclude: ['**/node_modules/**', 'packages/web/e2e/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Modules are kept between the files a worker runs: vitest's import time fell from 373 s to 23–27 s, though the
    // phase's wall time barely moved (docs/decisions.md "Test run time"). Tests build their own studio, catalog
    // and data folder, and leave no global state behind.
    isolate: false,
    // A PostgreSQL server of its own for warehouse connections: the catalog's server is never reachable through one.
    globalSetup: ['packages/server/test/warehouse-server.ts'],
    // Every answer of a route that declares its response is checked against it (http/route.ts) in the server
    // processes the tests start (the studios built in the tests' own process: harness.ts).
    env: { STUDIO_CHECK_ANSWERS: 'on' },
  },
});
