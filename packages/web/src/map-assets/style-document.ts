import type { MapLibreStyle } from '@studio/schema';

/** What the map style editor says about a style document before it is saved. */
export interface StyleSummary {
  layers: number;
  /** Layer count by type (background, fill, line, symbol…). */
  layerTypes: Record<string, number>;
  sources: number;
  /**
   * Hosts other than the studio's that the style's sources, glyphs or sprite load from: a map on this
   * style sends requests there (the studio's own styles load nothing from another host).
   */
  outsideHosts: string[];
  /** Symbol layers with text need a glyph server; without `glyphs` their labels do not draw. */
  textWithoutGlyphs: boolean;
}

/** Every URL a style loads from: source tiles and TileJSON, glyph and sprite templates. */
function urlsOf(style: MapLibreStyle): string[] {
  const urls: string[] = [];
  for (const source of Object.values(style.sources)) {
    const s = source as { url?: unknown; tiles?: unknown; data?: unknown };
    if (typeof s.url === 'string') urls.push(s.url);
    if (Array.isArray(s.tiles)) urls.push(...s.tiles.filter((t): t is string => typeof t === 'string'));
    if (typeof s.data === 'string') urls.push(s.data);
  }
  for (const key of ['glyphs', 'sprite'] as const) {
    const v = style[key];
    if (typeof v === 'string') urls.push(v);
    else if (Array.isArray(v)) urls.push(...v.flatMap((x: { url?: unknown }) => (typeof x?.url === 'string' ? [x.url] : [])));
  }
  return urls;
}

/** The host of `url` as the browser would request it from `origin`; relative URLs are the studio's own. */
function hostOf(url: string, origin: string): string | null {
  // Template braces ({z}, {fontstack}) are not valid in a host but are fine in a path.
  try {
    return new URL(url.replace(/[{}]/g, ''), origin).host;
  } catch {
    return null;
  }
}

export function summarizeStyle(style: MapLibreStyle, origin: string): StyleSummary {
  const layerTypes: Record<string, number> = {};
  for (const l of style.layers) layerTypes[l.type] = (layerTypes[l.type] ?? 0) + 1;
  const own = new URL(origin).host;
  const outsideHosts = [...new Set(urlsOf(style).map((u) => (u.startsWith('mapbox://') ? 'api.mapbox.com' : hostOf(u, origin))))].filter(
    (h): h is string => h !== null && h !== own,
  );
  const textWithoutGlyphs = !style.glyphs && style.layers.some((l) => l.type === 'symbol' && (l as { layout?: Record<string, unknown> }).layout?.['text-field'] !== undefined);
  return { layers: style.layers.length, layerTypes, sources: Object.keys(style.sources).length, outsideHosts: outsideHosts.sort(), textWithoutGlyphs };
}
