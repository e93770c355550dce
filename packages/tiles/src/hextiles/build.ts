import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { arrowIpcOn, quoteIdent } from '@studio/engine';
import { StudioError, badInput, TILE_QUANTILE_LEVELS, type DatasetColumn, type HexTileCreate, type TileInterval, bestEffort } from '@studio/schema';
import { INTERVAL_UNITS, isNumericType, pathLiteral, quantileList, quantileValues } from './sql';
import { ZipWriter } from './zip';
import type { TileIndex, TilesetMeta } from './layout';
import { arrowEntryName, entryName } from './layout';

/**
 * Builds a hex tileset archive from a source dataset's Parquet file with DuckDB (docs/decisions.md
 * "Hex tiles"): cells at the finest resolution once, then every coarser resolution by parent, each
 * aggregated from the source rows (so median and mode are exact at every resolution), written as one
 * Parquet entry per tile (and per time step), an Arrow IPC twin of each all-time tile, and the index,
 * metadata and quantiles as JSON entries.
 */

const q = quoteIdent;
const u64 = (n: number) => `CAST(${n} AS UBIGINT)`;

/**
 * The parent of an H3 index (UBIGINT) at resolution `res`, in native integer operations: set the
 * resolution bits (52..55) and mark every finer digit unused (7). Bit-exact with h3-js cellToParent
 * for res <= the cell's resolution; one JS call per row would cost ~1 µs, this costs nothing.
 */
export const parentSql = (cell: string, res: number) =>
  `((${cell} & ~(${u64(15)} << 52)) | (${u64(res)} << 52) | ((${u64(1)} << ${3 * (15 - res)}) - ${u64(1)}))`;
const hexSql = (cell: string) => `lower(hex(${cell}))`;
/** Rows grouped by cell `c` (UBIGINT at res) with their cell and tile as H3 text. */
const cellsAt = (z: number, grouped: string) =>
  `SELECT ${hexSql('c')} AS hex, ${hexSql(parentSql('c', z))} AS tile, * EXCLUDE (c) FROM (${grouped})`;

const AGG: Record<HexTileCreate['outputColumns'][number]['aggMethod'], (v: string) => string> = {
  sum: (v) => `sum(${v})`,
  count: (v) => `count(${v})`,
  min: (v) => `min(${v})`,
  max: (v) => `max(${v})`,
  mean: (v) => `avg(${v})`,
  median: (v) => `median(${v})`,
  mode: (v) => `mode(${v})`,
};
const NUMERIC_ONLY = new Set(['sum', 'mean', 'median']);

export interface BuildInput {
  datasetId: string;
  sourceId: string;
  sourceFile: string;
  body: HexTileCreate;
  zipUrl: string;
  workDir: string;
  /** Where the finest cells (hex and fields, all time) go as Parquet: the dataset's table snapshot. */
  snapshotFile: string;
  /** Told after each step: the share of steps done (0–1) and the source rows with a cell. */
  onProgress?: (done: number, rows: number) => void;
  /** Stops the build between steps (a cancelled job, a node stopping). */
  signal?: AbortSignal;
}

type Rows = Record<string, unknown>[];
const all = async (c: DuckDBConnection, sql: string): Promise<Rows> => (await c.runAndReadAll(sql)).getRowObjectsJS() as Rows;

/** Checks the body against the source's columns; every refusal is a 422 naming the column. */
function checkColumns(body: HexTileCreate, columns: DatasetColumn[]) {
  const byName = new Map(columns.map((c) => [c.name, c]));
  const need = (name: string, role: string) => {
    const c = byName.get(name);
    if (!c) throw badInput(`Column ${name} is not in the source dataset`, `${role}; columns: ${columns.map((x) => x.name).join(', ')}`);
    return c;
  };
  if (body.sourceHexColumn && need(body.sourceHexColumn, 'sourceHexColumn').type !== 'STRING') throw badInput(`sourceHexColumn ${body.sourceHexColumn} must hold H3 cells as text`);
  for (const k of ['sourceLatColumn', 'sourceLngColumn'] as const) {
    const name = body[k];
    if (name && !isNumericType(need(name, k).duckdbType)) throw badInput(`${k} ${name} must be numeric`);
  }
  if (body.sourceTimeColumn) {
    const t = need(body.sourceTimeColumn, 'sourceTimeColumn');
    if (!['TIMESTAMP', 'DATE', 'STRING'].includes(t.type)) throw badInput(`sourceTimeColumn ${t.name} must hold dates or timestamps`);
  }
  for (const o of body.outputColumns) {
    if (!o.sourceColumn) continue;
    const c = need(o.sourceColumn, `outputColumns ${o.targetColumn}`);
    if (NUMERIC_ONLY.has(o.aggMethod) && !isNumericType(c.duckdbType)) throw badInput(`outputColumns ${o.targetColumn}: ${o.aggMethod} needs a numeric column (${c.name} is ${c.type})`);
  }
}

