import { StudioError, badInput, conflict } from '@studio/schema';
import { getResolution } from 'h3-js';
import type { NodeOf, TimeInterval } from '../nodes';
import type { Dialect } from './dialect';
import { hexifyCells } from './hexify';
import type { Params } from './params';

/**
 * What the compiler needs of one hex-tile dataset. The server builds it from the tileset archive
 * (index and metadata read, the needed entries extracted) before compiling, so compiling stays
 * synchronous and the pipeline package never touches files.
 */
export interface TileSource {
  readonly resolutionOffset: number;
  /** Data resolutions held: minRes..maxRes. */
  readonly minRes: number;
  readonly maxRes: number;
  readonly fields: readonly string[];
  /** Time interval codes (T, H, D, M, Y) the tileset is sliced by. */
  readonly timeIntervals: readonly string[];
  /**
   * A relation (DuckDB SQL) of the stored cells at data resolution `res`, columns hex, [time], fields:
   * the tiles touching any cell of `within` (any resolution; every tile when absent); with `interval`,
   * every time step of that interval, with its `time` column.
   */
  cells(res: number, opts: { within?: readonly string[]; interval?: string }): string;
  /** Stored quantiles of each step of `interval` at `res`, one row per step and field; null where an entry failed to load. */
  quantiles(res: number, interval: string): { path: string; time: string; field: string; quantiles: number[] | null }[];
}
export type TileResolver = (uuid: string) => TileSource;

/** The cell (and time) key and value columns of a tile relation, which tileJoin joins on. */
export interface TileCols { hex: string; time?: string; fields: string[] }

export interface TileHost<R> {
  readonly d: Dialect;
  readonly params: Params;
  add(sql: string, order?: string, tile?: TileCols): R;
}

/** tileExtract's timeInterval (YEAR..SECOND) as the tileset's interval code; SECOND has none. */
const INTERVAL_CODE: Partial<Record<TimeInterval, string>> = { YEAR: 'Y', MONTH: 'M', DAY: 'D', HOUR: 'H', MINUTE: 'T' };

const QUANTILE_ROWS = '[{"path":"VARCHAR","time":"TIMESTAMP","field":"VARCHAR","quantiles":"DOUBLE[]"}]';

export class TileCompiler<R extends { cte: string; tile?: TileCols }> {
  constructor(private readonly host: TileHost<R>, private readonly resolve: TileResolver | undefined) {}

  private q = (s: string) => this.host.d.quoteIdent(s);
  private p = (v: unknown) => this.host.params.add(v);

  private source(type: string, uuid: string): TileSource {
    if (!this.resolve || this.host.d.name !== 'duckdb') {
      throw conflict(`The ${type} node reads hex tiles, which only the studio's DuckDB engine holds`, 'Run it through POST /v1/query or POST /v1/tileset');
    }
    return this.resolve(uuid);
  }

  private checkRes(type: string, s: TileSource, res: number) {
    if (res < s.minRes || res > s.maxRes) throw badInput(`${type} node: the tileset has no cells at resolution ${res} (it has ${s.minRes} to ${s.maxRes})`);
  }

  private checkInterval(type: string, s: TileSource, code: string, label = code) {
    if (!s.timeIntervals.includes(code)) {
      throw badInput(`${type} node: the tileset has no ${label} time steps (it has ${s.timeIntervals.length ? s.timeIntervals.join(', ') : 'none'})`);
    }
  }

  /** One tile: the cells inside tileIndex at its resolution plus resolutionOffset (default: the tileset's). */
  hexTile(n: NodeOf<'hexTile'>): R {
    const s = this.source('hexTile', n.uuid);
    const z = getResolution(n.tileIndex);
    const res = z + (n.resolutionOffset ?? s.resolutionOffset);
    this.checkRes('hexTile', s, res);
    const rel = s.cells(res, { within: [n.tileIndex] });
    // Stored tiles coarser than the asked one hold cells outside it: keep those inside.
    const inside = res - s.resolutionOffset < z ? ` WHERE h3_cell_to_parent(hex, CAST(${this.p(z)} AS BIGINT)) = ${this.p(n.tileIndex)}` : '';
    return this.host.add(`SELECT * FROM ${rel}${inside}`, undefined, { hex: 'hex', fields: [...s.fields] });
  }

