// The code whose mistakes cost users most, by module: what Stryker mutates and the tests that guard it.
// `npm run mutation [module…]` runs them (all when none is named); docs/mutation-testing.md has the scores.
const S = 'packages/server/src';
const T = 'packages/server/test';

export const MODULES = {
  'identity-sessions': {
    mutate: [`${S}/services/auth.ts`, `${S}/auth/passwords.ts`, `${S}/auth/tokens.ts`],
    tests: [`${T}/identity.test.ts`, `${T}/spine.test.ts`, `${T}/critical-mutations.test.ts`, `${T}/security-ratelimit.test.ts`, `${T}/admin-account.test.ts`],
  },
  'permissions-body-ids': {
    mutate: [`${S}/services/access.ts`],
    tests: [`${T}/access-rules.test.ts`, `${T}/permission-matrix.test.ts`, `${T}/security-body-ids.test.ts`, `${T}/records.test.ts`, `${T}/admin-account.test.ts`],
  },
  // The reuse of granted checks and resolved credentials for STUDIO_AUTH_CACHE_MS (tiles, the bearer cache).
  'access-reuse': {
    mutate: [`${S}/services/expiring-cache.ts`, `${S}/services/shared-loads.ts`, `${S}/services/access.ts:119-124`],
    tests: [`${T}/expiring-cache.test.ts`, `${T}/tile-caching.test.ts`],
  },
  quotas: {
    mutate: [`${S}/services/quota.ts`],
    tests: [`${T}/critical-mutations.test.ts`, `${T}/records.test.ts`, `${T}/admin-account.test.ts`],
  },
  'locks-and-lists': {
    mutate: [`${S}/services/records.ts`],
    // The first run (2026-11-25) had only the first three: 75 mutants of links, tags, samples and clones ran no test.
    // locks.test.ts since 2026-11-26: the lock's holder fields on the wire (tab, session, expiry) survived without it.
    // search.test.ts since 2026-11-28 (session 30): the 'readable' scope (the workspace search) ran no test without it.
    // data-connections.test.ts since 2026-11-28 (session 31): `referencing` (a connection's datasets) ran no test without it.
    tests: [`${T}/records.test.ts`, `${T}/records-lists.test.ts`, `${T}/critical-mutations.test.ts`, `${T}/list-cache.test.ts`, `${T}/samples.test.ts`, `${T}/map-assets.test.ts`, `${T}/projects.test.ts`, `${T}/states.test.ts`, `${T}/locks.test.ts`, `${T}/search.test.ts`, `${T}/data-connections.test.ts`],
  },
  'dataset-status': {
    mutate: [`${S}/services/datasets.ts`],
    // dataset-refresh.test.ts since 2026-11-27: a live dataset's switch to refreshed data (replaceData) ran no test without it.
    // dataset-files.test.ts since 2026-11-27 (session 20): replaced and deleted files, the refresh switch, failure details.
    // tiles-rebuild.test.ts since 2026-11-28 (session 29): rebuildTarget's refusals ran no test without it (11 not covered).
    tests: [`${T}/datasets.test.ts`, `${T}/dataset-status.test.ts`, `${T}/dataset-heartbeat.test.ts`, `${T}/critical-mutations.test.ts`, `${T}/dataset-refresh.test.ts`, `${T}/upload-jobs.test.ts`, `${T}/dataset-files.test.ts`, `${T}/tiles-rebuild.test.ts`],
  },
  'sql-sandbox': {
    mutate: [`${S}/services/sql-sandbox/*.ts`],
    // sql-sandbox.test.ts since 2026-11-27: the compile cache across callers, the messages, parameters, cancel.
    // locked-instances.test.ts since 2026-11-27 (session 20): the instances' walls, pool and clean-up on their own.
    // sql-rewrite.test.ts since 2026-11-27 (session 20): CTE scope and every refusal of rewrite.ts, with its message.
    tests: [`${T}/sql-sandbox.test.ts`, `${T}/sql-rewrite.test.ts`, `${T}/locked-instances.test.ts`, `${T}/security-sql.test.ts`, `${T}/data-queries.test.ts`, `${T}/workbook-sql.test.ts`],
  },
  quoting: {
    mutate: ['packages/engine/src/sql.ts', 'packages/pipeline/src/compile/dialect.ts:25-28'],
    tests: ['packages/engine/test/**/*.test.ts', 'packages/pipeline/test/**/*.test.ts', `${T}/critical-mutations.test.ts`],
  },
  'publishing-passwords': {
    mutate: [`${S}/services/publishing.ts`],
    tests: [`${T}/publishing.test.ts`, `${T}/publishing-rules.test.ts`, `${T}/security-ratelimit.test.ts`],
  },
  'pipeline-compiler': {
    mutate: ['packages/pipeline/src/compile/**/*.ts', 'packages/pipeline/src/validate.ts'],
    tests: ['packages/pipeline/test/**/*.test.ts'],
  },
};
