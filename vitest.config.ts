import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'packages/*/test/**/*.test.tsx'],
    exclude: ['**/node_modules/**', 'packages/web/e2e/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // A PostgreSQL server of its own for warehouse connections: the catalog's server is never reachable through one.
    globalSetup: ['packages/server/test/warehouse-server.ts'],
  },
});
