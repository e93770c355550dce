import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Files written by GDAL (`ogr2ogr`, the reference every GIS tool builds on) and GDAL's own reading of files
 * (`ogrinfo`, `ogr2ogr -f GeoJSON`): the oracle of the GIS file tests. `npm test` installs gdal-bin when it
 * is missing (scripts/test.mjs).
 */

export const hasGdal = (() => {
  try {
    execFileSync('ogr2ogr', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Places with every kind of attribute GeoPackage types: text, integer, real, date and date-time. */
export const GIS_POINTS = [
  { name: 'Ferry Building', visits: 120, score: 4.5, opened: '1898-07-13', seen: '2024-03-01T10:15:00Z', lng: -122.3937, lat: 37.7955 },
  { name: 'Coit Tower', visits: 80, score: 4.0, opened: '1933-10-08', seen: '2024-03-02T11:00:00Z', lng: -122.4058, lat: 37.8024 },
  { name: 'Palace of Fine Arts', visits: 95, score: 4.75, opened: '1915-02-20', seen: null, lng: -122.4484, lat: 37.8029 },
];

const collection = (features: unknown[]) => JSON.stringify({ type: 'FeatureCollection', features });
const feature = (properties: Record<string, unknown>, geometry: unknown) => ({ type: 'Feature', properties, geometry });

const POINTS_GEOJSON = collection(GIS_POINTS.map(({ lng, lat, ...p }) => feature(p, { type: 'Point', coordinates: [lng, lat] })));
/** A polygon with a hole and a multipolygon of two parts. */
const AREAS_GEOJSON = collection([
  feature({ name: 'Park', kind: 1 }, { type: 'Polygon', coordinates: [[[-122.51, 37.76], [-122.45, 37.76], [-122.45, 37.775], [-122.51, 37.775], [-122.51, 37.76]], [[-122.49, 37.765], [-122.47, 37.765], [-122.47, 37.77], [-122.49, 37.765]]] }),
  feature({ name: 'Islands', kind: 2 }, { type: 'MultiPolygon', coordinates: [[[[-122.37, 37.81], [-122.36, 37.81], [-122.36, 37.83], [-122.37, 37.81]]], [[[-122.42, 37.82], [-122.41, 37.82], [-122.41, 37.83], [-122.42, 37.82]]]] }),
]);
const ROADS_GEOJSON = collection([
  feature({ name: 'Market St', lanes: 4 }, { type: 'LineString', coordinates: [[-122.3937, 37.7955], [-122.4194, 37.7749]] }),
  feature({ name: 'Embarcadero', lanes: 2 }, { type: 'MultiLineString', coordinates: [[[-122.3937, 37.7955], [-122.4058, 37.8024]], [[-122.40, 37.80], [-122.39, 37.79]]] }),
]);

/** `ogr2ogr` from GeoJSON text into `out`, as `layer`, in `srs` (EPSG code), appended to an existing file with `update`. */
function ogr2ogr(dir: string, out: string, geojson: string, layer: string, srs: string, update: boolean, format = 'GPKG'): void {
  const src = path.join(dir, `${layer}-src.geojson`);
  writeFileSync(src, geojson);
  // GDAL's GeoJSON reader types "1898-07-13" as a Date field and ISO date-times as DateTime.
  run('ogr2ogr', [...(update ? ['-update'] : []), '-f', format, out, src, '-nln', layer, '-t_srs', srs]);
}

/** A GeoPackage of one point layer ('places') in `srs` (EPSG:4326, a UTM zone, EPSG:3857). */
export function placesGeoPackage(dir: string, srs = 'EPSG:4326', name = `places-${srs.replace(':', '')}.gpkg`): string {
  const out = path.join(dir, name);
  ogr2ogr(dir, out, POINTS_GEOJSON, 'places', srs, false);
  return out;
}

/** A GeoPackage of three layers: places (points, EPSG:4326), areas (polygons, UTM 10N), roads (lines, Web Mercator). */
export function threeLayerGeoPackage(dir: string): string {
  const out = path.join(dir, 'three-layers.gpkg');
  ogr2ogr(dir, out, POINTS_GEOJSON, 'places', 'EPSG:4326', false);
  ogr2ogr(dir, out, AREAS_GEOJSON, 'areas', 'EPSG:32610', true);
  ogr2ogr(dir, out, ROADS_GEOJSON, 'roads', 'EPSG:3857', true);
  return out;
}

/** GDAL's GeoJSON of one layer of a file (in WGS 84): the oracle's features. */
export function gdalFeatures(file: string, layer?: string): { properties: Record<string, unknown>; geometry: { type: string; coordinates: unknown } | null }[] {
  const text = run('ogr2ogr', ['-f', 'GeoJSON', '-t_srs', 'EPSG:4326', '/vsistdout/', file, ...(layer ? [layer] : [])]);
  return (JSON.parse(text) as { features: ReturnType<typeof gdalFeatures> }).features;
}

export interface OgrLayerSummary {
  name: string;
  geometry: string;
  count: number;
  epsg: string | null;
  fields: Record<string, string>;
}

/** `ogrinfo -ro -al -so`: each layer's geometry type, feature count, CRS (its last EPSG id) and field types. */
export function ogrSummary(file: string): OgrLayerSummary[] {
  const text = run('ogrinfo', ['-ro', '-al', '-so', file]);
  return text.split(/\nLayer name: /).slice(1).map((block) => {
    const lines = block.split('\n');
    const fields: Record<string, string> = {};
    for (const l of lines) {
      const m = /^(\S[^:]*): (\w+) \(/.exec(l);
      if (m && !['Geometry', 'Feature Count', 'Extent', 'Layer SRS WKT', 'FID Column', 'Geometry Column'].includes(m[1]!)) fields[m[1]!] = m[2]!;
    }
    const ids = [...block.matchAll(/ID\["EPSG",(\d+)\]\]$/gm)].map((m) => m[1]);
    return {
      name: lines[0]!.trim(),
      geometry: /^Geometry: (.+)$/m.exec(block)?.[1]?.trim() ?? '',
      count: Number(/^Feature Count: (\d+)$/m.exec(block)?.[1]),
      epsg: ids.length ? `EPSG:${ids[ids.length - 1]}` : null,
      fields,
    };
  });
}

/** `ogrinfo -ro -al` of a file's features, as text (values checked by the tests with regular expressions). */
export const ogrFeaturesText = (file: string) => run('ogrinfo', ['-ro', '-al', file]);
