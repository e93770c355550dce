import type { Store } from 'redux';
import { setFilter } from '@kepler.gl/actions';
import type { TimeEnds } from '../state/versions';
import { MAP_ID } from '../kepler/store';
import { once } from '../kepler/once';
import { END_FIELD, type SpanFilter } from './gpu-span';

const filtersOf = (store: Store): SpanFilter[] =>
  (store.getState() as { keplerGl: Record<string, { visState?: { filters?: SpanFilter[] } } | undefined> }).keplerGl[MAP_ID]?.visState?.filters ?? [];

/** The time filters' end fields as the map state saves them (kepler's own config has no place for them). */
export function timeEndsToSave(store: Store): TimeEnds {
  const out: TimeEnds = {};
  for (const f of filtersOf(store)) {
    const names = f[END_FIELD] ?? [];
    const byDataset = Object.fromEntries(f.dataId.flatMap((id, k) => (names[k] ? [[id, names[k]]] : [])));
    if (Object.keys(byDataset).length) out[f.id] = byDataset;
  }
  return out;
}

/** Sets one time filter's end fields, a name or null per dataset of the filter; kepler filters its datasets again. */
export function setEndFields(store: Store, idx: number, names: (string | null)[]): void {
  store.dispatch(setFilter(idx, END_FIELD, names));
}

/**
 * A saved map's end fields put back on its filters once kepler has made them from the saved config (by id). A filter
 * or dataset the map no longer has is passed over; a field the dataset lacks is ignored when filtering.
 */
export function applyTimeEnds(store: Store, ends: TimeEnds | undefined): void {
  const ids = Object.keys(ends ?? {});
  if (!ends || !ids.length) return;
  once(store, () => filtersOf(store).some((f) => ids.includes(f.id)), () => putEnds(store, ends));
}

function putEnds(store: Store, ends: TimeEnds): void {
  filtersOf(store).forEach((f, idx) => {
    const saved = ends[f.id];
    if (!saved) return;
    const names = f.dataId.map((id) => saved[id] ?? null);
    if (names.some(Boolean)) setEndFields(store, idx, names);
  });
}
