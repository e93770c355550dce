import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

/**
 * A pipeline with a spatial join through `POST /v1/query` (streamed and kept as a temporary view): the server plans
 * the join (services/pipelines.ts compileForCaller) before any consumer runs it. Rows worked out by hand: two unit
 * squares side by side; A inside the west one, B inside the east one, C on their shared edge (contained by neither:
 * ST_Contains excludes the boundary), D outside both.
 */
const AREAS = JSON.stringify({
  type: 'FeatureCollection',
  features: [
    { type: 'Feature', properties: { area: 'west' }, geometry: { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]] } },
    { type: 'Feature', properties: { area: 'east' }, geometry: { type: 'Polygon', coordinates: [[[1, 0], [2, 0], [2, 1], [1, 1], [1, 0]]] } },
  ],
});
const PLACES = 'place,wkt\nA,POINT(0.5 0.5)\nB,POINT(1.5 0.25)\nC,POINT(1 0.5)\nD,POINT(3 3)\n';

describe.each(STORES)('spatial joins through the query API on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  let areas: string;
  let places: string;
  const post = (url: string, payload: unknown) => s.app.inject({ method: 'POST', url, payload: payload as object, headers: { authorization: cast.tokens.owner } });
  const upload = async (name: string, body: string, type: string) =>
    (await s.app.inject({ method: 'POST', url: `/v1/datasets/data?name=${name}`, payload: body, headers: { authorization: cast.tokens.owner, 'content-type': type } })).json().item.id as string;

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
    areas = await upload('Areas', AREAS, 'application/geo+json');
    places = await upload('Places', PLACES, 'text/csv');
  });
  afterAll(async () => s?.dispose());

  const joined = (join: 'INNER' | 'LEFT') => ({
    type: 'sort',
    by: ['place'],
    input: [{
      type: 'select',
      expressions: ['place', 'area'],
      input: [{
        type: 'spatialJoin', predicate: 'within', join, leftGeometry: 'wkt', rightGeometry: '_geojson', columns: ['area'],
        input: [{ type: 'dataset', uuid: places, input: [] }, { type: 'dataset', uuid: areas, input: [] }],
      }],
    }],
  });

  it.each([
    ['INNER', [{ place: 'A', area: 'west' }, { place: 'B', area: 'east' }]],
    ['LEFT', [{ place: 'A', area: 'west' }, { place: 'B', area: 'east' }, { place: 'C', area: null }, { place: 'D', area: null }]],
  ] as const)('%s join: each place with the area it lies within', async (join, rows) => {
    const res = await post('/v1/query?format=json', joined(join));
    expect(res.statusCode).toBe(200);
    expect(res.json().items).toEqual(rows);
  });

  it('keeps the joined rows as a temporary view', async () => {
    const res = await post('/v1/query?materialize=true&preview=10', joined('INNER'));
    expect(res.statusCode).toBe(201);
    expect(res.json().item).toMatchObject({ rowCount: 2, rows: [{ place: 'A', area: 'west' }, { place: 'B', area: 'east' }] });
  });
});
