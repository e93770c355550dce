import { useEffect, useState, type FormEvent } from 'react';
import { useParams } from 'react-router-dom';
import { StudioApiError } from '@studio/client';
import type { PublishedMap } from '@studio/client';
import { client } from '../app/api';
import { ErrorMessage } from '../app/ui';
import { loadPublishedDataset } from './datasets';
import { drawnFromTiles } from './tile-choice/choice';
import { createMapStore } from './kepler/store';
import { loadMapLook } from './basemaps/catalog';
import { KeplerMap } from './kepler/KeplerMap';
import { exposeMap, showDatasets } from './kepler/actions';
import { savedView, upgradeMapState } from './state/versions';
import { ExportImageDialog } from './export/ExportImageDialog';
import { ExportVideoDialog } from './export/ExportVideoDialog';
import { PublishedLegend } from './PublishedLegend';
import { useSession } from '../app/session';
import { TimeZoneChooser, TimeZoneContext, useTimeZone } from './time-zone/TimeZoneChooser';
import './map.css';

type View = { state: 'loading' } | { state: 'unpublished' } | { state: 'password'; wrong: boolean; wait?: string } | { state: 'map'; store: ReturnType<typeof createMapStore>; map: PublishedMap; addData: () => void; shown?: boolean } | { state: 'error'; message: string };

/** /public/{id}: a published map, read only, without signing in; a password form when protected. */
export default function PublicMapView() {
  const { id = '' } = useParams();
  const [view, setView] = useState<View>({ state: 'loading' });
  const [password, setPassword] = useState('');
  const [imaging, setImaging] = useState(false);
  const [filming, setFilming] = useState(false);
  const { user } = useSession();
  const [zone, setZone] = useTimeZone(view.state === 'map' ? view.store : null, user?.id ?? null);

  /** `grant`: from the password form, sent instead of the password so the server checks it once. */
  async function show(map: PublishedMap, grant?: string) {
    const saved = upgradeMapState(map.latestState);
    // The data downloads while kepler and the basemap start (see MapView).
    // Drawn as the map was saved: from a table dataset's own tiles where its layers were (#50).
    const fromTiles = drawnFromTiles(saved);
    const datasets = Promise.all(map.datasetIds.map((d) => loadPublishedDataset(id, d, map.name, grant, fromTiles.has(d))));
    datasets.catch(() => undefined); // reported when added (below), not as an unhandled rejection
    const store = createMapStore({ readOnly: true, look: await loadMapLook({ assets: false }), view: savedView(saved?.kepler) });
    const addData = () => {
      if (!map.datasetIds.length) return;
      datasets
        .then((ds) => {
          showDatasets(store, ds, saved?.kepler ?? null, true, saved ?? undefined);
          setView((v) => (v.state === 'map' && v.store === store ? { ...v, shown: true } : v));
        })
        .catch((e: unknown) => setView({ state: 'error', message: e instanceof Error ? e.message : String(e) }));
    };
    setView({ state: 'map', store, map, addData });
  }

  useEffect(() => {
    client.maps
      .publishedMap(id)
      .then((map) => show(map))
      .catch((e: unknown) => {
        if (e instanceof StudioApiError && e.status === 401) setView({ state: 'password', wrong: false });
        else if (e instanceof StudioApiError && e.status === 404) setView({ state: 'unpublished' });
        else setView({ state: 'error', message: e instanceof Error ? e.message : String(e) });
      });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [id]);

  const shownStore = view.state === 'map' ? view.store : null;
  useEffect(() => (shownStore ? exposeMap(shownStore) : undefined), [shownStore]);

  async function submit(e: FormEvent) {
    e.preventDefault();
    try {
      const { map, grant } = await client.maps.unlockPublishedMap(id, password);
      await show(map, grant?.token);
    } catch (err) {
      if (err instanceof StudioApiError && err.status === 403) setView({ state: 'password', wrong: true });
      else if (err instanceof StudioApiError && err.status === 429) setView({ state: 'password', wrong: true, wait: err.message });
      else setView({ state: 'error', message: err instanceof Error ? err.message : String(err) });
    }
  }

  if (view.state === 'loading') return <p className="map-loading">Loading the map…</p>;
  if (view.state === 'error') return <ErrorMessage message={view.message} />;
  if (view.state === 'unpublished')
    return (
      <section className="page message-page">
        <h1>This map is not published</h1>
        <p className="lead">Its owner has not published it, or has withdrawn it. Ask them for a new link.</p>
      </section>
    );
  if (view.state === 'password')
    return (
      <section className="page public-password">
        <h1>This map is protected</h1>
        <form className="form" onSubmit={submit}>
          <label htmlFor="public-map-password">Password</label>
          <input id="public-map-password" type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoFocus />
          {view.wrong && <ErrorMessage message={view.wait ?? 'Wrong password'} />}
          <button type="submit" className="button button-primary" disabled={!password}>
            View map
          </button>
        </form>
      </section>
    );
  // ?embed=1 (/embed.js, a published dashboard's map widget): the map fills its frame, without the title bar;
  // the time zone chooser goes on the map, compact.
  const embedded = new URLSearchParams(window.location.search).get('embed') === '1';
  return (
    <section className={`map-view public-map${embedded ? ' map-view-embedded' : ''}`}>
      <header className="map-toolbar">
        <h1 className="map-title">{view.map.name}</h1>
        {!embedded && <TimeZoneChooser store={view.store} zone={zone} onChange={setZone} />}
        <button type="button" className="button" onClick={() => setImaging(true)}>
          Export image
        </button>
        <button type="button" className="button" onClick={() => setFilming(true)}>
          Export video
        </button>
      </header>
      <div className="map-canvas">
        <TimeZoneContext.Provider value={zone}>
          <KeplerMap store={view.store} readOnly expectLayers={view.map.datasetIds.length > 0} onMapReady={view.addData} />
        </TimeZoneContext.Provider>
        <PublishedLegend store={view.store} ready={Boolean(view.shown)} />
        {embedded && <TimeZoneChooser store={view.store} zone={zone} onChange={setZone} compact />}
      </div>
      {imaging && <ExportImageDialog store={view.store} mapName={view.map.name} onClose={() => setImaging(false)} />}
      {filming && <ExportVideoDialog store={view.store} mapName={view.map.name} zone={zone} onClose={() => setFilming(false)} />}
    </section>
  );
}
