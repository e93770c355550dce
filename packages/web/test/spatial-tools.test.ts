import { describe, expect, it } from 'vitest';
import { StudioClient } from '@studio/client';
import { toolQuery, type SpatialTool, type ToolSource } from '../src/map/spatial-tools/sql';
import { useRealStudio } from './real-studio';

/** Two 0.1° squares and six points: 1-3 in the west square, 4-5 in the east one, 6 about 11 km north of both. */
const square = (name: string, x: number) => ({ type: 'Feature', properties: { zone: name }, geometry: { type: 'Polygon', coordinates: [[[x, 37.7], [x + 0.1, 37.7], [x + 0.1, 37.8], [x, 37.8], [x, 37.7]]] } });
const ZONES = JSON.stringify({ type: 'FeatureCollection', features: [square('west', -122.5), square('east', -122.4)] });
const POINTS = ['id,lat,lng', '1,37.71,-122.49', '2,37.75,-122.45', '3,37.79,-122.41', '4,37.75,-122.35', '5,37.72,-122.31', '6,37.9,-122.45'].join('\n');

/** The map builder's spatial tools' SQL, run by the studio's sandbox (spatial functions, datasets by id). */
describe('spatial tools', () => {
  const { ctx, tokenOf } = useRealStudio();
  const studio = () => new StudioClient({ baseUrl: ctx.address, token: tokenOf('owner') });
  const sourceOf = async (c: StudioClient, body: string, contentType: string, name: string): Promise<ToolSource> => {
    const d = await c.datasets.upload(body, { contentType, name });
    const full = await c.datasets.get(d.id);
    return { id: d.id, name, columns: full.metadata.columns.map((x) => x.name), detected: full.metadata.detected };
  };
  const rowsOf = async (c: StudioClient, sql: string) => (await c.pipelines.materializeSql(sql, {}, { preview: 100 })).rows ?? [];

  it.each<[SpatialTool, 'points' | 'zones', number | undefined, (r: Record<string, unknown>) => unknown, unknown[]]>([
    ['count', 'points', undefined, (r) => [r.zone, Number(r.point_count)], [['east', 2], ['west', 3]]],
    ['join', 'points', undefined, (r) => [Number(r.id), r.zone], [[1, 'west'], [2, 'west'], [3, 'west'], [4, 'east'], [5, 'east'], [6, null]]],
    ['nearest', 'points', 5000, (r) => [Number(r.id), r.zone, r.distance_m === null ? null : Math.round(Number(r.distance_m))], [[1, 'west', 0], [2, 'west', 0], [3, 'west', 0], [4, 'east', 0], [5, 'east', 0], [6, null, null]]],
    ['buffer', 'points', 1000, (r) => [Number(r.id), JSON.parse(String(r._geojson)).type, 'lat' in r], [[1, 'Polygon', false], [2, 'Polygon', false], [3, 'Polygon', false], [4, 'Polygon', false], [5, 'Polygon', false], [6, 'Polygon', false]]],
  ])('%s', async (tool, _first, metres, pick, expected) => {
    const c = studio();
    const points = await sourceOf(c, POINTS, 'text/csv', `pts_${tool}`);
    const zones = await sourceOf(c, ZONES, 'application/geo+json', `zones_${tool}`);
    const rows = (await rowsOf(c, toolQuery(tool, points, tool === 'buffer' ? null : zones, metres))).map(pick);
    expect(rows.sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)))).toEqual(expected);
  }, 60_000);

  it.each<[string, () => string]>([
    ['a buffer without a radius', () => toolQuery('buffer', { id: 'x', name: 'P', columns: ['lat', 'lng'], detected: { latitude: 'lat', longitude: 'lng' } }, null, 0)],
    ['a layer with no place', () => toolQuery('count', { id: 'x', name: 'Sales', columns: ['n'], detected: {} }, { id: 'y', name: 'Z', columns: ['g'], detected: { geometry: 'g' } })],
    ['a count without polygons', () => toolQuery('count', { id: 'x', name: 'P', columns: ['lat', 'lng'], detected: { latitude: 'lat', longitude: 'lng' } }, null)],
  ])('refuses %s with a message', (_what, make) => {
    expect(make).toThrow(/metres above 0|no geometry or latitude\/longitude|needs a second layer/);
  });
});
