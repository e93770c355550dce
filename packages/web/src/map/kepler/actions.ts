import type { Store } from 'redux';
import { addDataToMap, fitBounds, layerConfigChange, updateMap } from '@kepler.gl/actions';
import { KeplerGlSchema } from '@kepler.gl/schemas';
import type { Bounds, KeplerDataset } from '../datasets';
import type { KeplerSavedConfig, StudioMapExtras } from '../state/versions';
import { applyTimeEnds } from '../time-span/saved-ends';
import { applySizeLegends } from '../legend/size-labels';
import { markMap } from '../timing';
import { MAP_ID } from './store';
import { formatFields, markLayerDataReady, oneLayerPerDataset } from './new-datasets';
import { TEST_BUILD, testHooksOn } from '../../app/test-hooks';

type AddDataPayload = Parameters<typeof addDataToMap>[0];

const withoutBounds = ({ bounds: _bounds, ...dataset }: KeplerDataset) => dataset;

/** Resolves after `n` animation frames. */
const frames = (n: number) => new Promise<void>((resolve) => (n <= 0 ? resolve() : requestAnimationFrame(() => void frames(n - 1).then(resolve))));

/**
 * Fits the view to the datasets' bounds before their data arrives, when every one has bounds, and waits
 * until the new view has reached deck (maplibre applies a camera change in its next frame and deck follows
 * maplibre). Otherwise the layer's first frame is drawn at the old view and drawn again at the new one: with
 * kepler's centerMap, or with the data added right after the fit, a frame of a million points (seconds in
 * software WebGL) was drawn twice. Answers whether it fitted.
 */
async function fitFirst(store: Store, datasets: KeplerDataset[]): Promise<boolean> {
  const all = datasets.map((d) => d.bounds);
  if (!all.length || !all.every((b): b is Bounds => Boolean(b))) return false;
  const union: Bounds = [Math.min(...all.map((b) => b[0])), Math.min(...all.map((b) => b[1])), Math.max(...all.map((b) => b[2])), Math.max(...all.map((b) => b[3]))];
  store.dispatch(fitBounds(union));
  await frames(3);
  return true;
}

/**
 * Adds the datasets; with a saved config, applies it (layers, colors, filters, view come back as
 * saved), otherwise lets kepler create layers (lat/lng pairs become point layers) and fit the view.
 * `extras`: what the saved state keeps beside kepler's config (time filters' end fields, size-legend labels), put
 * on the filters and layers kepler has just made.
 */
export function showDatasets(store: Store, datasets: KeplerDataset[], saved: KeplerSavedConfig | null, readOnly: boolean, extras?: StudioMapExtras): void {
  // Idempotent: React's StrictMode (dev) mounts kepler twice, and the second mount starts empty.
  const root = store.getState() as { keplerGl: Record<string, { visState?: { datasets?: Record<string, unknown> } } | undefined> };
  if (Object.keys(root.keplerGl[MAP_ID]?.visState?.datasets ?? {}).length > 0) return;
  const config = saved ? KeplerGlSchema.parseSavedConfig(saved as Parameters<typeof KeplerGlSchema.parseSavedConfig>[0]) : null;
  const payload = {
    datasets: datasets.map(withoutBounds),
    options: { autoCreateLayers: !config, centerMap: !config, readOnly, keepExistingConfig: false },
    ...(config ? { config } : {}),
  } as unknown as AddDataPayload;
  store.dispatch(addDataToMap(payload));
  if (config) {
    applyTimeEnds(store, extras?.timeEnds);
    applySizeLegends(store, extras?.sizeLegends);
  }
  if (!config) oneLayerPerDataset(store, datasets.map((d) => d.info.id));
  formatFields(store, datasets.map((d) => d.info.id));
  markLayerDataReady(store, datasets.map((d) => d.info.id));
  markMap('data-added');
}

