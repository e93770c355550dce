import { useEffect, useState, useSyncExternalStore } from 'react';
import type { Store } from 'redux';
import { layerConfigChange, toggleMapControl } from '@kepler.gl/actions';
import { MAP_ID } from './kepler/store';

interface LegendLayer {
  id: string;
  config: { label: string; isVisible: boolean; color: number[] };
}
type Instance = { visState?: { layers?: LegendLayer[] }; uiState?: { mapControls?: { mapLegend?: { active?: boolean } } } };
const instance = (store: Store) => (store.getState() as { keplerGl: Record<string, Instance | undefined> }).keplerGl[MAP_ID];

/**
 * A published view's (and an embed's) layer toggles, beside kepler's own legend, which it opens: kepler 3.2
 * shows its legend to readers but its layer list only in the builder (and its map-control layer list only for
 * split maps), so a reader could not hide a layer to see the one under it. kepler's legend follows: it lists
 * the colour and size scales of the layers left on (3.2's legend skips only `hidden` layers, not invisible ones,
 * so a toggle sets both; a published view never saves).
 */
export function PublishedLegend({ store, ready }: { store: Store; ready: boolean }) {
  const layers = useSyncExternalStore(store.subscribe, () => instance(store)?.visState?.layers ?? EMPTY);
  const [open, setOpen] = useState(true);

  useEffect(() => {
    // Once the map's saved config is applied (it carries the builder's legend state): the legend open.
    if (ready && !instance(store)?.uiState?.mapControls?.mapLegend?.active) store.dispatch(toggleMapControl('mapLegend', 0));
  }, [ready, store]);

  if (!layers.length) return null;
  return (
    <section className="published-legend" aria-label="Layers">
      <button type="button" className="button button-quiet" aria-expanded={open} onClick={() => setOpen(!open)}>
        Layers
      </button>
      {open && (
        <ul>
          {layers.map((l) => (
            <li key={l.id}>
              <label className="checkbox">
                <input type="checkbox" checked={l.config.isVisible} onChange={(e) => store.dispatch(layerConfigChange(l as never, { isVisible: e.target.checked, hidden: !e.target.checked }))} />
                <span className="legend-swatch" style={{ background: `rgb(${l.config.color.slice(0, 3).join(',')})` }} aria-hidden="true" />
                {l.config.label}
              </label>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
const EMPTY: LegendLayer[] = [];