/** The time column must read as times: refused in the request, before a job is queued for a build that would fail. */
async function checkTimes(c: DuckDBConnection, column: string, src: string, sourceFile: string): Promise<void> {
  const col = q(column);
  let bad: number;
  try {
    const [r] = await all(c, `SELECT count(*) FILTER (WHERE ${col} IS NOT NULL AND TRY_CAST(${col} AS TIMESTAMP) IS NULL) AS bad FROM ${src}`);
    bad = Number(r!.bad);
  } catch (e) {
    throw badInput('Could not read the source columns', (e as Error).message.replaceAll(sourceFile, '<source>'));
  }
  if (bad > 0) throw badInput('Could not read the source columns', `sourceTimeColumn ${column} holds ${bad} values that are not times`);
}

/** The finest and coarsest data resolutions, reading the H3 column's resolution when needed. */
async function resolutions(c: DuckDBConnection, body: HexTileCreate, src: string): Promise<{ finest: number; coarsest: number }> {
  let finest = body.finestResolution;
  if (body.sourceHexColumn) {
    const col = q(body.sourceHexColumn);
    const [r] = await all(c, `SELECT min(h3_get_resolution(${col})) AS lo, max(h3_get_resolution(${col})) AS hi, count(*) FILTER (WHERE ${col} IS NOT NULL AND h3_get_resolution(${col}) IS NULL) AS bad FROM ${src}`);
    if (Number(r!.bad) > 0) throw badInput(`sourceHexColumn ${body.sourceHexColumn} holds ${Number(r!.bad)} values that are not H3 cells`);
    if (r!.lo === null) throw badInput(`sourceHexColumn ${body.sourceHexColumn} holds no H3 cells`);
    if (Number(r!.lo) !== Number(r!.hi)) throw badInput(`sourceHexColumn ${body.sourceHexColumn} must hold cells of one resolution (found ${r!.lo} to ${r!.hi})`);
    const colRes = Number(r!.lo);
    if (finest !== undefined && finest > colRes) throw badInput(`finestResolution ${finest} is finer than the cells of sourceHexColumn (resolution ${colRes})`);
    finest ??= colRes;
  }
  const offset = body.resolutionOffset;
  const coarsest = body.coarsestResolution ?? Math.max(offset, finest! - 3);
  if (finest! < offset) throw badInput(`finestResolution ${finest} must be at least resolutionOffset (${offset}): tiles are cells ${offset} resolutions coarser`);
  if (coarsest < offset) throw badInput(`coarsestResolution must be at least resolutionOffset (${offset}): tiles are cells ${offset} resolutions coarser`);
  if (coarsest > finest!) throw badInput(`coarsestResolution ${coarsest} must not be finer than finestResolution ${finest}`);
  return { finest: finest!, coarsest };
}

/**
 * Moves each `key=value` partition folder DuckDB wrote into the archive under the name `name(values)`. A
 * partition is one file unless the write had more partitions than DuckDB keeps open at once (100 by default;
 * `writePartitions` stays within it, but the setting is the installation's), when it closes files and starts
 * new ones: those are merged into one, in hex order like the others.
 */
