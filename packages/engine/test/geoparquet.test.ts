import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import * as parquet from 'parquet-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Oracle } from '../../spatial/test/oracle';
import { registerGeoParquetFunctions, writeGeoParquet, type GeoParquetMetadata } from '../src/geoparquet';

/**
 * GeoParquet 1.1 as the studio writes it, read back by two other readers: DuckDB (its GeoParquet reader turns the
 * column into GEOMETRY) and parquet-wasm (the Rust parquet crate: the footer's `geo` key and the rows as Arrow).
 * Boxes are checked against PostGIS on the same shapes.
 */

const SHAPES: Array<[name: string, text: string | null]> = [
  ['point', 'POINT (2.35 48.85)'],
  ['geojson point', '{"type":"Point","coordinates":[-122.39,37.79]}'],
  ['line', 'LINESTRING (0 0, 10 5, 3 -2)'],
  ['polygon with hole', 'POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 4, 4 4, 2 2))'],
  ['multipolygon', '{"type":"MultiPolygon","coordinates":[[[[170,-10],[179,-10],[179,-5],[170,-10]]],[[[-179,-20],[-170,-20],[-170,-15],[-179,-20]]]]}'],
  ['z dropped', 'POINT Z (1 2 3)'],
  ['empty', 'LINESTRING EMPTY'],
  ['no geometry', null],
  ['not a geometry', '{"type":"Point","coordinates":[1,'],
];

const sqlText = (s: string | null) => (s === null ? 'NULL' : `'${s.replace(/'/g, "''")}'`);
const valuesSql = (rows: Array<[string, string | null]>) =>
  `SELECT * FROM (VALUES ${rows.map(([n, t], i) => `(${i}, ${sqlText(n)}, ${sqlText(t)})`).join(', ')}) AS t(id, name, geom)`;

