import { lazy, Suspense } from 'react';
import { useParams, useSearchParams, type RouteObject } from 'react-router-dom';
import { TEST_BUILD, testHooksOn } from '../app/test-hooks';
import { NotFoundPage } from '../pages/NotFound';

// kepler.gl is several megabytes: the map screens load it on demand so workspace pages stay light.
const MapView = lazy(() => import('./MapView'));
const PublicMapView = lazy(() => import('./PublicMapView'));
// The bench's page is in the test build only (app/test-hooks.ts): production has neither its chunk nor its route.
// The define itself, not TEST_BUILD: the bundler drops the import (and its chunk) only on a condition it folds in this module.
const BaselineCsvView = typeof __STUDIO_TEST_HOOKS__ !== 'undefined' && __STUDIO_TEST_HOOKS__ ? lazy(() => import('./BaselineCsvView')) : () => null;
const QueryToMapPage = lazy(() => import('../connectors/QueryToMapPage'));

const loading = <p className="map-loading">Loading the map…</p>;

/** /{mapId} and /new (?datasetUuid=… datasets; ?connectorUuid=… a query on that connection first). */
export function MapRoute() {
  const [search] = useSearchParams();
  const { mapId } = useParams();
  const connectorUuid = mapId ? null : search.get('connectorUuid');
  return (
    <Suspense fallback={loading}>
      {connectorUuid && search.getAll('datasetUuid').length === 0 ? <QueryToMapPage connectionId={connectorUuid} /> : <MapView />}
    </Suspense>
  );
}

/** /preview/{id} of a map: read-only, no edit lock taken; `?embed=1` (a dashboard's map widget): the map alone. */
export const MapPreviewRoute = () => (
  <Suspense fallback={loading}>
    <MapView preview embed={new URLSearchParams(window.location.search).get('embed') === '1'} />
  </Suspense>
);

export const PublicMapRoute = () => (
  <Suspense fallback={loading}>
    <PublicMapView />
  </Suspense>
);

/** The map bench's baseline: stock kepler.gl's CSV loading of a saved map's data. */
const BaselineCsvRoute = () =>
  testHooksOn() ? (
    <Suspense fallback={loading}>
      <BaselineCsvView />
    </Suspense>
  ) : (
    <NotFoundPage />
  );

/** The test build's own routes (the bench's baseline page); none in production. */
export const testBuildRoutes: RouteObject[] = TEST_BUILD ? [{ path: 'bench/kepler-csv/:mapId', element: <BaselineCsvRoute /> }] : [];
