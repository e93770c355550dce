/**
 * User-timing marks of a map's way to its first frame (`studio:map-<step>`), read by the map benches
 * (bench/map.bench.ts, bench/geoarrow.bench.ts) to show where the time goes; a mark costs nothing worth measuring.
 * In the order a map opening on a dataset reaches them:
 * - `data-decoded`: the dataset's Arrow bytes read into kepler's Arrow data container (datasets.ts). Geometry is
 *   not parsed yet: a GeoJSON text column is still text, a GeoArrow column still buffers.
 * - `basemap-ready`: kepler registered and its basemap loaded (or the wait ran out); the data is added after it.
 * - `data-added`: addDataToMap dispatched. kepler builds its dataset in a task that ends later.
 * - `layer-data-ready`: kepler's datasets built and their layers' data computed (new-datasets.ts
 *   `markLayerDataReady`): each row's GeoJSON text parsed, or a GeoArrow column triangulated, with bounds and
 *   centres. The first moment at which both ways of sending polygons have decoded their geometry (#46's
 *   GeoArrow-against-text figure is timed to it). deck.gl still tessellates GeoJSON features when it first draws.
 * - `first-frame`: the first frame drawn with the layers.
 */
export type MapStep = 'data-decoded' | 'basemap-ready' | 'data-added' | 'layer-data-ready' | 'first-frame';

export const MAP_MARK_PREFIX = 'studio:map-';

export function markMap(step: MapStep): void {
  performance.mark(`${MAP_MARK_PREFIX}${step}`);
}
