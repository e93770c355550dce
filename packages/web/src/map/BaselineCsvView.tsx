import { useEffect, useRef, useState } from 'react';
import { useParams } from 'react-router-dom';
import { processCsvData } from '@kepler.gl/processors';
import { client } from '../app/api';
import type { KeplerDataset } from './datasets';
import { createMapStore } from './kepler/store';
import { loadMapLook } from './basemaps/catalog';
import { KeplerMap } from './kepler/KeplerMap';
import { exposeMap, showDatasets } from './kepler/actions';
import { upgradeMapState } from './state/versions';
import { markMap } from './timing';
import './map.css';

/**
 * The map bench's baseline (packages/web/bench/map.bench.ts): the saved map's datasets loaded the way
 * stock kepler.gl loads a file, as CSV text parsed by kepler's own processCsvData, then the same
 * addDataToMap and config. The same basemap and editing UI as the owner's view, no lock taken; `window.__studioMapReady` marks the first frame.
 */
export default function BaselineCsvView() {
  const { mapId } = useParams();
  const [store, setStore] = useState<ReturnType<typeof createMapStore> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const pending = useRef<(() => void) | null>(null);

  useEffect(() => {
    (async () => {
      const record = await client.records('maps').get(mapId!);
      const saved = upgradeMapState(record.latestState ?? null);
      const look = loadMapLook({ assets: true });
      const datasets = await Promise.all(
        record.datasets.map(async (d): Promise<KeplerDataset> => {
          const text = await (await client.raw('GET', `/v1/datasets/${d.id}/data`, { headers: { accept: 'text/csv' } })).text();
          return { info: { id: d.id, label: d.id }, data: processCsvData(text) as unknown as KeplerDataset['data'] };
        }),
      );
      markMap('data-decoded');
      const s = createMapStore({ readOnly: false, look: await look });
      pending.current = () => showDatasets(s, datasets, saved?.kepler ?? null, false);
      setStore(s);
    })().catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  }, [mapId]);

  // window.__studioMap, so the bench checks the same layer is drawn.
  useEffect(() => (store ? exposeMap(store) : undefined), [store]);

  return (
    <section className="map-view">
      {error && <p role="alert">{error}</p>}
      <div className="map-canvas">{store && <KeplerMap store={store} readOnly={false} expectLayers onInitialized={() => pending.current?.()} />}</div>
    </section>
  );
}
