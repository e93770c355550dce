import type { Store } from 'redux';
import { addDataToMap, addLayer, interactionConfigChange, removeLayer, reorderLayer } from '@kepler.gl/actions';
import { KeplerGlSchema } from '@kepler.gl/schemas';
import type { KeplerDataset } from '../datasets';
import { MAP_ID } from '../kepler/store';
import { formatFields, markLayerDataReady } from '../kepler/new-datasets';

/**
 * A layer as kepler saves it (schema v1): what `addLayer` takes back and validates against the dataset now on the
 * map (field names looked up again, unknown visConfig keys dropped).
 */
export interface SavedLayer {
  id: string;
  type: string;
  config: { dataId: string; label?: string; color?: number[]; isVisible?: boolean; hidden?: boolean; visConfig?: Record<string, unknown> } & Record<string, unknown>;
  visualChannels: Record<string, unknown>;
}
type TooltipField = { name: string; format?: string | null };

/** One dataset's style as the map showed it before a switch between all rows and tiles (#50). */
export interface DrawnStyle {
  /** Its layers, topmost first. */
  layers: SavedLayer[];
  tooltip?: TooltipField[];
  /** The map's layer order (ids, topmost first): the new layers take the old ones' ids and places. */
  order: string[];
  /** The view's latitude, for the radius's change of unit. */
  latitude: number;
}

type VisLike = {
  layers: { id: string; type: string; config: { dataId: string } }[];
  layerOrder: string[];
  datasets: Record<string, { fields: { name: string }[] } | undefined>;
  interactionConfig: { tooltip: { config: { fieldsToShow: Record<string, TooltipField[]> } } & Record<string, unknown> };
};
const instance = (store: Store) => (store.getState() as { keplerGl: Record<string, { visState: VisLike; mapState: { latitude: number } } | undefined> }).keplerGl[MAP_ID];
const savedVisState = (store: Store) =>
  (KeplerGlSchema.getConfigToSave(instance(store) as never) as unknown as { config: { visState: { layers: SavedLayer[]; interactionConfig?: { tooltip?: { fieldsToShow?: Record<string, TooltipField[]> } } } } }).config.visState;

/** The dataset's layers and tooltip as kepler would save them; null when it has no layer on the map. */
export function captureStyle(store: Store, dataId: string): DrawnStyle | null {
  const kepler = instance(store);
  if (!kepler) return null;
  const saved = savedVisState(store);
  const order = kepler.visState.layerOrder;
  const layers = saved.layers.filter((l) => l.config.dataId === dataId).sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
  if (!layers.length) return null;
  return { layers, tooltip: saved.interactionConfig?.tooltip?.fieldsToShow?.[dataId], order: [...order], latitude: kepler.mapState.latitude };
}

/** Pixels a kepler point layer's radius unit is at the view's latitude (see `carryStyle`). */
const pixelsPerPointRadius = (latitude: number) => (2 ** 14 * 512) / (40_075_016.686 * Math.cos((latitude * Math.PI) / 180));
const round1 = (n: number) => Math.round(n * 10) / 10;
const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

/**
 * `onto` (a layer of the other way of drawing the dataset) with the style `from` shares with it. kepler's point layer
 * over Arrow rows and its vector-tile layer share: the label, colour, visibility, legend hiding, highlight colour;
 * the colour field, its scale and colour range; the opacity; the outline (point `outline` = tile `stroked`), its
 * colour, colour field, scale and range; the radius, whose unit differs (below). What cannot carry over, `onto`
 * keeps (the page keeps each way's layers for the way back, map-draws.ts):
 * - the size field: a point layer's `sizeField` sizes the radius over `radiusRange` in its radius unit, a tile
 *   layer's `sizeField` is its outline's width and its `radiusField` scales `radius` by a 0–1 range; no one value
 *   means the same in both;
 * - text labels, fixed radius, outline thickness, 3D height: the tile layer draws none of them;
 * - the tile layer's radius by zoom, dynamic colour, 3D: the point layer has none.
 * The radius: a point layer's is meters times 2^(14 − zoom) (kepler's zoom factor), so a constant number of pixels
 * up to zoom 14 at a given latitude; the tile layer's is pixels. It is converted at the view's latitude (clamped to
 * the tile layer's 0.1–100); a radius not changed since the last switch keeps its own value, so that going there and
 * back does not round it.
 */
