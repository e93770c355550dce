import { describe, expect, it } from 'vitest';
import { WAREHOUSE_DIALECTS, compilePipeline } from '../src/index';
import { ds } from './fixtures';

/**
 * The SQL each warehouse gets for each spatial step (the fragments that carry the meaning: metres through the
 * warehouse's geography, its own function names), and the 409 naming the step where the warehouse cannot express it.
 * Live push-down runs on PostGIS in spatial-steps.test.ts.
 */
const P = ds('polys');
const F = ds('pts');
const STEPS: Record<string, unknown> = {
  spatialJoin: { type: 'spatialJoin', predicate: 'covers', leftGeometry: 'geom', rightGeometry: 'pgeom', columns: ['pid'], input: [P, F] },
  dwithin: { type: 'spatialJoin', predicate: 'dwithin', distance: 5000, leftGeometry: 'geom', rightGeometry: 'pgeom', input: [P, F] },
  aggregateInPolygons: { type: 'aggregateInPolygons', polygonGeometry: 'geom', featureGeometry: 'pgeom', aggregates: [{ op: 'count', as: 'n' }], input: [P, F] },
  nearest: { type: 'nearest', leftGeometry: 'pgeom', rightGeometry: 'geom', maxDistance: 1000, input: [F, P] },
  buffer: { type: 'buffer', geometry: 'geom', distance: 100, input: [P] },
  centroid: { type: 'centroid', geometry: 'geom', input: [P] },
  measure: { type: 'measure', geometry: 'geom', measure: 'area', input: [P] },
  dissolve: { type: 'dissolve', geometry: 'geom', by: ['region'], input: [P] },
  clip: { type: 'clip', geometry: 'geom', clipGeometry: 'zgeom', input: [P, ds('zones')] },
};

