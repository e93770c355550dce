import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { Feature } from 'geojson';
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { badInput, type VectorTileInfo } from '@studio/schema';
import { quoteIdent, quoteLiteral, type Engine } from '@studio/engine';
import { BOX_FUNCTION, ensureBoxFunction } from './box-function';
import { latOf, lngOf, parseGeometry } from './geometry';
import { VT_OPTIONS, encodeWithin, vtIndex, type VtTile } from './mvt';
import { PmtilesWriter } from './pmtiles-writer';
import { cutPointTiles, type AddTile } from './point-tiles';
import { CANCELLED, GroupedRows, chunksOf, type Group, type Row } from './row-groups';

/**
 * Cuts a Mapbox Vector Tile pyramid from a Parquet table into a PMTiles archive, in bounded memory:
 *
 * 1. One SQL pass writes a work table: feature id, Mercator bounding box (SQL for lat/lng, a JS scalar
 *    function for GeoJSON/WKT text), properties cast to number / boolean / text.
 * 2. The zoom range comes from the data: points go as deep as needed for 95% of them to fall in distinct
 *    4-pixel cells; lines and polygons until the median feature spans about a tile.
 * 3. Each feature gets the first zoom it is drawn at (tippecanoe's drop-densest idea, in SQL): below the
 *    maximum zoom a feature smaller than a 4-pixel cell is kept only if it is the first of its cell, so a
 *    tile holds at most 64x64 small features; at the maximum zoom every feature is kept.
 * 4. DuckDB streams the features in chunks. Lat/lng points, stored in Morton order of their deepest tile,
 *    arrive grouped by tile at every zoom: one scan cuts every zoom's tiles (point-tiles.ts; placing a point
 *    is arithmetic). Other geometry is read once a zoom, ordered by block (the tile three zooms up, 64
 *    tiles); one block at a time is held as GeoJSON, indexed by geojson-vt (which clips and simplifies per
 *    zoom) and its tiles are encoded and appended to the archive. Tiles are gzipped off the main thread
 *    (pmtiles-writer.ts).
 * 5. Low zooms first (`early`): the zooms up to `early.upTo` are cut into an archive of their own and handed
 *    over, so a map draws them while the rest is cut (thinned, they are a small share of the work: a tile holds
 *    at most 64x64 features below the maximum zoom). Lat/lng points get them before step 1, from one grouping
 *    pass over the rows (the first point of each 4-pixel cell of zoom upTo: all those zooms show); other
 *    geometry before step 4, from the zoned work table. Step 4 then cuts every zoom into the full archive,
 *    which replaces it.
 */

/** Features smaller than this many pixels at a zoom (below the maximum) are thinned to one a cell. */
const CELL_PIXELS = 4;
const CELL_SHIFT = Math.log2(256 / CELL_PIXELS); // 2^(z+6) cells across the world at zoom z
/** Blocks are the tiles this many zooms above the one being cut. */
const BLOCK_DEPTH = 3;
/** Share of points that must sit in cells of their own at the chosen maximum zoom. */
const DISTINCT_SHARE = 0.95;
/**
 * Features one tile (points) or one block (other geometry) may hold. Thinning keeps tiles below the maximum
 * zoom far under it; at the maximum zoom, rows piled on one spot (geocoded to a centroid, 0/0) could exceed
 * it: the rest are left out of that tile and counted in `cappedTiles`, so memory stays bounded.
 */
export const MAX_GROUP_FEATURES = 100_000;

export type Location = { kind: 'point'; lat: string; lng: string } | { kind: 'geometry'; column: string };

