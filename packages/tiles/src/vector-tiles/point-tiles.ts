import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteLiteral } from '@studio/engine';
import { VT_OPTIONS, type Encoded } from './mvt';
import { encodePointsWithin, type PointFeature } from './point-mvt';
import { GroupedRows, chunksOf, type Group } from './row-groups';

export type AddTile = (z: number, x: number, y: number, encoded: Encoded) => Promise<void>;

export interface PointPass {
  /** The zoned work table (tiler.ts steps 1-3), stored in Morton order of each point's tile at maxZoom or deeper. */
  file: string;
  layer: string;
  /** Property columns (p0..pN) and their names in the tiles. */
  props: { name: string; alias: string }[];
  minZoom: number;
  maxZoom: number;
  /** Rows one tile may hold (MAX_GROUP_FEATURES unless a test sets it). */
  cap: number;
  maxTileBytes?: number;
  signal?: AbortSignal;
}

/** Column of the first property in the pass's rows: tx, ty, fid, x0, y0, mz come first. */
const FIRST_PROPERTY = 6;

/**
 * Cuts the tiles of every zoom of a lat/lng point table in one scan. Stored in Morton order of their deepest
 * tile, the points of any tile at any zoom arrive together, so one tile a zoom is open at a time and is encoded
 * when the first point of another arrives. Each row is read from DuckDB once, not once a zoom (a million points
 * were read 3.3 million times by fourteen scans, one a zoom), and appears in the tiles of every zoom from its
 * first (`mz`) down. A point's tile and its position in it are arithmetic: no clipping, no simplification.
 * Answers how many tiles held more than `cap` points.
 */
export async function cutPointTiles(c: DuckDBConnection, pass: PointPass, add: AddTile): Promise<number> {
  const { minZoom, maxZoom } = pass;
  const n = 2 ** maxZoom;
  // Points first drawn deeper than maxZoom are left out in SQL: a pass of the low zooms only (tiler.ts step 5)
  // reads none of them. Stored in Morton order of a deeper zoom, the rows are in Morton order of maxZoom too.
  const tileSql = (v: string) => `CAST(least(${n - 1}, floor(${v} * ${n})) AS INTEGER)`;
  const sql = `SELECT ${tileSql('x0')} AS tx, ${tileSql('y0')} AS ty, CAST(fid AS DOUBLE) AS fid, x0, y0, CAST(mz AS INTEGER) AS mz${pass.props.map((p) => `, ${p.alias}`).join('')}
    FROM read_parquet(${quoteLiteral(pass.file)})
    WHERE mz <= ${maxZoom}`;
  const keys = pass.props.map((p) => p.name);
  const zooms = Array.from({ length: maxZoom - minZoom + 1 }, () => new GroupedRows(pass.cap));

  const encode = (z: number, group: Group) => {
    const scale = 2 ** z;
    const at = (v: number, t: number) => Math.round((v * scale - t) * VT_OPTIONS.extent);
    const features = group.rows.map((r): PointFeature => ({ id: r[2] as number, x: at(r[3] as number, group.a), y: at(r[4] as number, group.b), row: r }));
    return add(z, group.a, group.b, encodePointsWithin(pass.layer, keys, FIRST_PROPERTY, features, pass.maxTileBytes));
  };

  for await (const rows of chunksOf(c, sql, pass.signal)) {
    for (const row of rows) {
      const tx = row[0] as number;
      const ty = row[1] as number;
      for (let z = Math.max(minZoom, row[5] as number); z <= maxZoom; z++) {
        // The tile at zoom z holding the deepest tile (tx, ty): division, not a shift (zooms past 31 bits).
        const up = 2 ** (maxZoom - z);
        const closed = zooms[z - minZoom]!.push(Math.floor(tx / up), Math.floor(ty / up), row);
        if (closed) await encode(z, closed);
      }
    }
  }
  for (let z = minZoom; z <= maxZoom; z++) {
    const last = zooms[z - minZoom]!.end();
    if (last) await encode(z, last);
  }
  return zooms.reduce((sum, g) => sum + g.capped, 0);
}
