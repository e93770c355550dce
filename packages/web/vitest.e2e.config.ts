import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Browser end-to-end tests: `npx vitest run -c packages/web/vitest.e2e.config.ts` from the root. */
export default defineConfig({
  root: here,
  test: {
    include: ['e2e/**/*.e2e.ts'],
    globalSetup: ['e2e/global-setup.ts'],
    testTimeout: 60_000,
    // expect.poll waits for what the user would see; its 1 s default fails on a loaded 2-core machine.
    expect: { poll: { timeout: 15_000, interval: 100 } },
    hookTimeout: 180_000,
    pool: 'forks',
  },
});
