import { defineConfig } from 'vitest/config';

/**
 * The tests of one mutation module (STRYKER_TESTS: comma-separated globs, set by scripts/mutation.mjs), run
 * as the main config runs them (../vitest.config.ts), on the embedded catalog only to halve the time.
 */
export default defineConfig({
  test: {
    include: (process.env.STRYKER_TESTS ?? '').split(',').filter(Boolean),
    exclude: ['**/node_modules/**', 'packages/web/e2e/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['packages/server/test/warehouse-server.ts'],
    env: { STUDIO_TEST_STORES: 'pglite' },
  },
});
