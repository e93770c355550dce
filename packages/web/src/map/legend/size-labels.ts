import type { Store } from 'redux';
import { layerVisConfigChange } from '@kepler.gl/actions';
import type { SizeLegends } from '../state/versions';
import { MAP_ID } from '../kepler/store';
import { once } from '../kepler/once';
import { SIZE_LABELS, type SizeLabels } from './SizeLegend';

type Layer = { id: string; config: { visConfig: Record<string, unknown> } };
const layersOf = (store: Store): Layer[] => (store.getState() as { keplerGl: Record<string, { visState?: { layers?: Layer[] } } | undefined> }).keplerGl[MAP_ID]?.visState?.layers ?? [];

/** The size legends' manual labels as the map state saves them, by layer id (layers without any left out). */
export function sizeLegendsToSave(store: Store): SizeLegends {
  const out: SizeLegends = {};
  for (const l of layersOf(store)) {
    const labels = l.config.visConfig[SIZE_LABELS] as SizeLabels | undefined;
    if (labels && Object.keys(labels).length) out[l.id] = labels;
  }
  return out;
}

/** A saved map's size-legend labels put back on its layers (by id) once kepler has made them from the saved config. */
export function applySizeLegends(store: Store, saved: SizeLegends | undefined): void {
  const ids = Object.keys(saved ?? {});
  if (!saved || !ids.length) return;
  once(
    store,
    () => layersOf(store).some((l) => ids.includes(l.id)),
    () => {
      for (const l of layersOf(store)) {
        const labels = saved[l.id];
        if (labels) store.dispatch(layerVisConfigChange(l as never, { [SIZE_LABELS]: labels } as never));
      }
    },
  );
}
