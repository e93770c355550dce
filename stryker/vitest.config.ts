import path from 'node:path';
import { defineConfig } from 'vitest/config';

const packages = path.resolve(import.meta.dirname, '../packages');

/**
 * The tests of one mutation module (STRYKER_TESTS: comma-separated globs, set by scripts/mutation.mjs), run
 * as the main config runs them (../vitest.config.ts), on the embedded catalog only to halve the time.
 * `@studio/*` imports resolve inside this tree: through node_modules they would reach the workspace
 * symlinks, i.e. the unmutated sources outside Stryker's sandbox, and a server test could never kill
 * a mutant of the engine or the pipeline.
 */
export default defineConfig({
  resolve: {
    alias: [{ find: /^@studio\/(analytics|client|engine|jobs|pipeline|schema|server)$/, replacement: `${packages}/$1/src/index.ts` }],
  },
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