  /** The cells of a tileset inside a polygon at one resolution, optionally per time step. */
  tileExtract(n: NodeOf<'tileExtract'>): R {
    const s = this.source('tileExtract', n.sourceId);
    const res = n.res ?? s.maxRes;
    this.checkRes('tileExtract', s, res);
    const wanted = n.sourceColumn === undefined ? [...s.fields] : Array.isArray(n.sourceColumn) ? n.sourceColumn : [n.sourceColumn];
    for (const f of wanted) {
      if (!s.fields.includes(f)) throw badInput(`tileExtract node: ${f} is not a field of the tileset (fields: ${s.fields.join(', ')})`);
    }
    let interval: string | undefined;
    if (n.timeInterval) {
      interval = INTERVAL_CODE[n.timeInterval];
      if (!interval) throw badInput(`tileExtract node: the tileset has no ${n.timeInterval} time steps (it has ${s.timeIntervals.join(', ') || 'none'})`);
      this.checkInterval('tileExtract', s, interval, n.timeInterval);
    }
    let cells: string[];
    try {
      cells = hexifyCells(n.geojson, res);
    } catch (e) {
      // The polyfill is hexify's, and so are its messages: name the node that asked.
      if (e instanceof StudioError) throw new StudioError(e.status, e.message.replace(/^hexify node/, 'tileExtract node'), e.details);
      throw e;
    }
    const hex = n.h3ColumnName || 'hex';
    const time = interval ? n.timeColumnName || 'time' : undefined;
    const cols = [`hex AS ${this.q(hex)}`, ...(time ? [`time AS ${this.q(time)}`] : []), ...wanted.map((f) => this.q(f))];
    const rel = s.cells(res, { within: cells, interval });
    // Cells travel as one comma-separated text parameter (H3 text has no commas): see tileQuantiles.
    const limit = n.maxRows ? ` LIMIT ${this.p(n.maxRows)}` : '';
    const sql = `SELECT ${cols.join(', ')} FROM ${rel} WHERE hex IN (SELECT unnest(string_split(CAST(${this.p(cells.join(','))} AS VARCHAR), ','))) ORDER BY hex${interval ? ', time' : ''}${limit}`;
    return this.host.add(sql, undefined, { hex, ...(time && { time }), fields: wanted });
  }

  /**
   * Joins tile relations cell by cell (and step by step when all have time): a FULL OUTER join, so a
   * cell present in any input is kept. A field name already taken gets the input's number (f_2).
   */
  tileJoin(inputs: R[]): R {
    const tiles = inputs.map((r, i) => {
      if (!r.tile) throw badInput(`tileJoin node: input[${i}] is not a hex tile node (hexTile, tileExtract or tileJoin)`);
      return r.tile;
    });
    const withTime = tiles.every((t) => t.time);
    const alias = (i: number) => `i${i}`;
    const coalesce = (col: (t: TileCols) => string) => `COALESCE(${tiles.map((t, i) => `${alias(i)}.${this.q(col(t))}`).join(', ')})`;
    const prefix = (k: number, col: (t: TileCols) => string) =>
      k === 1 ? `${alias(0)}.${this.q(col(tiles[0]!))}` : `COALESCE(${tiles.slice(0, k).map((t, i) => `${alias(i)}.${this.q(col(t))}`).join(', ')})`;
    let from = `${inputs[0]!.cte} AS ${alias(0)}`;
    for (let k = 1; k < inputs.length; k++) {
      const t = tiles[k]!;
      let on = `${prefix(k, (x) => x.hex)} = ${alias(k)}.${this.q(t.hex)}`;
      if (withTime) on += ` AND ${prefix(k, (x) => x.time!)} = ${alias(k)}.${this.q(t.time!)}`;
      from += ` FULL OUTER JOIN ${inputs[k]!.cte} AS ${alias(k)} ON ${on}`;
    }
    const hex = tiles[0]!.hex;
    const time = withTime ? tiles[0]!.time : undefined;
    const taken = new Set([hex, ...(time ? [time] : [])]);
    const fields: string[] = [];
    const list = [`${coalesce((t) => t.hex)} AS ${this.q(hex)}`, ...(time ? [`${coalesce((t) => t.time!)} AS ${this.q(time)}`] : [])];
    tiles.forEach((t, i) => {
      for (const f of t.fields) {
        const name = taken.has(f) ? `${f}_${i + 1}` : f;
        taken.add(name);
        fields.push(name);
        list.push(`${alias(i)}.${this.q(f)} AS ${this.q(name)}`);
      }
    });
    return this.host.add(`SELECT ${list.join(', ')} FROM ${from}`, undefined, { hex, ...(time && { time }), fields });
  }

  /** Stored quantiles per time step of one interval at one resolution: rows path, time, field, quantiles. */
  tileQuantiles(n: NodeOf<'tileQuantiles'>): R {
    const s = this.source('tileQuantiles', n.uuid);
    this.checkRes('tileQuantiles', s, n.res);
    this.checkInterval('tileQuantiles', s, n.interval);
    const rows = s.quantiles(n.res, n.interval);
    // One JSON text parameter: servers bind scalars only (no typed lists), and from_json types it.
    const sql = `SELECT unnest(from_json(CAST(${this.p(JSON.stringify(rows))} AS VARCHAR), '${QUANTILE_ROWS}'), recursive := true)`;
    return this.host.add(`SELECT * FROM (${sql}) ORDER BY path, field`);
  }
}
