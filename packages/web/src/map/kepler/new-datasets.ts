import type { Store } from 'redux';
import { removeLayer, setColumnDisplayFormat } from '@kepler.gl/actions';
import { MAP_ID } from './store';
import { TIMESTAMP_FORMAT } from '../time-zone/zones';
import { markMap } from '../timing';

/**
 * What the studio does to datasets kepler has just taken in. kepler processes Arrow data after
 * addDataToMap returns and makes a dataset's layers then, so each step waits for its dataset to appear
 * in the store (watchDatasets) instead of acting on the state addDataToMap leaves.
 */

type LayerLike = { id: string; type: string; config: { dataId: string } };
type FieldLike = { name: string; type: string; displayFormat?: unknown };
type VisStateLike = { layers: LayerLike[]; layerData: unknown[]; datasets: Record<string, { fields: FieldLike[] } | undefined> };
const visStateOf = (store: Store): VisStateLike | undefined => (store.getState() as { keplerGl: Record<string, { visState: VisStateLike } | undefined> }).keplerGl[MAP_ID]?.visState;

/** How long a step waits for its datasets: one kepler never takes in stops being watched. */
const WATCH_MS = 120_000;

/** Calls `act` once for each dataset id, as soon as `ready` holds for it; stops when all are done. */
function watchDatasets(store: Store, dataIds: string[], ready: (vis: VisStateLike, dataId: string) => boolean, act: (vis: VisStateLike, dataId: string) => void): void {
  const waiting = new Set(dataIds);
  let unsubscribe = () => {};
  const timer = window.setTimeout(() => unsubscribe(), WATCH_MS);
  const check = () => {
    const vis = visStateOf(store);
    if (!vis) return;
    for (const dataId of [...waiting]) {
      if (!ready(vis, dataId)) continue;
      waiting.delete(dataId);
      act(vis, dataId);
    }
    if (!waiting.size) {
      unsubscribe();
      window.clearTimeout(timer);
    }
  };
  unsubscribe = store.subscribe(check);
  check();
}

/**
 * The layer kinds kepler may guess for one dataset, the one to keep first: the geometry a dataset
 * carries says more than the latitude/longitude pair that often comes with it as a label point.
 */
const LAYER_PREFERENCE = ['geojson', 'hexagonId', 's2', 'vectorTile', 'trip', 'arc', 'line', 'point', 'icon'];
const preference = (type: string) => {
  const i = LAYER_PREFERENCE.indexOf(type);
  return i < 0 ? LAYER_PREFERENCE.length : i;
};

/**
 * kepler guesses every layer a dataset could make (a point layer for lat/lng and a GeoJSON layer for
 * its geometry, say); a new map shows one layer per dataset, and the others stay one click away in
 * kepler's "Add layer".
 */
export function oneLayerPerDataset(store: Store, dataIds: string[]): void {
  const own = (vis: VisStateLike, dataId: string) => vis.layers.filter((l) => l.config.dataId === dataId);
  watchDatasets(
    store,
    dataIds,
    (vis, dataId) => own(vis, dataId).length > 0,
    (vis, dataId) => {
      const layers = own(vis, dataId);
      const kept = layers.reduce((best, l) => (preference(l.type) < preference(best.type) ? l : best));
      for (const layer of layers) if (layer.id !== kept.id) store.dispatch(removeLayer(layer.id));
    },
  );
}

/**
 * How dates and times read in tooltips and the data table (kepler shows them as raw milliseconds). The
 * tooltip reads a timestamp in the viewer's zone (time-zone/hover-info.tsx); the data table in UTC, and says so.
 */
export const FIELD_FORMATS: Record<string, string> = {
  timestamp: TIMESTAMP_FORMAT,
  date: 'YYYY-MM-DD',
};

/** Gives each date and timestamp field of the datasets a readable format (unless it has one). */
export function formatFields(store: Store, dataIds: string[]): void {
  watchDatasets(
    store,
    dataIds,
    (vis, dataId) => Boolean(vis.datasets[dataId]),
    (vis, dataId) => {
      const fields = vis.datasets[dataId]!.fields.filter((f) => FIELD_FORMATS[f.type] && !f.displayFormat);
      if (fields.length) store.dispatch(setColumnDisplayFormat(dataId, Object.fromEntries(fields.map((f) => [f.name, FIELD_FORMATS[f.type]!]))));
    },
  );
}

/**
 * Marks `layer-data-ready` (timing.ts) once kepler has built every one of the datasets and computed the data of each
 * of their layers (kepler's `layerData`, index for index with its layers): the geometry is decoded then, whether it
 * came as GeoJSON text or as GeoArrow.
 */
export function markLayerDataReady(store: Store, dataIds: string[]): void {
  const ids = [...new Set(dataIds)];
  let left = ids.length;
  watchDatasets(
    store,
    ids,
    (vis, dataId) => Boolean(vis.datasets[dataId]) && vis.layers.every((l, i) => l.config.dataId !== dataId || vis.layerData[i] !== undefined),
    () => --left === 0 && markMap('layer-data-ready'),
  );
}
