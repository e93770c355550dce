import { describe, expect, it } from 'vitest';
import { SPATIAL_FUNCTIONS } from '@studio/spatial';
import { SPATIAL_FUNCTION_SIGNATURES } from '@studio/schema';
import { SPATIAL_COMPLETIONS, datasetCompletion } from '../src/sql/completion';
import { downloadQuery, mapQuery } from '../src/sql/map-query';
import { boundsOfFeatures, findShapes } from '../src/sql/shapes';

describe('the SQL workspace over datasets', () => {
  it('completes exactly the spatial functions the sandbox registers', () => {
    expect(Object.keys(SPATIAL_FUNCTION_SIGNATURES).sort()).toEqual(SPATIAL_FUNCTIONS.map((f) => f.label).sort());
    expect(SPATIAL_COMPLETIONS.find((c) => c.label === 'ST_DWithin')).toMatchObject({ type: 'function', apply: 'ST_DWithin(', detail: '(a, b, metres)' });
  });

  it('completes datasets by their table names with their columns, leaving out names two datasets share', async () => {
    const columns: Record<string, string[]> = { a: ['name', 'lat'], b: ['fips', '_geojson'], c: ['x'], d: ['y'] };
    const schema = await datasetCompletion(
      async () => [{ id: 'a', name: 'SF points' }, { id: 'b', name: 'counties' }, { id: 'c', name: 'dup-name' }, { id: 'd', name: 'dup name' }],
      async (id) => ({ metadata: { columns: columns[id]!.map((name) => ({ name })) } }) as never,
    );
    expect(schema).toEqual({ SF_points: ['name', 'lat'], counties: ['fips', '_geojson'] });
  });

  it.each([
    ['no geometry BLOB: the view itself', [{ name: 'n', type: 'BIGINT' }], null],
    ['WKB as GeoJSON text, the first as kepler\'s _geojson, quoted', [{ name: 'name', type: 'VARCHAR' }, { name: 'box', type: 'BLOB' }, { name: 'buf "1"', type: 'BLOB' }],
      'SELECT "name", ST_AsGeoJSON("box") AS "_geojson", ST_AsGeoJSON("buf ""1""") AS "buf ""1""" FROM "temp_abc123" LIMIT 10000'],
    ['a _geojson column already: names kept', [{ name: '_geojson', type: 'VARCHAR' }, { name: 'box', type: 'BLOB' }], 'SELECT "_geojson", ST_AsGeoJSON("box") AS "box" FROM "temp_abc123" LIMIT 10000'],
  ])('draws on the map: %s', (_what, cols, sql) => {
    expect(mapQuery('temp_abc123', cols)).toBe(sql);
  });

  it.each([
    ['the first WKB column as `geometry` GeoJSON, all rows', [{ name: 'name', type: 'VARCHAR' }, { name: 'geom', type: 'BLOB' }], 'SELECT "name", ST_AsGeoJSON("geom") AS "geometry" FROM "temp_abc123"'],
    ['a geometry column already: names kept', [{ name: 'Geometry', type: 'VARCHAR' }, { name: 'box', type: 'BLOB' }], 'SELECT "Geometry", ST_AsGeoJSON("box") AS "box" FROM "temp_abc123"'],
  ])('downloads: %s', (_what, cols, sql) => {
    expect(downloadQuery('temp_abc123', cols)).toBe(sql);
  });
});

describe('the shapes a result map draws', () => {
  const square = '{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0]]]}';
  it.each<[string, Record<string, unknown>[], string | null, string[]]>([
    ['GeoJSON polygons, other columns as properties', [{ name: 'a', g: square }, { name: 'b', g: square }], 'g', ['Polygon', 'Polygon']],
    ['a Feature\'s geometry', [{ f: `{"type":"Feature","properties":{},"geometry":${square}}` }], 'f', ['Polygon']],
    ['latitude/longitude when no GeoJSON', [{ lat: 37.7, lng: -122.4 }], 'lat, lng', ['Point']],
    ['nothing to place', [{ n: 1, s: '{not json' }], null, []],
  ])('%s', (_what, rows, from, types) => {
    const found = findShapes(rows);
    expect(found?.from ?? null).toBe(from);
    expect((found?.features ?? []).map((f) => f.geometry.type)).toEqual(types);
  });

  it('bounds every position of every feature', () => {
    expect(boundsOfFeatures(findShapes([{ g: '{"type":"MultiPoint","coordinates":[[-3,2],[5,-1]]}' }, { g: '{"type":"Point","coordinates":[1,9]}' }])!.features)).toEqual([-3, -1, 5, 9]);
  });
});