export function carryStyle(from: SavedLayer, onto: SavedLayer, latitude: number): SavedLayer {
  const fv = from.config.visConfig ?? {};
  const visConfig = { ...(onto.config.visConfig ?? {}) };
  for (const key of ['opacity', 'colorRange', 'strokeColor', 'strokeColorRange', 'strokeOpacity'])
    if (key in fv && key in visConfig) visConfig[key] = fv[key];
  const outline = fv.outline ?? fv.stroked;
  if (typeof outline === 'boolean') for (const key of ['outline', 'stroked']) if (key in visConfig) visConfig[key] = outline;
  const px = pixelsPerPointRadius(latitude);
  const fr = fv.radius, or = visConfig.radius;
  if (typeof fr === 'number' && typeof or === 'number') {
    if (from.type === 'point' && onto.type === 'vectorTile' && fr !== round1(or / px)) visConfig.radius = clamp(round1(fr * px), 0.1, 100);
    if (from.type === 'vectorTile' && onto.type === 'point' && fr !== clamp(round1(or * px), 0.1, 100)) visConfig.radius = clamp(round1(fr / px), 0, 100);
  }
  const channels = { ...onto.visualChannels };
  for (const key of ['colorField', 'colorScale', 'strokeColorField', 'strokeColorScale'])
    if (key in from.visualChannels && key in channels) channels[key] = from.visualChannels[key];
  // The studio's TileJSON has no value statistics, so a tile layer's colour domain would stay kepler's [0, 1] (every
  // point in the last colour): its domain is taken from the tiles in view instead (kepler's dynamic colour).
  if (onto.type === 'vectorTile' && channels.colorField && 'dynamicColor' in visConfig) visConfig.dynamicColor = true;
  const shared = Object.fromEntries((['label', 'color', 'isVisible', 'hidden', 'highlightColor'] as const).flatMap((k) => (from.config[k] === undefined ? [] : [[k, from.config[k]]])));
  return { ...onto, id: from.id, config: { ...onto.config, ...shared, visConfig }, visualChannels: channels };
}

/** How long the switch waits for kepler to take the dataset in (as new-datasets.ts waits). */
const WAIT_MS = 120_000;

/** Resolves once `ready` holds (checked now and after each change of the store); rejects after WAIT_MS. */
function when(store: Store, ready: (vis: VisLike) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    let unsubscribe = () => {};
    const timer = window.setTimeout(() => {
      unsubscribe();
      reject(new Error('The map did not take the dataset in: add it again'));
    }, WAIT_MS);
    const check = () => {
      const vis = instance(store)?.visState;
      if (!vis || !ready(vis)) return;
      unsubscribe();
      window.clearTimeout(timer);
      resolve();
    };
    unsubscribe = store.subscribe(check);
    check();
  });
}

/**
 * Adds the dataset drawn the other way with the style it had (`from`): onto `base`, the layers it had last time it was
 * drawn this way, when it was; else onto the layer kepler makes for it. The layers keep their ids, places in the
 * layer order and tooltip fields (those the new dataset has: tiles carry the columns the cut kept).
 */
export async function addKeepingStyle(store: Store, dataset: KeplerDataset, from: DrawnStyle, base?: SavedLayer[]): Promise<void> {
  const dataId = dataset.info.id;
  const { bounds: _bounds, ...data } = dataset;
  // No new layer when there are layers to put back: kepler's would compute its data for nothing.
  store.dispatch(addDataToMap({ datasets: [data], options: { autoCreateLayers: !base, centerMap: false, keepExistingConfig: true } } as never));
  formatFields(store, [dataId]);
  const own = (vis: VisLike) => vis.layers.filter((l) => l.config.dataId === dataId);
  await when(store, (vis) => Boolean(vis.datasets[dataId]) && (Boolean(base) || own(vis).length > 0));
  const [top] = from.layers;
  let layers: SavedLayer[];
  if (base) {
    layers = base.some((l) => l.id === top!.id) ? base.map((l) => (l.id === top!.id ? carryStyle(top!, l, from.latitude) : l)) : [carryStyle(top!, base[0]!, from.latitude), ...base.slice(1)];
  } else {
    // kepler's guesses for the dataset (one, for tiles; for rows, the geometry's layer before a lat/lng point layer,
    // as new-datasets.ts keeps): that one restyled, the others not kept.
    const made = savedVisState(store).layers.filter((l) => l.config.dataId === dataId);
    for (const l of made) store.dispatch(removeLayer(l.id));
    layers = [carryStyle(top!, made.find((l) => l.type === 'geojson') ?? made[0]!, from.latitude)];
  }
  for (const l of [...layers].reverse()) store.dispatch(addLayer(l, dataId));
  markLayerDataReady(store, [dataId]);
  const vis = instance(store)!.visState;
  const ids = new Set(vis.layerOrder);
  store.dispatch(reorderLayer([...vis.layerOrder.filter((id) => !from.order.includes(id)), ...from.order.filter((id) => ids.has(id))]));
  const names = new Set(vis.datasets[dataId]?.fields.map((f) => f.name));
  const fields = from.tooltip?.filter((f) => names.has(f.name));
  if (fields) {
    const tooltip = vis.interactionConfig.tooltip;
    store.dispatch(interactionConfigChange({ ...tooltip, config: { ...tooltip.config, fieldsToShow: { ...tooltip.config.fieldsToShow, [dataId]: fields } } } as never));
  }
}