async function addPartitions(c: DuckDBConnection, zip: ZipWriter, dir: string, depth: number, name: (values: string[]) => string, arrow: boolean, values: string[] = []): Promise<void> {
  const items = (await fs.readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  if (depth === 0) {
    const files = items.filter((i) => i.isFile() && i.name.endsWith('.parquet')).map((i) => path.join(dir, i.name));
    if (files.length === 0) throw new StudioError(500, 'Tileset build wrote an empty partition', dir.slice(dir.lastIndexOf(path.sep) + 1));
    if (files.length > 1) {
      const merged = path.join(dir, 'merged.parquet');
      await c.run(`COPY (SELECT * FROM read_parquet([${files.map(pathLiteral).join(', ')}], hive_partitioning = false) ORDER BY hex) TO ${pathLiteral(merged)} (FORMAT parquet)`);
      files.splice(0, files.length, merged);
    }
    const entry = name(values);
    await zip.add(entry, await fs.readFile(files[0]!));
    // The form the map reads, encoded once here: a tile's Arrow answer is then these stored bytes. Ordered
    // again because the build's session does not keep insertion order (the entry was written by hex).
    if (arrow) await zip.add(arrowEntryName(entry), await arrowIpcOn(c, `SELECT * FROM read_parquet(${pathLiteral(files[0]!)}, hive_partitioning = false) ORDER BY hex`), true);
    return;
  }
  for (const i of items) {
    if (!i.isDirectory()) continue;
    const eq = i.name.indexOf('=');
    await addPartitions(c, zip, path.join(dir, i.name), depth - 1, name, arrow, [...values, decodeURIComponent(i.name.slice(eq + 1))]);
  }
}

export type TilesetPlan = { finest: number; coarsest: number };

/** Every check of the request against the source, before anything is created (a refusal changes nothing). */
export async function planTileset(c: DuckDBConnection, body: HexTileCreate, sourceFile: string, columns: DatasetColumn[]): Promise<TilesetPlan> {
  checkColumns(body, columns);
  const src = `read_parquet(${pathLiteral(sourceFile)})`;
  if (body.sourceTimeColumn) await checkTimes(c, body.sourceTimeColumn, src, sourceFile);
  return resolutions(c, body, src);
}

const BUILD_SETTINGS = [
  ['partitioned_write_flush_threshold', '32768'],
  ['preserve_insertion_order', 'false'],
] as const;

/**
 * Partitions one COPY writes at most. DuckDB buffers each open partition in blocks of its own (256 KB at
 * least), so a COPY over every (day, tile) of a fine level — 17,000 partitions for 500k points at
 * resolution 11 by day — ran out of the 512 MB limit; a hundred at a time stay within about 50 MB.
 */
const PARTITIONS_PER_WRITE = 100;

/**
 * Writes `columns` of `table` into the archive, one Parquet entry per value of `keys`, in hex order, and with
 * `arrow` each entry's Arrow twin. Only the all-time tiles get twins: time steps multiply the entries (a year
 * of days times the tiles of every level), and one Arrow encoding per entry — a query each — took the build of
 * 1M points by day and month past five minutes; time-step tiles answer through DuckDB once per node instead.
 */
async function writePartitions(c: DuckDBConnection, zip: ZipWriter, table: string, columns: string, keys: string[], dir: string, name: (values: string[]) => string, arrow: boolean): Promise<void> {
  // One text key per partition: each write takes a range of them (BETWEEN on the same text as the ORDER BY).
  const key = keys.map((k) => `CAST(${k} AS VARCHAR)`).join(` || '/' || `);
  const values = (await all(c, `SELECT DISTINCT ${key} AS k FROM ${table} ORDER BY k`)).map((r) => String(r.k));
  await fs.mkdir(dir, { recursive: true });
  for (let i = 0; i < values.length; i += PARTITIONS_PER_WRITE) {
    const lo = values[i]!;
    const hi = values[Math.min(i + PARTITIONS_PER_WRITE, values.length) - 1]!;
    const part = path.join(dir, String(i));
    await c.run(`COPY (SELECT ${columns} FROM ${table} WHERE ${key} BETWEEN ${pathLiteral(lo)} AND ${pathLiteral(hi)} ORDER BY hex) TO ${pathLiteral(part)} (FORMAT parquet, PARTITION_BY (${keys.join(', ')}))`);
    await addPartitions(c, zip, part, keys.length, name, arrow);
    await fs.rm(part, { recursive: true, force: true });
  }
}

export async function buildTileset(c: DuckDBConnection, input: BuildInput, plan: TilesetPlan, outFile: string): Promise<TilesetMeta> {
  const { body } = input;
  const src = `read_parquet(${pathLiteral(input.sourceFile)})`;
  const { finest, coarsest } = plan;
  const offset = body.resolutionOffset;
  const id = randomUUID().replaceAll('-', '').slice(0, 12);
  const base = `_ht_base_${id}`;
  const work = path.join(input.workDir, `hextile-${id}`);
  await fs.mkdir(work, { recursive: true });
  const zip = await ZipWriter.create(outFile);
  const temps: string[] = [base];
  // Partitioned writes buffer rows per open partition (DuckDB's default: up to 524,288 rows each): smaller
  // buffers, and no insertion order to keep (every write is ORDER BY hex), keep the build in its memory.
  for (const [name, value] of BUILD_SETTINGS) await c.run(`SET SESSION ${name} = ${value}`);
  try {
    const cell = body.sourceHexColumn
      ? parentSql(`CAST('0x' || ${q(body.sourceHexColumn)} AS UBIGINT)`, finest)
      : `h3_latlng_to_cell_u64(CAST(${q(body.sourceLatColumn!)} AS DOUBLE), CAST(${q(body.sourceLngColumn!)} AS DOUBLE), ${finest})`;
    const present = body.sourceHexColumn ? `${q(body.sourceHexColumn)} IS NOT NULL` : `${q(body.sourceLatColumn!)} IS NOT NULL AND ${q(body.sourceLngColumn!)} IS NOT NULL`;
    const time = body.sourceTimeColumn ? `, CAST(${q(body.sourceTimeColumn)} AS TIMESTAMP) AS t` : '';
    const values = body.outputColumns.map((o, i) => (o.sourceColumn ? `, ${q(o.sourceColumn)} AS v${i}` : '')).join('');
    try {
      await c.run(`CREATE TEMP TABLE ${base} AS SELECT ${cell} AS cell${time}${values} FROM ${src} WHERE ${present}`);
    } catch (e) {
      throw badInput('Could not read the source columns', (e as Error).message.replaceAll(input.sourceFile, '<source>'));
    }
    await c.run(`DELETE FROM ${base} WHERE cell IS NULL`);
    // Steps: the cells, then each resolution, then each resolution of each time interval.
    const levels = finest - coarsest + 1;
    const steps = 1 + levels * (1 + body.timeIntervals.length);
    let done = 0;
    const [{ n: cellRows } = { n: 0 }] = await all(c, `SELECT count(*) AS n FROM ${base}`);
    // A level's table is done once its tiles and quantiles are written: dropped at once, so the build holds
    // one level at a time (all of them together ran out of 512 MB on 500k points at resolution 11 by day).
    const dropTemp = async (table: string) => {
      await c.run(`DROP TABLE ${table}`);
      temps.splice(temps.indexOf(table), 1);
    };
    const step = () => {
      input.signal?.throwIfAborted();
      input.onProgress?.(++done / steps, Number(cellRows));
    };
    step();
    const aggs = body.outputColumns.map((o, i) => `${AGG[o.aggMethod](o.sourceColumn ? `v${i}` : '*')} AS ${q(o.targetColumn)}`).join(', ');
    const fieldList = body.outputColumns.map((o) => q(o.targetColumn)).join(', ');

    const index: TileIndex = { version: 1, metadata: { resolutionOffset: offset, minRes: coarsest, maxRes: finest, fields: body.outputColumns.map((o) => o.targetColumn), timeIntervals: body.timeIntervals }, tiles: {}, time: {} };
    const cellCounts: Record<string, number> = {};
    const fieldTypes = (await all(c, `DESCRIBE SELECT ${aggs} FROM ${base}`)).map((d) => ({ name: String(d.column_name), type: String(d.column_type) }));
    for (let r = coarsest; r <= finest; r++) {
      const z = r - offset;
      const agg = `_ht_r${r}_${id}`;
      temps.push(agg);
      await c.run(`CREATE TEMP TABLE ${agg} AS ${cellsAt(z, `SELECT ${parentSql('cell', r)} AS c, ${aggs} FROM ${base} GROUP BY c`)}`);
      await writePartitions(c, zip, agg, `tile, hex, ${fieldList}`, ['tile'], path.join(work, `r${r}`), ([tile]) => entryName({ z, tile: tile! }), true);
      if (r === finest) await c.run(`COPY (SELECT hex, ${fieldList} FROM ${agg} ORDER BY hex) TO ${pathLiteral(input.snapshotFile)} (FORMAT parquet)`);
      const counts = await all(c, `SELECT tile, count(*) AS n FROM ${agg} GROUP BY tile ORDER BY tile`);
      index.tiles[z] = Object.fromEntries(counts.map((t) => [String(t.tile), Number(t.n)]));
      cellCounts[r] = counts.reduce((s, t) => s + Number(t.n), 0);
      const [qs] = await all(c, `SELECT ${quantileList(fieldTypes)} FROM ${agg}`);
      await zip.add(`quantiles/${r}.json`, Buffer.from(JSON.stringify(quantileValues(qs!, fieldTypes))), true);
      await dropTemp(agg);
      step();
    }

    for (const interval of body.timeIntervals) {
      const { unit, format } = INTERVAL_UNITS[interval as TileInterval];
      index.time[interval] = {};
      for (let r = coarsest; r <= finest; r++) {
        const z = r - offset;
        const agg = `_ht_t${interval}${r}_${id}`;
        temps.push(agg);
        const bucket = `date_trunc('${unit}', t)`;
        const grouped = `SELECT ${parentSql('cell', r)} AS c, ${bucket} AS time, '${interval}' || strftime(${bucket}, '${format}') AS path, ${aggs} FROM ${base} WHERE t IS NOT NULL GROUP BY c, time, path`;
        await c.run(`CREATE TEMP TABLE ${agg} AS ${cellsAt(z, grouped)}`);
        await writePartitions(c, zip, agg, `path, tile, hex, time, ${fieldList}`, ['path', 'tile'], path.join(work, `t${interval}${r}`), ([p, tile]) => entryName({ z, tile: tile!, time: p! }), false);
        for (const row of await all(c, `SELECT path, min(time) AS start, tile, count(*) AS n FROM ${agg} GROUP BY path, tile ORDER BY path, tile`)) {
          const step = (index.time[interval]![String(row.path)] ??= { start: new Date(row.start as Date).toISOString(), tiles: {} });
          (step.tiles[z] ??= {})[String(row.tile)] = Number(row.n);
        }
        for (const row of await all(c, `SELECT path, ${quantileList(fieldTypes)} FROM ${agg} GROUP BY path ORDER BY path`)) {
          await zip.add(`quantiles/${r}/${String(row.path)}.json`, Buffer.from(JSON.stringify(quantileValues(row, fieldTypes))), true);
        }
        await dropTemp(agg);
        step();
      }
    }
    const [range] = body.sourceTimeColumn ? await all(c, `SELECT min(t) AS lo, max(t) AS hi FROM ${base}`) : [];
    const meta: TilesetMeta = {
      version: 1,
      dataset: input.datasetId,
      source: input.sourceId,
      zipUrl: input.zipUrl,
      resolutionOffset: offset,
      minRes: coarsest,
      maxRes: finest,
      minZoom: coarsest - offset,
      maxZoom: finest - offset,
      hexColumn: 'hex',
      timeColumn: body.sourceTimeColumn ? 'time' : null,
      fields: body.outputColumns.map((o) => ({ name: o.targetColumn, type: fieldTypes.find((f) => f.name === o.targetColumn)?.type ?? 'DOUBLE', aggMethod: o.aggMethod, sourceColumn: o.sourceColumn ?? null })),
      timeIntervals: body.timeIntervals,
      timeRange: range?.lo ? { start: new Date(range.lo as Date).toISOString(), end: new Date(range.hi as Date).toISOString() } : null,
      cellCounts,
      quantileLevels: [...TILE_QUANTILE_LEVELS],
      createdAt: new Date().toISOString(),
    };
    await zip.add('metadata.json', Buffer.from(JSON.stringify(meta)), true);
    await zip.add('index.json', Buffer.from(JSON.stringify(index)), true);
    await zip.close();
    return meta;
  } catch (e) {
    await zip.abort();
    if (e instanceof Error && /^(Conversion|Invalid Input|Out of Range) Error/.test(e.message)) {
      throw badInput('Could not aggregate the source data', e.message.replaceAll(input.sourceFile, '<source>'));
    }
    throw e;
  } finally {
    for (const t of temps) await bestEffort(c.run(`DROP TABLE IF EXISTS ${t}`), `Dropping the temporary table ${t}`);
    // The connection goes back to the pool: its next user gets DuckDB's defaults.
    for (const [name] of BUILD_SETTINGS) await bestEffort(c.run(`RESET SESSION ${name}`), `Resetting ${name}`);
    await fs.rm(work, { recursive: true, force: true });
  }
}
