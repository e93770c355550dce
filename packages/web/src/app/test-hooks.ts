/**
 * The browser tests and the map bench read the open map's state (`window.__studioMap`, `__studioMapReady`)
 * and open the bench's baseline page (/bench/kepler-csv/{mapId}). None of it is in the production build: the
 * hooks and the bench page are compiled only into the test build (`__STUDIO_TEST_HOOKS__`, defined by
 * vite.config.ts when scripts/builds.mjs builds packages/web/dist-test for the browser tests and benches), and
 * dropped from `npm run build`'s bundle as dead code (test/production-build.test.ts greps it). Even in the test
 * build they exist only in a page whose opener set `window.__studioTestHooks = true` before the app started
 * (the init script of the browser tests and of the bench). The app itself never reads them.
 */
declare global {
  interface Window {
    __studioTestHooks?: boolean;
  }
  /** Replaced at build time (vite.config.ts); absent under Vitest's unit tests, which then have no hooks. */
  const __STUDIO_TEST_HOOKS__: boolean | undefined;
}

/** A test build: the bundle the browser tests and benches load. Write `TEST_BUILD && …` so a production build drops the code. */
export const TEST_BUILD: boolean = typeof __STUDIO_TEST_HOOKS__ !== 'undefined' && __STUDIO_TEST_HOOKS__ === true;

export const testHooksOn = (): boolean => TEST_BUILD && typeof window !== 'undefined' && window.__studioTestHooks === true;
