import { useEffect, useRef, useState } from 'react';
import maplibregl from 'maplibre-gl';
import 'maplibre-gl/dist/maplibre-gl.css';
import { DEFAULT_BASEMAP } from '../map/basemaps/catalog';
import type { LngLat } from './points';

/** The result's points on the studio's own basemap (its style from /v1/basemaps: nothing from another host). */
export default function ResultMap({ points, label }: { points: LngLat[]; label: string }) {
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
      if (stale || !host.current) return;
      const lngs = points.map((p) => p[0]);
      const lats = points.map((p) => p[1]);
      map = new maplibregl.Map({ container: host.current, style, bounds: [[Math.min(...lngs), Math.min(...lats)], [Math.max(...lngs), Math.max(...lats)]], fitBoundsOptions: { padding: 40, maxZoom: 14 }, attributionControl: false });
      map.on('load', () => {
        map!.addSource('result', { type: 'geojson', data: { type: 'FeatureCollection', features: points.map((coordinates) => ({ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates } })) } });
        map!.addLayer({ id: 'result', type: 'circle', source: 'result', paint: { 'circle-radius': 5, 'circle-color': '#2563eb', 'circle-stroke-color': '#ffffff', 'circle-stroke-width': 1 } });
        map!.once('idle', () => !stale && setReady(true));
      });
    })().catch((e: unknown) => !stale && setError(e instanceof Error ? e.message : String(e)));
    return () => {
      stale = true;
      map?.remove();
    };
  }, [points]);
  return (
    <div className="result-map-box">
      {error && <div className="error" role="alert">{`The map could not be drawn: ${error}`}</div>}
      <div ref={host} className="result-map" role="img" aria-label={label} data-points={points.length} data-state={ready ? 'ready' : 'loading'} />
    </div>
  );
}