/** Adds datasets to a map that has some already (kepler's "Add Data"): one new layer each, the view fitted to them. */
export async function addDatasets(store: Store, datasets: KeplerDataset[]): Promise<void> {
  const fresh = datasets.filter((d) => !datasetIdsOnMap(store).includes(d.info.id));
  if (!fresh.length) return;
  const fitted = await fitFirst(store, fresh);
  store.dispatch(addDataToMap({ datasets: fresh.map(withoutBounds), options: { autoCreateLayers: true, centerMap: !fitted, keepExistingConfig: true } } as unknown as AddDataPayload));
  oneLayerPerDataset(store, fresh.map((d) => d.info.id));
  formatFields(store, fresh.map((d) => d.info.id));
  markLayerDataReady(store, fresh.map((d) => d.info.id));
}

/** The catalog ids of the datasets on the map (kepler's dataset ids are the catalog's). */
export function datasetIdsOnMap(store: Store): string[] {
  const root = store.getState() as { keplerGl: Record<string, { visState?: { datasets?: Record<string, unknown> } } | undefined> };
  return Object.keys(root.keplerGl[MAP_ID]?.visState?.datasets ?? {});
}

/** kepler's config of the map as it is now: `{version, config: {visState, mapState, mapStyle, uiState}}`. */
export function currentConfig(store: Store): KeplerSavedConfig {
  const root = store.getState() as { keplerGl: Record<string, unknown> };
  return KeplerGlSchema.getConfigToSave(root.keplerGl[MAP_ID]) as unknown as KeplerSavedConfig;
}

/** The kepler layers now on the map, as the studio shows them in tests and checks. */
export function layerSummary(store: Store): { type: string; dataId: string; color: number[] }[] {
  const root = store.getState() as { keplerGl: Record<string, { visState: { layers: { type: string; config: { dataId: string; color: number[] } }[] } }> };
  return (root.keplerGl[MAP_ID]?.visState.layers ?? []).map((l) => ({ type: l.type, dataId: l.config.dataId, color: l.config.color }));
}

/** The layers' types in the order kepler lists them (its `layerOrder`: first drawn on top). */
export function layerOrderSummary(store: Store): string[] {
  const root = store.getState() as { keplerGl: Record<string, { visState: { layers: { id: string; type: string }[]; layerOrder: string[] } }> };
  const vis = root.keplerGl[MAP_ID]?.visState;
  return (vis?.layerOrder ?? []).map((id) => vis!.layers.find((l) => l.id === id)?.type ?? '?');
}

/** Sets one layer's color the way kepler's color picker does (layerConfigChange). */
export function setLayerColor(store: Store, index: number, color: [number, number, number]): void {
  const root = store.getState() as { keplerGl: Record<string, { visState: { layers: Parameters<typeof layerConfigChange>[0][] } }> };
  const layer = root.keplerGl[MAP_ID]?.visState.layers[index];
  if (layer) store.dispatch(layerConfigChange(layer, { color }));
}

declare global {
  interface Window {
    /** The open map, for browser tests and the console: its layers, and a color change. */
    __studioMap?: {
      layers: () => ReturnType<typeof layerSummary>;
      layerOrder: () => string[];
      view: () => { latitude: number; longitude: number; zoom: number } | undefined;
      setLayerColor: (index: number, color: [number, number, number]) => void;
      /** Moves the view as a pan or zoom would (kepler's updateMap): the pixel checks set the zoom they need. */
      setView: (view: { latitude: number; longitude: number; zoom: number }) => void;
    };
  }
}

/** The open map as window.__studioMap, for the browser tests and the bench only (see app/test-hooks). */
export function exposeMap(store: Store): () => void {
  if (!TEST_BUILD || !testHooksOn()) return () => undefined;
  const view = () => {
    const m = (store.getState() as { keplerGl: Record<string, { mapState: { latitude: number; longitude: number; zoom: number } } | undefined> }).keplerGl[MAP_ID]?.mapState;
    return m && { latitude: m.latitude, longitude: m.longitude, zoom: m.zoom };
  };
  window.__studioMap = { layers: () => layerSummary(store), layerOrder: () => layerOrderSummary(store), view, setLayerColor: (i, c) => setLayerColor(store, i, c), setView: (v) => void store.dispatch(updateMap(v as never)) };
  return () => {
    window.__studioMap = undefined;
  };
}
