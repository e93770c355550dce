import type { Store } from 'redux';
import { setFilterAnimationTimeConfig, setLayerAnimationTimeConfig } from '@kepler.gl/actions';
import { MAP_ID } from '../kepler/store';

type FilterLike = { type?: string; timezone?: string | null };
type VisLike = { filters?: FilterLike[]; animationConfig?: { timezone?: string | null } };
const visOf = (store: Store) => (store.getState() as { keplerGl: Record<string, { visState?: VisLike } | undefined> }).keplerGl[MAP_ID]?.visState;

/**
 * Keeps kepler's time filters and its layer playback (trips) in `zone`: kepler 3.2 formats a time filter's
 * ticks, its range and the playback's clock with the filter's own `timezone` (moment-timezone) and the layer
 * playback's with `animationConfig.timezone`; both start empty (UTC). A filter added later, or a saved map's
 * filters applied with its data, is set as it appears. The saved config carries a filter's `timezone`, but a map
 * opens in its reader's zone whatever it was saved with. Answers the unsubscribe.
 */
export function followTimeZone(store: Store, zone: string): () => void {
  let busy = false;
  const check = () => {
    const vis = visOf(store);
    if (busy || !vis) return;
    busy = true;
    try {
      (vis.filters ?? []).forEach((f, idx) => {
        if (f.type === 'timeRange' && f.timezone !== zone) store.dispatch(setFilterAnimationTimeConfig(idx, { timezone: zone }));
      });
      if (vis.animationConfig && vis.animationConfig.timezone !== zone) store.dispatch(setLayerAnimationTimeConfig({ timezone: zone }));
    } finally {
      busy = false;
    }
  };
  const unsubscribe = store.subscribe(check);
  check();
  return unsubscribe;
}

/** Whether any dataset on the map has a timestamp field: the zone chooser shows only then. */
export function hasTimestamps(store: Store): boolean {
  const root = store.getState() as { keplerGl: Record<string, { visState?: { datasets?: Record<string, { fields?: { type: string }[] }> } } | undefined> };
  return Object.values(root.keplerGl[MAP_ID]?.visState?.datasets ?? {}).some((d) => d.fields?.some((f) => f.type === 'timestamp'));
}
