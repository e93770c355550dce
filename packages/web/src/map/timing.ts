/**
 * User-timing marks of a map's way to its first frame (`studio:map-<step>`), read by the map bench
 * (bench/map.bench.ts) to show where the time goes; a mark costs nothing worth measuring.
 */
export type MapStep = 'data-decoded' | 'basemap-ready' | 'data-added' | 'first-frame';

export const MAP_MARK_PREFIX = 'studio:map-';

export function markMap(step: MapStep): void {
  performance.mark(`${MAP_MARK_PREFIX}${step}`);
}