export interface TileJob {
  /** A local Parquet file. */
  file: string;
  location: Location;
  /** Columns kept as properties, with their DuckDB types. */
  properties: { name: string; duckdbType: string }[];
  layer: string;
  name: string;
  description: string;
  minZoom?: number;
  maxZoom?: number;
  /** Upper bound for the chosen maximum zoom. */
  zoomLimit: number;
  /** Fires when the caller is gone: DuckDB is interrupted and the work stops with a 499. */
  signal?: AbortSignal;
  /** Default MAX_GROUP_FEATURES. */
  maxGroupFeatures?: number;
  /** Most bytes one tile's MVT may hold (before gzip); past it features are left out (see encodeWithin). */
  maxTileBytes?: number;
  /**
   * Low zooms first (step 5): zooms minZoom..upTo are cut into `file`, a PMTiles archive of their own, and
   * `ready` is awaited before the rest is cut; its summary has the full pyramid's `maxZoom` (lat/lng points whose
   * maximum zoom is still to choose: the deepest it may be, `zoomLimit`) and `cutMaxZoom: upTo`. Skipped when the
   * pyramid goes no deeper than `upTo` (points still to choose theirs: when zoom upTo does not thin them). `file`
   * is removed once `ready` settles.
   */
  early?: { upTo: number; ready: (file: string, summary: TileSummary) => Promise<void> };
}

export type TileSummary = Omit<VectorTileInfo, 'pipelineType' | 'format' | 'tileFormat' | 'tileUrl' | 'tileJsonUrl'>;

const NUMERIC = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|REAL|DECIMAL.*)$/i;

/** A property's MVT value type: numbers and booleans stay typed, everything else becomes text. */
function fieldType(duckdbType: string): 'Number' | 'Boolean' | 'String' {
  if (NUMERIC.test(duckdbType.trim())) return 'Number';
  return duckdbType.trim().toUpperCase() === 'BOOLEAN' ? 'Boolean' : 'String';
}
const CAST: Record<'Number' | 'Boolean' | 'String', string> = { Number: 'DOUBLE', Boolean: 'BOOLEAN', String: 'VARCHAR' };

/** Mercator y of a latitude column, in SQL (the same formula as geometry.ts mercY). */
const mercYSql = (lat: string) => `(0.5 - ln((1 + sin(radians(least(greatest(${lat}, -85.0511287798066), 85.0511287798066)))) / (1 - sin(radians(least(greatest(${lat}, -85.0511287798066), 85.0511287798066))))) / (4 * pi()))`;

async function rows(c: DuckDBConnection, sql: string): Promise<Record<string, DuckDBValue>[]> {
  return (await c.runAndReadAll(sql)).getRowObjects();
}
const num = (v: DuckDBValue | undefined) => (v === null || v === undefined ? NaN : Number(v));

