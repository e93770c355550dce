/**
 * The browser tests and the map bench read the open map's state (`window.__studioMap`, `__studioMapReady`)
 * and open the bench's baseline page (/bench/kepler-csv/{mapId}). A user's browser gets none of it: the hooks
 * exist only in a page whose opener set `window.__studioTestHooks = true` before the app started (the init
 * script of the browser tests and of the bench). The app itself never reads them.
 */
declare global {
  interface Window {
    __studioTestHooks?: boolean;
  }
}

export const testHooksOn = (): boolean => typeof window !== 'undefined' && window.__studioTestHooks === true;
