import type { Store } from 'redux';
import { layerVisualChannelConfigChange } from '@kepler.gl/actions';
import { MAP_ID } from '../kepler/store';

type Layer = Parameters<typeof layerVisualChannelConfigChange>[0];
interface VisState {
  layers: Layer[];
  datasets: Record<string, { label: string; fields: { name: string }[] } | undefined>;
}

const visState = (store: Store) => (store.getState() as { keplerGl: Record<string, { visState: VisState } | undefined> }).keplerGl[MAP_ID]?.visState;

/** The datasets on the map with the labels kepler shows for them, for the tools' layer pickers. */
export function mapDatasets(store: Store): { id: string; label: string }[] {
  const vis = visState(store);
  return Object.entries(vis?.datasets ?? {}).map(([id, d]) => ({ id, label: d?.label ?? id }));
}

/**
 * Colours the dataset's layer by one of its fields, as kepler's "Color based on" does (its default sequential
 * palette, quantized): a choropleth of polygons. Answers whether the layer and field were there.
 */
export function colorByField(store: Store, dataId: string, field: string): boolean {
  const vis = visState(store);
  const layer = vis?.layers.find((l) => l.config.dataId === dataId);
  const f = vis?.datasets[dataId]?.fields.find((x) => x.name === field);
  if (!layer || !f) return false;
  store.dispatch(layerVisualChannelConfigChange(layer, { colorField: f } as never, 'color'));
  // Answers whether kepler kept it: a layer replaced in the same frame loses the change, and the caller tries again.
  return (visState(store)?.layers.find((l) => l.config.dataId === dataId)?.config as { colorField?: { name: string } | null } | undefined)?.colorField?.name === field;
}
