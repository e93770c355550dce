import { useMemo, useState } from 'react';
import type { Store } from 'redux';
import { createMapStore, MAP_ID } from '../map/kepler/store';
import { KeplerMap } from '../map/kepler/KeplerMap';
import { showDatasets } from '../map/kepler/actions';
import { arrowToKepler, type KeplerDataset } from '../map/datasets';
import '../map/map.css';

/** How the cell's map is doing: drawing, drawn with a layer, or drawn with nothing kepler could place. */
type MapState = 'loading' | 'ready' | 'no-layer';

const layersOf = (store: Store) => ((store.getState() as { keplerGl: Record<string, { visState?: { layers?: unknown[] } } | undefined> }).keplerGl[MAP_ID]?.visState?.layers ?? []).length;

/**
 * A map cell's drawing: kepler.gl (the map builder's own component, read-only) over a cell's result as Arrow,
 * with the layer kepler makes for it — points from latitude/longitude, shapes from GeoJSON or WKT, hexagons from
 * H3 cells. Loaded lazily: only a workbook with a map cell pays for kepler. "Save as dataset" → "Open on a new
 * map" opens the same result in the full builder.
 */
export default function KeplerCellMap({ name, arrow, rows, label }: { name: string; arrow: Uint8Array; rows: number; label: string }) {
  const [store] = useState(() => createMapStore({ readOnly: true }));
  const [state, setState] = useState<MapState>('loading');
  // kepler's table of the rows, made once per result (the cell keys this component by it).
  const { dataset, error } = useMemo((): { dataset: KeplerDataset | null; error: string | null } => {
    try {
      return { dataset: arrowToKepler(name, name, arrow.slice().buffer), error: null };
    } catch (e) {
      return { dataset: null, error: e instanceof Error ? e.message : String(e) };
    }
  }, [name, arrow]);

  return (
    <div className="kepler-cell" role="img" aria-label={label} data-state={state} data-rows={rows}>
      {error && <p className="error" role="alert">{error}</p>}
      {state === 'no-layer' && <p className="muted">No latitude/longitude, GeoJSON, WKT or H3 column in this result for kepler.gl to draw.</p>}
      {dataset && (
        <KeplerMap
          store={store}
          readOnly
          expectLayers
          onMapReady={() => {
            showDatasets(store, [dataset], null, true);
            // kepler makes its layer when the data arrives; without a place column it makes none.
            requestAnimationFrame(() => setState(layersOf(store) > 0 ? 'ready' : 'no-layer'));
          }}
        />
      )}
    </div>
  );
}
