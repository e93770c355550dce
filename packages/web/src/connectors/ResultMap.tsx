import { useEffect, useRef, useState } from 'react';
import maplibregl from 'maplibre-gl';
import 'maplibre-gl/dist/maplibre-gl.css';
import { DEFAULT_BASEMAP } from '../map/basemaps/catalog';
import { boundsOfFeatures, type Feature } from '../sql/shapes';

const FILL = '#2563eb';

/**
 * A query result's features (points, lines, polygons as GeoJSON) on the studio's own basemap (its style from
 * /v1/basemaps: nothing from another host). Used by the connections' and the datasets' SQL workspaces.
 */
export default function ResultMap({ features, label }: { features: Feature[]; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [ready, setReady] = useState(false);
  useEffect(() => {
    if (!host.current) return undefined;
    let map: maplibregl.Map | null = null;
    let stale = false;
    (async () => {
      const list = (await (await fetch('/v1/basemaps')).json()) as { items: { id: string; styleUrl: string }[] };
      const basemap = list.items.find((b) => b.id === DEFAULT_BASEMAP) ?? list.items[0];
      if (!basemap || stale) return;
      const style = await (await fetch(basemap.styleUrl)).json();
      const bounds = boundsOfFeatures(features);
      if (stale || !host.current || !bounds) return;
      map = new maplibregl.Map({ container: host.current, style, bounds: [[bounds[0], bounds[1]], [bounds[2], bounds[3]]], fitBoundsOptions: { padding: 40, maxZoom: 14 }, attributionControl: false });
      map.on('load', () => {
        map!.addSource('result', { type: 'geojson', data: { type: 'FeatureCollection', features } as never });
        const is = (...types: string[]) => ['match', ['geometry-type'], types, true, false] as never;
        map!.addLayer({ id: 'result-fill', type: 'fill', source: 'result', filter: is('Polygon', 'MultiPolygon'), paint: { 'fill-color': FILL, 'fill-opacity': 0.45 } });
        map!.addLayer({ id: 'result-line', type: 'line', source: 'result', filter: is('Polygon', 'MultiPolygon', 'LineString', 'MultiLineString'), paint: { 'line-color': FILL, 'line-width': 2 } });
        map!.addLayer({ id: 'result', type: 'circle', source: 'result', filter: is('Point', 'MultiPoint'), paint: { 'circle-radius': 5, 'circle-color': FILL, 'circle-stroke-color': '#ffffff', 'circle-stroke-width': 1 } });
        map!.once('idle', () => !stale && setReady(true));
      });
    })().catch((e: unknown) => !stale && setError(e instanceof Error ? e.message : String(e)));
    return () => {
      stale = true;
      map?.remove();
    };
  }, [features]);
  return (
    <div className="result-map-box">
      {error && <div className="error" role="alert">{`The map could not be drawn: ${error}`}</div>}
      <div ref={host} className="result-map" role="img" aria-label={label} data-points={features.length} data-state={ready ? 'ready' : 'loading'} />
    </div>
  );
}
