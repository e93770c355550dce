import { useEffect, useRef, useState } from 'react';
import maplibregl from 'maplibre-gl';
import 'maplibre-gl/dist/maplibre-gl.css';
import type { TileLinks, VectorTileInfo } from '@studio/schema';
import { DEFAULT_BASEMAP } from '../map/basemaps/catalog';

const FILL = '#2563eb';
const LAYERS = ['tiles-fill', 'tiles-line', 'tiles-point'];

/** The studio's default basemap style (from /v1/basemaps: nothing from another host). */
async function basemapStyle(): Promise<maplibregl.StyleSpecification | null> {
  const list = (await (await fetch('/v1/basemaps')).json()) as { items: { id: string; styleUrl: string }[] };
  const basemap = list.items.find((b) => b.id === DEFAULT_BASEMAP) ?? list.items[0];
  return basemap ? ((await (await fetch(basemap.styleUrl)).json()) as maplibregl.StyleSpecification) : null;
}

/**
 * A dataset's vector tiles drawn as a layer on the studio's basemap, fitted to their bounds: MapLibre reads them
 * through the signed links (plain GETs), as a map renderer does. `data-features` counts what is drawn once the map
 * is idle, so a page (and its test) can tell tiles that draw from tiles that are empty.
 */
export default function TilesPreview({ info, links, label }: { info: VectorTileInfo; links: TileLinks; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [drawn, setDrawn] = useState<number | null>(null);
  useEffect(() => {
    if (!host.current) return undefined;
    let map: maplibregl.Map | null = null;
    let stale = false;
    (async () => {
      const style = await basemapStyle();
      if (stale || !host.current || !style) return;
      const [w, s, e, n] = info.bounds;
      map = new maplibregl.Map({ container: host.current, style, bounds: [[w, s], [e, n]], fitBoundsOptions: { padding: 30, maxZoom: info.maxZoom }, attributionControl: false });
      map.on('load', () => {
        // While only the low zooms are cut, MapLibre enlarges the deepest of them (deeper tiles are empty until then).
        map!.addSource('tiles', { type: 'vector', tiles: [links.tileUrl], minzoom: info.minZoom, maxzoom: info.cutMaxZoom ?? info.maxZoom, bounds: info.bounds });
        const from = { source: 'tiles', 'source-layer': info.layer };
        const is = (...types: string[]) => ['match', ['geometry-type'], types, true, false] as never;
        map!.addLayer({ id: LAYERS[0]!, type: 'fill', ...from, filter: is('Polygon', 'MultiPolygon'), paint: { 'fill-color': FILL, 'fill-opacity': 0.45 } });
        map!.addLayer({ id: LAYERS[1]!, type: 'line', ...from, filter: is('Polygon', 'MultiPolygon', 'LineString', 'MultiLineString'), paint: { 'line-color': FILL, 'line-width': 1.5 } });
        map!.addLayer({ id: LAYERS[2]!, type: 'circle', ...from, filter: is('Point', 'MultiPoint'), paint: { 'circle-radius': 3, 'circle-color': FILL, 'circle-stroke-color': '#ffffff', 'circle-stroke-width': 0.5 } });
        map!.on('idle', () => !stale && setDrawn(map!.queryRenderedFeatures({ layers: LAYERS }).length));
      });
      map.on('error', (ev) => !stale && setError(ev.error?.message ?? 'The tiles could not be drawn'));
    })().catch((e: unknown) => !stale && setError(e instanceof Error ? e.message : String(e)));
    return () => {
      stale = true;
      map?.remove();
    };
  }, [info, links]);
  return (
    <div className="tiles-preview-box">
      {error && <div className="error" role="alert">{`The tiles could not be drawn: ${error}`}</div>}
      <div ref={host} className="tiles-preview" role="img" aria-label={label} data-state={drawn === null ? 'loading' : 'ready'} data-features={drawn ?? undefined} />
    </div>
  );
}
