import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import { feature, mesh } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import type { Feature, FeatureCollection, Geometry } from 'geojson';

const require = createRequire(import.meta.url);

/** The basemap's tile layers, in drawing order. */
export const BASEMAP_LAYERS = ['land', 'countries', 'states', 'counties'] as const;
export type BasemapLayer = (typeof BASEMAP_LAYERS)[number];

/** The first zoom a layer appears at: county borders are noise on a world view and heavy to cut. */
export const LAYER_MIN_ZOOM: Record<BasemapLayer, number> = { land: 0, countries: 0, states: 2, counties: 5 };

async function topology(pkg: string, file: string): Promise<Topology> {
  return JSON.parse(await fs.readFile(require.resolve(`${pkg}/${file}`), 'utf8')) as Topology;
}

const collection = (features: Feature[]): FeatureCollection => ({ type: 'FeatureCollection', features });
const one = (geometry: Geometry, properties: Record<string, unknown> = {}): Feature => ({ type: 'Feature', properties, geometry });

/**
 * The basemap's geography as GeoJSON, from Natural Earth (world-atlas, 1:50m) and the US Census
 * (us-atlas, 1:10m). Borders are meshes (each shared edge once), so a border is drawn once, not twice
 * as two polygon outlines would be.
 */
export async function buildGeography(): Promise<Record<BasemapLayer, FeatureCollection>> {
  const [land, countries, states, counties] = await Promise.all([
    topology('world-atlas', 'land-50m.json'),
    topology('world-atlas', 'countries-50m.json'),
    topology('us-atlas', 'states-10m.json'),
    topology('us-atlas', 'counties-10m.json'),
  ]);
  const objectOf = (t: Topology, name: string) => t.objects[name] as GeometryCollection;
  const landFc = feature(land, objectOf(land, 'land')) as unknown as FeatureCollection | Feature;
  const inner = (a: unknown, b: unknown) => a !== b;
  return {
    land: landFc.type === 'FeatureCollection' ? landFc : collection([landFc]),
    countries: collection([one(mesh(countries, objectOf(countries, 'countries'), inner), { kind: 'country' })]),
    states: collection([one(mesh(states, objectOf(states, 'states'), inner), { kind: 'state' })]),
    counties: collection([one(mesh(counties, objectOf(counties, 'counties'), inner), { kind: 'county' })]),
  };
}
