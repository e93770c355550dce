import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gdalFeatures, hasGdal } from '../../engine/test/gdal-files';
import { STORES, useStudio } from './harness';

const STORES_CSV = 'store,category,sales,lat,lng\nA,food,10,37.77,-122.41\nB,food,30,37.78,-122.42\nC,fuel,5,37.79,-122.43\n';
/** A spatial query as the SQL workspace runs it: a dataset named by its name, geometry made by ST_Point (WKB). */
const SPATIAL = "select store, sales, ST_Point(lng, lat) as geom from Stores where category = 'food' order by store";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sql-download-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/**
 * "Download" in the SQL workspace over datasets (#48): the query runs in the SQL sandbox as a temporary view
 * (POST /v1/query/sql, permission-checked on the datasets it names) and the view is streamed in the format asked
 * (GET /v1/query/views/{name}/data): the two calls the workspace makes.
 */
describe.each(STORES)('downloading a SQL query over datasets on %s', (kind) => {
  const { ctx, as } = useStudio(kind);
  beforeAll(async () => {
    const res = await as('owner', 'POST', '/v1/datasets/data?name=Stores', STORES_CSV, { 'content-type': 'text/csv' });
    expect(res.statusCode, res.body).toBe(201);
  });
  const run = (query: string, who: 'owner' | 'outsider' = 'owner') => as(who, 'POST', '/v1/query/sql', { query });
  const download = (view: string, format: string, who: 'owner' | 'outsider' = 'owner') => as(who, 'GET', `/v1/query/views/${view}/data?format=${format}`);

  it('downloads the result of a spatial query as CSV and as a GeoPackage GDAL reads', async () => {
    const ran = await run(SPATIAL);
    expect(ran.statusCode, ran.body).toBe(201);
    // The workspace's second call (web/src/sql/map-query.ts downloadQuery): the view's WKB as GeoJSON text named
    // geometry, which the downloads place rows by.
    const converted = await run(`select store, sales, ST_AsGeoJSON(geom) as geometry from ${ran.json().item.name}`);
    expect(converted.statusCode, converted.body).toBe(201);
    const view = converted.json().item.name as string;
    const csv = await download(view, 'csv');
    expect(csv.statusCode, csv.body.slice(0, 300)).toBe(200);
    const [header, ...lines] = csv.body.trim().split('\n');
    expect([header!.split(',').slice(0, 2), lines.map((l) => l.split(',').slice(0, 2))]).toEqual([['store', 'sales'], [['A', '10'], ['B', '30']]]);
    const gpkg = await download(view, 'gpkg');
    expect(gpkg.statusCode, gpkg.body.slice(0, 300)).toBe(200);
    expect(gpkg.rawPayload.subarray(0, 15).toString()).toBe('SQLite format 3');
    if (!hasGdal) return;
    const file = path.join(dir, `${kind}.gpkg`);
    await writeFile(file, gpkg.rawPayload);
    const features = gdalFeatures(file).map((f) => [f.properties.store, f.properties.sales, f.geometry?.type, f.geometry?.coordinates]);
    expect(features).toEqual([['A', 10, 'Point', [-122.41, 37.77]], ['B', 30, 'Point', [-122.42, 37.78]]]);
  });

  it.each([
    ["select * from read_csv('/etc/passwd')", /Table functions are not allowed in queries: read_csv/],
    ["COPY (select 1) TO '/tmp/out.csv'", /Could not parse query/],
  ])('refuses hostile SQL %s with 422', async (query, message) => {
    const res = await run(query);
    expect(res.statusCode).toBe(422);
    expect(`${res.json().message} ${res.json().details ?? ''}`).toMatch(message);
    expect(res.body).not.toContain(ctx.s.dataDir);
  });

  it('does not let a user without access to the dataset export it, by query or by the view', async () => {
    const theirs = await run(SPATIAL, 'outsider');
    expect([theirs.statusCode, theirs.json().message]).toEqual([422, expect.stringMatching(/Unknown table Stores/i)]);
    const view = (await run(SPATIAL)).json().item.name as string;
    const res = await download(view, 'gpkg', 'outsider');
    expect([res.statusCode, res.json().message]).toEqual([404, `Temporary view ${view} not found or expired`]);
  });
});