describe('GeoParquet 1.1 writer', () => {
  const oracle = new Oracle();
  let dir: string;
  beforeAll(async () => {
    await oracle.start();
    registerGeoParquetFunctions(oracle.duck);
    dir = await mkdtemp(path.join(tmpdir(), 'geoparquet-'));
  }, 60_000);
  afterAll(async () => {
    await oracle.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const rows = async (sql: string) => (await oracle.duck.runAndReadAll(sql)).getRowObjectsJS();
  /** The file as parquet-wasm reads it: the schema's `geo` metadata and the rows. */
  const otherReader = async (file: string) => {
    const table = tableFromIPC(parquet.readParquet(new Uint8Array(await readFile(file))).intoIPCStream());
    return { geo: JSON.parse(table.schema.metadata.get('geo')!) as GeoParquetMetadata, table };
  };

  it('writes WKB with the geo metadata, a bbox covering column and the CRS; DuckDB and parquet-wasm read it', async () => {
    const file = path.join(dir, 'shapes.parquet');
    const written = await writeGeoParquet(oracle.duck, valuesSql(SHAPES), file, { column: 'geom', tmpDir: dir });
    const { geo, table } = await otherReader(file);
    expect(geo).toEqual(written);
    expect(geo.version).toBe('1.1.0');
    expect(geo.primary_column).toBe('geom');
    const col = geo.columns.geom!;
    expect(col.encoding).toBe('WKB');
    expect(col.geometry_types).toEqual(['Point', 'LineString', 'Polygon', 'MultiPolygon']);
    expect(col.bbox).toEqual([-179, -20, 179, 48.85]);
    expect(col.crs.id).toEqual({ authority: 'OGC', code: 'CRS84' });
    expect(col.covering.bbox).toEqual({ xmin: ['geom_bbox', 'xmin'], ymin: ['geom_bbox', 'ymin'], xmax: ['geom_bbox', 'xmax'], ymax: ['geom_bbox', 'ymax'] });
    // parquet-wasm sees a binary column and the struct; every row is there.
    expect(table.numRows).toBe(SHAPES.length);
    expect(String(table.schema.fields.find((f) => f.name === 'geom')!.type)).toMatch(/Binary/);
    expect(String(table.schema.fields.find((f) => f.name === 'geom_bbox')!.type)).toMatch(/Struct/);

    // DuckDB's GeoParquet reader: GEOMETRY in CRS84, the same shapes (2D; Z dropped), NULL where there was none.
    const [described] = await rows(`SELECT typeof(geom) AS t, ST_CRS(geom) AS crs FROM read_parquet('${file}') LIMIT 1`);
    expect(described).toEqual({ t: "GEOMETRY('OGC:CRS84')", crs: 'OGC:CRS84' });
    const back = await rows(`SELECT name, ST_AsText(geom) AS wkt, geom_bbox AS b FROM read_parquet('${file}')`);
    const byName = new Map(back.map((r) => [String(r.name), r]));
    expect(byName.get('z dropped')!.wkt).toBe('POINT (1 2)');
    expect(byName.get('geojson point')!.wkt).toBe('POINT (-122.39 37.79)');
    expect(byName.get('no geometry')).toEqual({ name: 'no geometry', wkt: null, b: null });
    expect(byName.get('empty')).toEqual({ name: 'empty', wkt: 'LINESTRING EMPTY', b: null });
    // Text that is no geometry is written as none, not an error for the whole file.
    expect(byName.get('not a geometry')).toEqual({ name: 'not a geometry', wkt: null, b: null });

    // The shapes and their boxes as PostGIS has them.
    for (const [name, text] of SHAPES.filter(([n, t]) => t !== null && !t.includes('EMPTY') && n !== 'not a geometry')) {
      const r = byName.get(name)!;
      const theirs = (p: string) => `ST_SetSRID(ST_Force2D(${text!.startsWith('{') ? 'ST_GeomFromGeoJSON' : 'ST_GeomFromText'}(${p})), 0)`;
      const sameShape = await oracle.postgis(`SELECT ST_Equals(ST_GeomFromText($1), ${theirs('$2')})`, [r.wkt, text]);
      expect(sameShape, name).toBe(true);
      const box = await oracle.postgis(`SELECT json_build_object('xmin', ST_XMin(g), 'ymin', ST_YMin(g), 'xmax', ST_XMax(g), 'ymax', ST_YMax(g))
        FROM (SELECT ${theirs('$1')} AS g) q`, [text]);
      expect(r.b, name).toEqual(box);
    }
  });

  it('orders rows along a Hilbert curve so a box query skips the row groups of other places', async () => {
    // Two clusters a world apart, interleaved in the input (Paris and Sydney), 8,192 rows: 4 row groups of 2,048.
    const n = 8192;
    const file = path.join(dir, 'clusters.parquet');
    const select = `SELECT i AS id, CASE WHEN i % 2 = 0 THEN 'POINT (' || (2.3 + (i % 97) / 1000) || ' ' || (48.8 + (i % 89) / 1000) || ')'
        ELSE 'POINT (' || (151.2 + (i % 97) / 1000) || ' ' || (-33.8 - (i % 89) / 1000) || ')' END AS geom FROM range(${n}) t(i)`;
    await writeGeoParquet(oracle.duck, select, file, { column: 'geom', tmpDir: dir, rowGroupSize: 2048 });
    const groups = await rows(`SELECT row_group_id AS g,
        max(CASE WHEN path_in_schema = 'geom_bbox, xmin' THEN stats_min END) AS xmin,
        max(CASE WHEN path_in_schema = 'geom_bbox, xmax' THEN stats_max END) AS xmax
      FROM parquet_metadata('${file}') GROUP BY 1 ORDER BY 1`);
    expect(groups).toHaveLength(4);
    // Each row group lies in one city: a query for Paris's box reads half of them.
    const inParis = groups.filter((g) => Number(g.xmin) < 3 && Number(g.xmax) > 2);
    expect(inParis).toHaveLength(2);
    for (const g of groups) expect(Number(g.xmax) - Number(g.xmin)).toBeLessThan(1);
    const [count] = await rows(`SELECT count(*)::INT AS c FROM read_parquet('${file}') WHERE geom_bbox.xmin BETWEEN 2 AND 3`);
    expect(count!.c).toBe(n / 2);
  });

  it('keeps a column named like the bbox column and takes the next free name', async () => {
    const file = path.join(dir, 'taken.parquet');
    const meta = await writeGeoParquet(oracle.duck, `SELECT 'x' AS geom_bbox, 'POINT (1 1)' AS geom`, file, { column: 'geom', tmpDir: dir });
    expect(meta.columns.geom!.covering.bbox.xmin).toEqual(['geom_bbox_2', 'xmin']);
    expect(await rows(`SELECT geom_bbox, geom_bbox_2.xmin AS x FROM read_parquet('${file}')`)).toEqual([{ geom_bbox: 'x', x: 1 }]);
  });

});
