import { useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { Id, downloadFileBase, type StudioRecord } from '@studio/schema';
import { StudioApiError } from '@studio/client';
import { client } from '../app/api';
import { heldHere, useEditLock } from '../app/useEditLock';
import { LockRequests } from '../app/LockRequests';
import { useUser } from '../app/session';
import { DuplicateButton } from '../app/DuplicateButton';
import { RECORD_KINDS } from '../app/record-links';
import { ErrorMessage, useAction } from '../app/ui';
import { saveBlob } from '../app/save-blob';
import { NotFoundPage } from '../pages/NotFound';
import { MapDraws } from './tile-choice/map-draws';
import { DrawChoicesContext, PendingDraws } from './tile-choice/DrawChoices';
import { createMapStore } from './kepler/store';
import { loadMapLook } from './basemaps/catalog';
import { rememberBasemapPicks, rememberedBasemap } from './basemaps/remember';
import { KeplerMap, captureMapPng } from './kepler/KeplerMap';
import { addDatasets, currentConfig, datasetIdsOnMap, exposeMap, showDatasets } from './kepler/actions';
import { AddDataContext, type AddDataTarget } from './add-data/CatalogPicker';
import { savedView, upgradeMapState, wrapKeplerConfig } from './state/versions';
import { timeEndsToSave } from './time-span/saved-ends';
import { sizeLegendsToSave } from './legend/size-labels';
import { PublishDialog } from './PublishDialog';
import { SpatialToolsDialog } from './spatial-tools/SpatialToolsDialog';
import { ExportImageDialog } from './export/ExportImageDialog';
import { ExportVideoDialog } from './export/ExportVideoDialog';
import { AddToProjectButton } from '../projects/AddRecordToProjectDialog';
import { EditorHistoryDialogs } from '../app/history/HistoryPanel';
import { VersionBanner } from '../app/history/VersionBanner';
import { VersionMessageField } from '../app/history/useVersionedSave';
import { useEditorHistory } from '../app/history/useEditorHistory';
import { versionParam } from '../app/history/versions';
import { loadPinned, openMapVersion } from './version-view';
import { TimeZoneChooser, TimeZoneContext, useTimeZone } from './time-zone/TimeZoneChooser';
import './map.css';

const maps = () => client.records('maps');

/** How often an open map renews its edit lock: well inside the lock's LOCK_TTL_SECONDS (300). */


interface Loaded {
  record: StudioRecord | null;
  datasetIds: string[];
  readOnly: boolean;
  /** Who holds the edit lock when it is someone else. */
  lockedBy: string | null;
  /** The user holds the edit lock in another tab or device: this tab reads until the user takes it over. */
  lockElsewhere: boolean;
}

/**
 * The map view: /{mapId} opens a saved map (taking the edit lock), /new starts one, with
 * ?datasetUuid=… datasets. Viewers and people who find the lock taken get a read-only map.
 */
export default function MapView({ preview = false, embed = false }: { preview?: boolean; embed?: boolean }) {
  // /{mapId} opens the map; /preview/{id} shows it read-only, without taking the edit lock.
  const params = useParams();
  const mapId = params.mapId ?? params.id;
  const [search] = useSearchParams();
  const user = useUser();
  const navigate = useNavigate();
  // The id this view just created: moving from /new to /{id} after the first save keeps the map.
  const created = useRef<string | null>(null);
  const loadKey = mapId && mapId === created.current ? created.current : (mapId ?? `new:${search.getAll('datasetUuid').join(',')}`);
  // /preview/{id}?atVersion=n: that saved version, read-only, as it was (#51).
  const hist = useEditorHistory('maps', preview ? versionParam(search) : null);
  /**
   * Counts the stores made: the kepler element is made anew for each (a restore makes one for the same map), and only
   * then. Not keyed by the address: the move from /new to /{id} after a first save kept the store, but a new key
   * unmounted kepler, whose unmount deletes its instance from the store — the saved map went blank.
   */
  const storeGeneration = useRef(0);
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [missing, setMissing] = useState(false);
  const [store, setStore] = useState<ReturnType<typeof createMapStore> | null>(null);
  // How each dataset is drawn (its tiles past the installation's threshold, or all rows), made with the store.
  const [draws, setDraws] = useState<MapDraws | null>(null);
  const [name, setName] = useState('Untitled map');
  const [saving, setSaving] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [publishing, setPublishing] = useState(false);
  const [tools, setTools] = useState(false);
  const [imaging, setImaging] = useState(false);
  const [filming, setFilming] = useState(false);
  const exporting = useAction();
  const [zone, setZone] = useTimeZone(store, user.id);
  const box = useRef<HTMLDivElement>(null);
  /** Adds the loaded data once kepler has registered its instance. */
  const pending = useRef<(() => void) | null>(null);

  useEffect(() => {
    const restored = hist.afterRestore();
    if (created.current && loadKey === created.current && !restored) return;
    let cancelled = false;
    if (!restored) setLoaded(null);
    setError(null);
    setMissing(false);
    (async () => {
      let record: StudioRecord | null = null;
      let datasetIds = search.getAll('datasetUuid');
      if (mapId) {
        // A mistyped address is a missing map, not an "Invalid UUID" error.
        if (!Id.safeParse(mapId).success) return setMissing(true);
        record = await maps().get(mapId, { acquireLock: !preview }).catch((e: unknown) => {
          if (e instanceof StudioApiError && e.status === 404) return null;
          throw e;
        });
        if (!record) return setMissing(true);
        datasetIds = record.datasets.map((d) => d.id);
      }
      const old = mapId && hist.atVersion ? await openMapVersion(mapId, hist.atVersion, datasetIds) : null;
      if (old) datasetIds = old.datasetIds;
      const lockedBy = record?.lock && record.lock.ownerId !== user.id && new Date(record.lock.expiresAt) > new Date() ? record.lock.ownerName : null;
      const lockElsewhere = Boolean(!preview && record?.lock && !lockedBy && !heldHere(record.lock, user.id));
      const readOnly = preview || Boolean(record && (['viewer', 'limited-viewer'].includes(record.access) || lockedBy || lockElsewhere));
      const saved = old ? old.saved : upgradeMapState(record?.latestState ?? null);
      // The data downloads and decodes (or its tiles are cut) while kepler and the basemap start; it is added once both are there.
      const mapDraws = new MapDraws({ ...saved?.draw });
      // A pinned version's datasets draw their snapshot's rows (#51); the others as the map draws today's.
      const datasets = Promise.all(datasetIds.map((id) => (old?.pins.has(id) ? loadPinned(id, old.pins.get(id)!) : mapDraws.opening(id))));
      datasets.catch(() => undefined); // reported when added (below), not as an unhandled rejection
      const look = await loadMapLook({ assets: true, preferred: rememberedBasemap(user.id) });
      if (cancelled) return;
      const s = createMapStore({ readOnly, look, view: savedView(saved?.kepler), middleware: [rememberBasemapPicks(user.id)] });
      pending.current = datasetIds.length
        ? () => {
            datasets.then((ds) => !cancelled && showDatasets(s, ds.filter((d) => d !== null), saved?.kepler ?? null, readOnly, saved ?? undefined)).catch((e: unknown) => !cancelled && setError(e instanceof Error ? e.message : String(e)));
          }
        : null;
      storeGeneration.current += 1;
      mapDraws.attach(s);
      setDraws(mapDraws);
      setStore(s);
      hist.setVersion(old?.version ?? null);
      setName(record?.name ?? 'Untitled map');
      setLoaded({ record, datasetIds, readOnly, lockedBy, lockElsewhere });
    })().catch((e: unknown) => !cancelled && setError(e instanceof Error ? e.message : String(e)));
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [loadKey, hist.reloads]);

  useEffect(() => (store ? exposeMap(store) : undefined), [store]);

  // kepler's "Add Data" (the studio's catalog picker) adds to this map's store.
  const addData = useMemo<AddDataTarget | null>(
    () =>
      store &&
      draws && {
        onMap: () => datasetIdsOnMap(store),
        add: (ids) => draws.add(store, ids),
      },
    [store, draws],
  );

  // While this tab holds the edit lock: renew it before it runs out, notice when another tab took it
  // over, and give it up when the tab closes or the map is left.
  const lockedRecordId = loaded?.record && !loaded.readOnly ? loaded.record.id : null;
  useEditLock('map', lockedRecordId, (r) => {
    if (!heldHere(r.lock, user.id)) setLoaded((l) => l && { ...l, readOnly: true, lockElsewhere: r.lock?.ownerId === user.id, lockedBy: r.lock && r.lock.ownerId !== user.id ? r.lock.ownerName : null });
  });

  /** "Edit here": the user takes their own lock from the other tab, and this tab opens for editing. */
  async function takeOver() {
    if (!loaded?.record) return;
    try {
      await maps().get(loaded.record.id, { acquireLock: true, takeOver: true });
      window.location.reload();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  const canSave = loaded !== null && !loaded.readOnly;
  const canPublish = loaded?.record && ['owner', 'admin'].includes(loaded.record.access);

  async function save() {
    if (!store || !loaded) return;
    setSaving(true);
    setError(null);
    setNotice(null);
    try {
      const latestState = wrapKeplerConfig(currentConfig(store), draws?.overridesToSave(datasetIdsOnMap(store)), { timeEnds: timeEndsToSave(store), sizeLegends: sizeLegendsToSave(store) });
      // The datasets on the map now: those it opened with and those added through "Add Data". Data that
      // has not arrived (or failed to) is not dropped from the map by a save.
      const onMap = datasetIdsOnMap(store);
      const datasetIds = onMap.length ? onMap : loaded.datasetIds;
      const body = { name, latestState, datasets: datasetIds };
      // An existing map saves as a version based on the one it opened; refused (and shown) when someone saved meanwhile.
      const record = loaded.record ? await hist.saver.save(loaded.record, body, { acquireLock: true }) : await maps().save(body, { acquireLock: true });
      if (!record) return;
      const png = box.current ? await captureMapPng(box.current) : null;
      if (png) await client.raw('PUT', `/v1/maps/${record.id}/thumbnail`, { rawBody: png, contentType: 'image/png' });
      setLoaded({ ...loaded, record, datasetIds });
      setNotice('Saved');
      if (!loaded.record) {
        created.current = record.id;
        navigate(`/${record.id}`, { replace: true });
      }
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setSaving(false);
    }
  }

  const banner = useMemo(() => {
    if (!loaded) return null;
    if (loaded.lockedBy) return `Read only: ${loaded.lockedBy} is editing this map.`;
    if (loaded.lockElsewhere) return 'Read only: you are editing this map in another tab.';
    if (loaded.readOnly) return 'Read only: you can view this map.';
    return null;
  }, [loaded]);

  if (missing) return <NotFoundPage title="Map not found" lead="No map has this address, or it was deleted, or you were not given access to it." />;

  return (
    <section className={`map-view${embed ? ' map-view-embedded' : ''}`}>
      <header className="map-toolbar">
        <input className="map-name" aria-label="Map name" value={name} onChange={(e) => setName(e.target.value)} disabled={!canSave} />
        {canSave && loaded?.record && <VersionMessageField saver={hist.saver} />}
        {canSave && (
          <button type="button" className="button button-primary" onClick={save} disabled={saving || !store}>
            {saving ? 'Saving…' : 'Save'}
          </button>
        )}
        {canSave && store && (
          <button type="button" className="button" title="Join, count points in polygons, buffer, nearest: a new dataset from the layers" onClick={() => setTools(true)}>
            Spatial tools
          </button>
        )}
        {canPublish && (
          <button type="button" className="button" onClick={() => setPublishing(true)}>
            Publish
          </button>
        )}
        {loaded?.record && (
          <button type="button" className="button" disabled={exporting.pending} title="The saved map and its datasets, as a file kepler.gl opens" onClick={() => void exporting.run(async () => saveBlob(await client.maps.exportKepler(loaded.record!.id), `${downloadFileBase(name)}.kepler.json`))}>
            {exporting.pending ? 'Exporting…' : 'Export kepler.gl map'}
          </button>
        )}
        {store && (
          <button type="button" className="button" onClick={() => setImaging(true)}>
            Export image
          </button>
        )}
        {store && (
          <button type="button" className="button" onClick={() => setFilming(true)}>
            Export video
          </button>
        )}
        {store && !embed && <TimeZoneChooser store={store} zone={zone} onChange={setZone} />}
        {loaded?.record && (
          <a className="button" href={`/dashboard/new?mapId=${loaded.record.id}`}>
            New dashboard
          </a>
        )}
        {loaded?.record && <AddToProjectButton record={{ id: loaded.record.id, name }} kind="map" />}
        {loaded?.record && !hist.version && (
          <button type="button" className="button" onClick={() => hist.setOpen(true)}>
            History
          </button>
        )}
        {hist.version && loaded?.record && <VersionBanner collection="maps" id={loaded.record.id} version={hist.version} />}
        {notice && <span className="map-notice" role="status">{notice}</span>}
        {banner && !hist.version && <span className="map-banner" role="note">{banner}</span>}
        {loaded?.record && loaded.readOnly && !preview && !hist.version && <DuplicateButton collection="maps" record={loaded.record} href={RECORD_KINDS.map.href} />}
        {loaded?.record && !preview && <LockRequests type="map" record={loaded.record} userId={user.id} isAdmin={user.isAdmin} mayEdit={['editor', 'owner', 'admin'].includes(loaded.record.access)} editingHere={!loaded.readOnly} />}
        {loaded?.lockElsewhere && (
          <button type="button" className="button" onClick={() => void takeOver()}>
            Edit here
          </button>
        )}
      </header>
      <ErrorMessage message={error ?? exporting.error} />
      {/* A read-only map has no layer panel: a dataset whose tiles could not be cut says so here. */}
      {loaded?.readOnly && draws && (
        <DrawChoicesContext.Provider value={draws}>
          <PendingDraws />
        </DrawChoicesContext.Provider>
      )}
      <div className="map-canvas" ref={box}>
        {store && loaded ? (
          <AddDataContext.Provider value={addData}>
            <DrawChoicesContext.Provider value={draws}>
              <TimeZoneContext.Provider value={zone}>
                <KeplerMap key={storeGeneration.current} store={store} readOnly={loaded.readOnly} expectLayers={loaded.datasetIds.length > 0} onMapReady={() => pending.current?.()} />
              </TimeZoneContext.Provider>
            </DrawChoicesContext.Provider>
          </AddDataContext.Provider>
        ) : (
          !error && <p className="map-loading">Loading the map…</p>
        )}
        {store && embed && <TimeZoneChooser store={store} zone={zone} onChange={setZone} compact />}
      </div>
      {imaging && store && <ExportImageDialog store={store} mapName={name} onClose={() => setImaging(false)} />}
      {filming && store && <ExportVideoDialog store={store} mapName={name} zone={zone} onClose={() => setFilming(false)} />}
      {tools && store && draws && <SpatialToolsDialog store={store} draws={draws} onClose={() => setTools(false)} />}
      <EditorHistoryDialogs history={hist} record={loaded?.record ?? null} canRestore={canSave} onSaveOver={() => void save()} />
      {publishing && loaded?.record && <PublishDialog mapId={loaded.record.id} mapName={name} onClose={() => setPublishing(false)} />}
    </section>
  );
}
