import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'packages/*/test/**/*.test.tsx'],
    exclude: ['**/node_modules/**', 'packages/web/e2e/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Modules are kept between the files a worker runs: importing the server afresh for each of ~120 files cost
    // 373 s of a 1,996 s run; kept, 27 s (measured 2026-11-26, every test passing). Tests build their own studio,
    // catalog and data folder, and leave no global state behind (docs/decisions.md "Test run time").
    isolate: false,
    // A PostgreSQL server of its own for warehouse connections: the catalog's server is never reachable through one.
    globalSetup: ['packages/server/test/warehouse-server.ts'],
  },
});