/** Per warehouse kind and step: fragments its SQL must hold, or `409` (the step is refused by name). */
const EXPECT: Record<string, Record<string, string[] | 409>> = {
  postgres: {
    spatialJoin: ['ST_Covers(CAST(l."geom" AS geometry), CAST(r."pgeom" AS geometry))'],
    dwithin: ['ST_DWithin(CAST(l."geom" AS geography), CAST(r."pgeom" AS geography), CAST({{p1}} AS DOUBLE PRECISION))'],
    aggregateInPolygons: ['t AS "__studio_row"', '(p."__studio_row").*', 'ST_Contains(CAST((p."__studio_row")."geom" AS geometry)', 'coalesce(g."n", 0)'],
    nearest: ['ST_Distance(CAST((p."__studio_row")."pgeom" AS geography), CAST(r."geom" AS geography))', 'row_number() OVER (PARTITION BY "__studio_rid" ORDER BY "distance")'],
    buffer: ['CAST(ST_Buffer(CAST("geom" AS geography), CAST({{p1}} AS DOUBLE PRECISION)) AS geometry) AS "buffer"'],
    centroid: ['ST_Centroid(CAST("geom" AS geometry))'],
    measure: ['ST_Area(CAST("geom" AS geography)) AS "area"'],
    dissolve: ['ST_Union(CAST("geom" AS geometry)) AS "geom"', 'GROUP BY 1'],
    clip: ['ST_Union(CAST(c."zgeom" AS geometry))', 'ST_Intersection(CAST(f."geom" AS geometry), CAST(u."__studio_clip" AS geometry))', 'ST_Area(CAST("clipped" AS geography))'],
  },
  bigquery: {
    spatialJoin: ['ST_COVERS(l.`geom`, r.`pgeom`)'],
    dwithin: ['ST_DWITHIN(l.`geom`, r.`pgeom`, CAST({{p1}} AS FLOAT64))'],
    aggregateInPolygons: ['p.* EXCEPT (`__studio_rid`)', 'ST_CONTAINS(p.`geom`, f.`pgeom`)'],
    nearest: ['ST_DISTANCE(p.`pgeom`, r.`geom`)', 'ST_DWITHIN(p.`pgeom`, r.`geom`'],
    buffer: ['ST_BUFFER(`geom`, CAST({{p1}} AS FLOAT64))'],
    centroid: ['ST_CENTROID(`geom`)'],
    measure: ['ST_AREA(`geom`)'],
    dissolve: ['ST_UNION_AGG(`geom`)'],
    clip: ['ST_UNION_AGG(c.`zgeom`)', 'ST_INTERSECTION(f.`geom`, u.`__studio_clip`)', 'SAFE_DIVIDE(ST_AREA(`clipped`), ST_AREA(`geom`))'],
  },
  snowflake: {
    spatialJoin: ['ST_COVERS(l."geom", r."pgeom")'],
    dwithin: ['ST_DWITHIN(l."geom", r."pgeom", CAST({{p1}} AS DOUBLE))'],
    aggregateInPolygons: ['p.* EXCLUDE ("__studio_rid")'],
    nearest: ['ST_DISTANCE(p."pgeom", r."geom")'],
    buffer: 409,
    centroid: ['ST_CENTROID("geom")'],
    measure: ['ST_AREA("geom")'],
    dissolve: ['ST_UNION_AGG("geom")'],
    clip: ['ST_INTERSECTION(f."geom", u."__studio_clip")'],
  },
  redshift: {
    spatialJoin: ['ST_Covers(l."geom", r."pgeom")'],
    dwithin: ['(ST_Distance(CAST(l."geom" AS GEOGRAPHY), CAST(r."pgeom" AS GEOGRAPHY)) <= CAST({{p1}} AS DOUBLE PRECISION))'],
    aggregateInPolygons: 409,
    nearest: 409,
    buffer: 409,
    centroid: ['ST_Centroid("geom")'],
    measure: ['ST_Area(CAST("geom" AS GEOGRAPHY))'],
    dissolve: 409,
    clip: 409,
  },
  presto: {
    spatialJoin: 409, // no ST_Covers
    dwithin: ['(ST_Distance(to_spherical_geography(l."geom"), to_spherical_geography(r."pgeom")) <= CAST({{p1}} AS DOUBLE))'],
    aggregateInPolygons: 409,
    nearest: 409,
    buffer: 409,
    centroid: ['ST_Centroid("geom")'],
    measure: ['ST_Area(to_spherical_geography("geom"))'],
    dissolve: ['geometry_union_agg("geom")'],
    clip: ['geometry_union_agg(c."zgeom")', 'ST_Intersection(f."geom", u."__studio_clip")'],
  },
};
EXPECT.athena = EXPECT.presto!;
const NONE = Object.fromEntries(Object.keys(STEPS).map((s) => [s, 409 as const]));
for (const kind of ['databricks', 'kinetica', 'motherduck']) EXPECT[kind] = NONE;

const cases = Object.keys(WAREHOUSE_DIALECTS).flatMap((kind) => Object.keys(STEPS).map((step) => [kind, step] as const));

describe('spatial steps pushed down: the SQL each warehouse gets', () => {
  it('covers every warehouse', () => expect(Object.keys(EXPECT).sort()).toEqual(Object.keys(WAREHOUSE_DIALECTS).sort()));

  it.each(cases)('%s: %s', (kind, step) => {
    const want = EXPECT[kind]![step]!;
    const compile = () => compilePipeline(STEPS[step], { dialect: WAREHOUSE_DIALECTS[kind]!, resolveDataset: (u) => ({ relationSql: u }) });
    if (want === 409) {
      const type = (STEPS[step] as { type: string }).type;
      expect(compile).toThrow(expect.objectContaining({ status: 409, message: expect.stringMatching(new RegExp(`^The ${type} step( \\(\\w+\\))? has no equivalent on \\w+`)) }));
      return;
    }
    const { sql } = compile();
    for (const fragment of want) expect(sql).toContain(fragment);
    // Distances and k are bound, never written into the text.
    expect(sql).not.toMatch(/\b(5000|1000|100)\b/);
  });
});