export async function buildTiles(engine: Engine, job: TileJob, outFile: string): Promise<TileSummary> {
  const work = path.join(engine.tmpDir, `vt-${randomUUID()}.parquet`);
  const zoned = `${work}.zoned.parquet`;
  const cells = `${work}.low-cells.parquet`;
  const lowZoned = `${work}.low-zoned.parquet`;
  const writer = new PmtilesWriter(path.join(engine.tmpDir, `vt-${randomUUID()}.tiles`));
  try {
    if (job.location.kind === 'geometry') await ensureBoxFunction(engine);
    const props = job.properties.map((p, k) => ({ ...p, alias: `p${k}`, type: fieldType(p.duckdbType) }));
    const pooled = await engine.connection();
    const stop = () => pooled.connection.interrupt();
    job.signal?.addEventListener('abort', stop, { once: true });
    try {
      const c = pooled.connection;
      const minZoom = job.minZoom ?? 0;
      const points = job.location.kind === 'point';
      const cap = job.maxGroupFeatures ?? MAX_GROUP_FEATURES;
      const fields = Object.fromEntries(props.map((p) => [p.name, p.type]));
      /** Cuts zooms minZoom..last of the zoned table `from` into `into`; answers the tiles trimmed to the byte budget or over the cap of features. */
      const cutInto = async (into: PmtilesWriter, from: string, last: number): Promise<number> => {
        let trimmed = 0;
        const add: AddTile = async (z, x, y, encoded) => {
          if (encoded.trimmed) trimmed++;
          if (encoded.bytes) await into.add(z, x, y, encoded.bytes);
        };
        let overCap = 0;
        if (points) overCap = await cutPointTiles(c, { file: from, layer: job.layer, props, minZoom, maxZoom: last, cap, maxTileBytes: job.maxTileBytes, signal: job.signal }, add);
        else for (let z = minZoom; z <= last; z++) overCap += await cutGeometryZoom(c, from, job, props, z, add);
        return trimmed + overCap;
      };
      /** Writes `from`'s archive to `file`, its header and layer saying zooms minZoom..last; answers the summary. */
      const finish = async (from: PmtilesWriter, file: string, last: number, cappedTiles: number, { n, stats, geometryType, maxZoom }: Shape): Promise<TileSummary> => {
        const bounds: [number, number, number, number] = [lngOf(num(stats.x0)), latOf(num(stats.y1)), lngOf(num(stats.x1)), latOf(num(stats.y0))];
        const center: [number, number, number] = [(bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2, Math.min(last, Math.max(minZoom, centerZoom(stats)))];
        const tileCount = from.tileCount;
        const byteSize = await from.finish(file, {
          minZoom,
          maxZoom: last,
          bounds,
          center,
          metadata: {
            name: job.name,
            description: job.description,
            vector_layers: [{ id: job.layer, fields, minzoom: minZoom, maxzoom: last, description: job.description }],
            geometryType,
            featureCount: n,
          },
        });
        return { layer: job.layer, minZoom, maxZoom, bounds, center, geometryType, fields, featureCount: n, tileCount, byteSize, cappedTiles };
      };
      const early = job.early && job.early.upTo >= minZoom ? job.early : undefined;
      /** Step 5: zooms minZoom..upTo of the zoned table `from` cut into an archive of their own and handed over. */
      const serveLow = async (from: string, shape: Shape) => {
        const upTo = early!.upTo;
        const low = new PmtilesWriter(path.join(engine.tmpDir, `vt-${randomUUID()}.tiles`));
        const lowFile = `${outFile}.low-${randomUUID()}`;
        try {
          const summary = await finish(low, lowFile, upTo, await cutInto(low, from, upTo), shape);
          await early!.ready(lowFile, { ...summary, cutMaxZoom: upTo });
        } catch (e) {
          await low.discard();
          throw e;
        } finally {
          await rm(lowFile, { force: true });
        }
      };
      const noRows = () => badInput('No row has a location to tile', points ? 'Latitude and longitude must be numbers within range' : 'The geometry column holds no GeoJSON or WKT geometry');

      let shape: Shape | undefined;
      if (early && points) {
        // Step 5 for lat/lng points, before the work table (writing it, and sorting it, is most of a large cut's
        // time): below the maximum zoom a 4-pixel cell shows only its first point, so the low zooms need only the
        // first point of each cell of zoom upTo, which one grouping pass over the rows finds, with the rows' count
        // and bounds. A maximum zoom to choose is chosen later, from the work table: meanwhile the low zooms are
        // served when zoom upTo thins the points (fewer cells than 95% of them), so that the zoom chosen will be
        // deeper (unless the points pile up on fewer places than that: the whole cut, replacing the low zooms,
        // then shows them all), and their summary says the deepest zoom it may be. 20M points at load 17 on two
        // cores: low zooms after 17-20 s instead of about 75 (docs/decisions.md, "A 20M-point dataset's first frame").
        await c.run(firstOfCellsSql(pointsAsCellsSql(job, props), props, early.upTo, cells));
        const [stats] = await rows(c, `SELECT sum(k) AS n, count(*) AS cells, min(bx0) AS x0, min(by0) AS y0, max(bx1) AS x1, max(by1) AS y1 FROM read_parquet(${quoteLiteral(cells)})`);
        const n = num(stats!.n);
        if (!n) throw noRows();
        const given = job.maxZoom === undefined ? undefined : Math.max(minZoom, job.maxZoom);
        const low: Shape = { n, stats: stats!, geometryType: 'Point', maxZoom: given ?? Math.max(minZoom, job.zoomLimit) };
        if (given !== undefined) shape = low;
        if (given === undefined ? num(stats!.cells) < DISTINCT_SHARE * n : early.upTo < given) {
          // In the full cut's order (and its tie-break) when its zoom is known: both archives then hold the same bytes at these zooms.
          await c.run(`COPY (${zonedSql(`read_parquet(${quoteLiteral(cells)})`, minZoom, early.upTo + 1, true)} ORDER BY ${mortonSql(low.maxZoom)}, fid) TO ${quoteLiteral(lowZoned)} (FORMAT parquet)`);
          await serveLow(lowZoned, low);
        }
        await Promise.all([rm(cells, { force: true }), rm(lowZoned, { force: true })]);
      }
      await c.run(workTableSql(job, props, work));
      if (!shape) {
        const [stats] = await rows(
          c,
          `SELECT count(*) AS n, min(x0) AS x0, min(y0) AS y0, max(x1) AS x1, max(y1) AS y1, list(DISTINCT kind) AS kinds
           FROM read_parquet(${quoteLiteral(work)})`,
        );
        const n = num(stats!.n);
        if (!n) throw noRows();
        const kinds = ((stats!.kinds as { items?: unknown[] } | null)?.items ?? []).map(String);
        const geometryType = (kinds.length === 1 ? kinds[0] : 'Mixed') as TileSummary['geometryType'];
        const chosen = job.maxZoom ?? (await chooseMaxZoom(c, `read_parquet(${quoteLiteral(work)})`, geometryType === 'Point', n, job.zoomLimit));
        shape = { n, stats: stats!, geometryType, maxZoom: Math.max(minZoom, chosen) };
      }
      const { maxZoom } = shape;
      // The zoom each feature first appears at, added to the work table.
      // Points are stored in Morton (quadkey) order of their deepest tile (ties by id): the points of any tile at
      // any zoom are then contiguous, and one scan in file order cuts every zoom with no sort of its own.
      const order = points ? ` ORDER BY ${mortonSql(maxZoom)}, fid` : '';
      await c.run(`COPY (${zonedSql(`read_parquet(${quoteLiteral(work)})`, minZoom, maxZoom, shape.geometryType === 'Point')}${order}) TO ${quoteLiteral(zoned)} (FORMAT parquet)`);
      await rm(work, { force: true });
      if (early && !points && early.upTo < maxZoom) await serveLow(zoned, shape);
      return await finish(writer, outFile, maxZoom, await cutInto(writer, zoned, maxZoom), shape);
    } finally {
      job.signal?.removeEventListener('abort', stop);
      pooled.release();
    }
  } catch (e) {
    await writer.discard();
    await rm(outFile, { force: true });
    throw job.signal?.aborted ? CANCELLED() : e;
  } finally {
    await Promise.all([work, zoned, cells, lowZoned].map((f) => rm(f, { force: true })));
  }
}

/** The zoom at which the whole extent fits one tile, for the map's first view. */
function centerZoom(stats: Record<string, DuckDBValue>): number {
  const span = Math.max(num(stats.x1) - num(stats.x0), num(stats.y1) - num(stats.y0), 1e-9);
  return Math.max(0, Math.floor(Math.log2(1 / span)));
}

/** What a cut knows of its rows before cutting: their count and Mercator bounds, geometry type and maximum zoom. */
interface Shape {
  n: number;
  stats: Record<string, DuckDBValue>;
  geometryType: TileSummary['geometryType'];
  maxZoom: number;
}

type Prop = { name: string; alias: string; type: keyof typeof CAST };
const propSqlOf = (props: Prop[]) => props.map((p) => `, TRY_CAST(${quoteIdent(p.name)} AS ${CAST[p.type]}) AS ${p.alias}`).join('');

/**
 * Lat/lng points as rows: fid (the row's place in the file, from 1), Mercator x0 and y0, properties p0..pN; rows
 * with no location left out. The id is the file's row number, not a count of the rows kept, so that a pass over
 * part of the rows (the low zooms first) gives each point the id the whole cut gives it.
 */
function pointRowsSql(job: TileJob, props: Prop[]): string {
  if (job.location.kind !== 'point') throw new Error('pointRowsSql: not a lat/lng location');
  const lat = `TRY_CAST(${quoteIdent(job.location.lat)} AS DOUBLE)`;
  const lng = `TRY_CAST(${quoteIdent(job.location.lng)} AS DOUBLE)`;
  return `SELECT CAST(file_row_number + 1 AS BIGINT) AS fid, ${lng} / 360 + 0.5 AS x0, ${mercYSql(lat)} AS y0${propSqlOf(props)}
    FROM read_parquet(${quoteLiteral(job.file)}, file_row_number = true) WHERE ${lat} BETWEEN -90 AND 90 AND ${lng} BETWEEN -180 AND 180`;
}

/** fid, Mercator box (x0, y0, x1, y1), geometry kind, the location (text, or lng/lat), properties p0..pN. */
function workTableSql(job: TileJob, props: Prop[], out: string): string {
  if (job.location.kind === 'point') {
    const cols = props.map((p) => `, ${p.alias}`).join('');
    return `COPY (SELECT fid, x0, y0, x0 AS x1, y0 AS y1, 'Point' AS kind, NULL::VARCHAR AS geom${cols} FROM (${pointRowsSql(job, props)})) TO ${quoteLiteral(out)} (FORMAT parquet)`;
  }
  const src = `read_parquet(${quoteLiteral(job.file)})`;
  const col = `CAST(${quoteIdent(job.location.column)} AS VARCHAR)`;
  const inner = `SELECT CAST(b[1] AS DOUBLE) AS x0, CAST(b[2] AS DOUBLE) AS y0, CAST(b[3] AS DOUBLE) AS x1, CAST(b[4] AS DOUBLE) AS y1, b[5] AS kind,
               geom${props.map((p) => `, ${p.alias}`).join('')}
             FROM (SELECT string_split(${BOX_FUNCTION}(${col}), ',') AS b, ${col} AS geom${propSqlOf(props)} FROM ${src})
             WHERE b IS NOT NULL`;
  return `COPY (SELECT CAST(row_number() OVER () AS BIGINT) AS fid, * FROM (${inner})) TO ${quoteLiteral(out)} (FORMAT parquet)`;
}

/**
 * The first point (lowest fid: the one the whole cut keeps there) of each occupied 4-pixel cell of `level`, from
 * `source`'s rows (fid, x0, y0, p0..pN, and k, bx0, by0, bx1, by1: how many rows each stands for and their
 * bounds), as the same columns: one grouping pass, a row per cell kept, no sort. Grouping its answer again at a
 * lower level gives that level's first points, counts and bounds (cells nest).
 */
function firstOfCellsSql(source: string, props: Prop[], level: number, out: string): string {
  const k = 2 ** (level + CELL_SHIFT);
  const fields = ['x0', 'y0', ...props.map((p) => p.alias)];
  const first = `arg_min({${fields.map((f) => `'${f}': ${f}`).join(', ')}}, fid)`;
  return `COPY (SELECT fid, ${fields.map((f) => `struct_extract(w, '${f}') AS ${f}`).join(', ')}, k, bx0, by0, bx1, by1
    FROM (SELECT min(fid) AS fid, ${first} AS w, sum(k) AS k, min(bx0) AS bx0, min(by0) AS by0, max(bx1) AS bx1, max(by1) AS by1
      FROM ${source} GROUP BY floor(x0 * ${k}), floor(y0 * ${k}))) TO ${quoteLiteral(out)} (FORMAT parquet)`;
}

/** Lat/lng rows (pointRowsSql) as firstOfCellsSql reads them: each stands for itself. */
const pointsAsCellsSql = (job: TileJob, props: Prop[]) => `(SELECT *, 1 AS k, x0 AS bx0, y0 AS by0, x0 AS bx1, y0 AS by1 FROM (${pointRowsSql(job, props)}))`;

/**
 * Points: the smallest zoom at which 95% of them sit in 4-pixel cells of their own (so the deepest tiles
 * place them to within a few pixels and the map overzooms from there). Lines and polygons: the zoom at
 * which the median feature spans about one tile.
 */
async function chooseMaxZoom(c: DuckDBConnection, source: string, points: boolean, n: number, limit: number): Promise<number> {
  if (!points) {
    const [r] = await rows(c, `SELECT median(greatest(x1 - x0, y1 - y0)) AS size FROM ${source}`);
    return Math.min(limit, Math.max(0, Math.ceil(Math.log2(1 / Math.max(num(r!.size), 1e-9)))));
  }
  // The occupied cells of every zoom (cellLevels): one pass over the rows instead of a distinct count a zoom.
  const levels = cellLevels(source, ['x0', 'y0'], limit, 0);
  const zooms = Array.from({ length: limit + 1 }, (_, z) => z);
  const [r] = await rows(c, `WITH ${levels.join(', ')} SELECT ${zooms.map((z) => `(SELECT count(*) FROM c${z}) AS z${z}`).join(', ')}`);
  const distinctAt = zooms.map((z) => num(r![`z${z}`]));
  const all = distinctAt[limit]!; // duplicates at one location never separate: compare with the deepest count
  return zooms.find((z) => distinctAt[z]! >= DISTINCT_SHARE * Math.min(n, all)) ?? limit;
}

/** SQL of the Morton code (bits of tile x and y interleaved) of a point's tile at zoom z. */
function mortonSql(z: number): string {
  const n = 2 ** z;
  const tx = `CAST(least(${n - 1}, floor(x0 * ${n})) AS BIGINT)`;
  const ty = `CAST(least(${n - 1}, floor(y0 * ${n})) AS BIGINT)`;
  const bits: string[] = [];
  for (let i = 0; i < z; i++) bits.push(`(((${tx} >> ${i}) & 1) << ${2 * i + 1}) | (((${ty} >> ${i}) & 1) << ${2 * i})`);
  return bits.length ? bits.join(' | ') : 'fid'; // zoom 0: one tile (a bare 0 would be a column position)
}

/**
 * CTEs `c<top>` down to `c<bottom>`: the occupied 4-pixel cells of each zoom (`cx`, `cy`, and `fid`, the lowest
 * id centred in the cell) for features centred at (x, y). The deepest zoom groups the rows once; each zoom
 * above groups the cells below it, since cells nest (a cell is four cells one zoom down).
 */
function cellLevels(source: string, [x, y]: [string, string], top: number, bottom: number): string[] {
  const k = 2 ** (top + CELL_SHIFT);
  const levels = [`c${top} AS (SELECT min(fid) AS fid, floor(${x} * ${k}) AS cx, floor(${y} * ${k}) AS cy FROM ${source} GROUP BY ALL)`];
  for (let z = top - 1; z >= bottom; z--) levels.push(`c${z} AS (SELECT min(fid) AS fid, floor(cx / 2) AS cx, floor(cy / 2) AS cy FROM c${z + 1} GROUP BY ALL)`);
  return levels;
}

/**
 * SQL of the work table's rows with `mz`, the first zoom each is drawn at (step 3 above): the first zoom below
 * the maximum at which it spans a 4-pixel cell or has the lowest id of the features centred in its cell, else
 * the maximum.
 *
 * The lowest id of each cell is found by grouping (cellLevels), not by a window per zoom (13 windows over a
 * million points took 10 of the tiling's 40 seconds). A feature first in its cell at one zoom
 * is first in its (smaller) cell at every deeper one, so its first zoom is the least zoom it is a winner at.
 */
export function zonedSql(source: string, minZoom: number, maxZoom: number, pointsOnly: boolean): string {
  if (minZoom >= maxZoom) return `SELECT *, ${maxZoom} AS mz FROM ${source}`;
  const cells = (z: number) => 2 ** (z + CELL_SHIFT);
  const zooms = Array.from({ length: maxZoom - minZoom }, (_, i) => minZoom + i);
  const top = maxZoom - 1;
  const levels = cellLevels(source, pointsOnly ? ['x0', 'y0'] : ['(x0 + x1) / 2', '(y0 + y1) / 2'], top, minZoom);
  const winners = zooms.map((z) => `SELECT fid, ${z} AS z FROM c${z}`).join(' UNION ALL ');
  // Points have no size: only their cell decides.
  const bySize = pointsOnly ? String(maxZoom) : `CASE ${zooms.map((z) => `WHEN greatest(x1 - x0, y1 - y0) * ${cells(z)} >= 1 THEN ${z}`).join(' ')} ELSE ${maxZoom} END`;
  return `WITH ${levels.join(', ')}, firsts AS (SELECT fid, min(z) AS z FROM (${winners}) GROUP BY fid)
    SELECT w.*, least(${bySize}, coalesce(firsts.z, ${maxZoom})) AS mz FROM ${source} w LEFT JOIN firsts USING (fid)`;
}

/** Properties of a row whose property columns start at `from`; nulls are left out (MVT has no null). */
function propertiesOf(row: Row, props: { name: string }[], from: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  props.forEach((p, k) => {
    const v = row[from + k];
    if (v !== null && v !== undefined) out[p.name] = v;
  });
  return out;
}

/**
 * Appends the tiles of zoom z of lines, polygons and GeoJSON/WKT points through geojson-vt, a block (64
 * tiles) at a time. Answers how many blocks held more than the cap of features.
 */
async function cutGeometryZoom(c: DuckDBConnection, work: string, job: TileJob, props: { name: string; alias: string }[], z: number, add: AddTile): Promise<number> {
  const cols = props.map((p) => `, ${p.alias}`).join('');
  const b = Math.max(0, z - BLOCK_DEPTH);
  const scale = 2 ** b;
  const last = scale - 1;
  const buffer = VT_OPTIONS.buffer / VT_OPTIONS.extent / 2 ** z;
  const span = (lo: string, hi: string) => `unnest(range(CAST(greatest(0, floor((${lo} - ${buffer}) * ${scale})) AS BIGINT), CAST(least(${last}, floor((${hi} + ${buffer}) * ${scale})) AS BIGINT) + 1))`;
  const sql = `SELECT CAST(block_x AS INTEGER) AS block_x, CAST(block_y AS INTEGER) AS block_y, CAST(fid AS DOUBLE) AS fid, geom${cols}
    FROM (SELECT *, ${span('y0', 'y1')} AS block_y FROM (SELECT *, ${span('x0', 'x1')} AS block_x FROM read_parquet(${quoteLiteral(work)}) WHERE mz <= ${z}))
    ORDER BY block_x, block_y`;
  const blocks = new GroupedRows(job.maxGroupFeatures ?? MAX_GROUP_FEATURES);
  const cut = async ({ a: bx, b: by, rows }: Group) => {
    const features: Feature[] = [];
    for (const r of rows) {
      const geometry = parseGeometry(r[3] as string);
      if (geometry) features.push({ type: 'Feature', id: r[2] as number, geometry, properties: propertiesOf(r, props, 4) });
    }
    await cutBlock({ bx, by, features }, z, b, (x, y, tile) => add(z, x, y, encodeWithin(job.layer, tile, job.maxTileBytes)));
  };
  for await (const rows of chunksOf(c, sql, job.signal)) {
    for (const row of rows) {
      const closed = blocks.push(row[0] as number, row[1] as number, row);
      if (closed) await cut(closed);
    }
  }
  const lastBlock = blocks.end();
  if (lastBlock) await cut(lastBlock);
  return blocks.capped;
}

/** Cuts the tiles at zoom z inside one block (a tile at zoom b) from the block's features. */
async function cutBlock(block: { bx: number; by: number; features: Feature[] }, z: number, b: number, add: (x: number, y: number, tile: VtTile | null) => Promise<void>): Promise<void> {
  const index = vtIndex({ type: 'FeatureCollection', features: block.features }, z, 0);
  const d = 2 ** (z - b);
  for (let dx = 0; dx < d; dx++) {
    for (let dy = 0; dy < d; dy++) {
      const x = block.bx * d + dx;
      const y = block.by * d + dy;
      await add(x, y, index.getTile(z, x, y));
    }
  }
}
