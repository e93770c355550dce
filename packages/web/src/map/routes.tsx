import { lazy, Suspense } from 'react';

// kepler.gl is several megabytes: the map screens load it on demand so workspace pages stay light.
const MapView = lazy(() => import('./MapView'));
const PublicMapView = lazy(() => import('./PublicMapView'));
const BaselineCsvView = lazy(() => import('./BaselineCsvView'));

const loading = <p className="map-loading">Loading the map…</p>;

export const MapRoute = () => (
  <Suspense fallback={loading}>
    <MapView />
  </Suspense>
);

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
export const BaselineCsvRoute = () => (
  <Suspense fallback={loading}>
    <BaselineCsvView />
  </Suspense>
);
