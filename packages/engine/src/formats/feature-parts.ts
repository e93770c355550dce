import { rm } from 'node:fs/promises';
import type { Geometry } from 'geojson';
import { DuckDBInstance, type DuckDBAppender } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral } from '../sql';

/**
 * Features of a file whose format declares its columns' types (GeoPackage, FlatGeobuf) written as Parquet parts
 * through DuckDB's appender, a part at a time: memory holds one part's rows, whatever the file's size (read_json
 * of the same features as one GeoJSON collection ran out of memory at 1M points). Attributes keep their declared
 * types; the geometry becomes GeoJSON text in `_geojson` and, for points, `latitude`/`longitude` — the columns a
 * GeoJSON upload gets — unless an attribute already has that name.
 */

/** A declared column as its Parquet part types it; dates and timestamps pass as text, cast when a part is written. */
export interface PartColumn {
  name: string;
  type: 'BIGINT' | 'DOUBLE' | 'VARCHAR' | 'BOOLEAN' | 'BLOB' | 'DATE' | 'TIMESTAMP';
}

/** One feature: its attributes by column name (absent or null: null) and its geometry in WGS 84. */
export interface FeatureRow {
  values: Record<string, unknown>;
  geometry: Geometry | null;
}

/** Rows written to one Parquet part. */
const PART_ROWS = 100_000;

/** One attribute value appended in its column's type; a value of another kind is refused by name. */
function appendValue(app: DuckDBAppender, col: PartColumn, v: unknown, wrong: () => Error): void {
  if (v === null || v === undefined) return app.appendNull();
  switch (col.type) {
    case 'BIGINT':
      if (typeof v === 'bigint') return app.appendBigInt(v);
      if (typeof v === 'number' && Number.isInteger(v)) return app.appendBigInt(BigInt(v));
      throw wrong();
    case 'DOUBLE':
      if (typeof v === 'number' || typeof v === 'bigint') return app.appendDouble(Number(v));
      throw wrong();
    case 'BOOLEAN':
      if (typeof v === 'boolean') return app.appendBoolean(v);
      if (typeof v === 'bigint' || typeof v === 'number') return app.appendBoolean(Number(v) !== 0);
      throw wrong();
    case 'BLOB':
      return v instanceof Uint8Array ? app.appendBlob(v) : app.appendBlob(Buffer.from(String(v)));
    default:
      if (v instanceof Uint8Array) return app.appendVarchar(Buffer.from(v).toString('base64'));
      // A JSON attribute (FlatGeobuf's Json columns arrive parsed) is kept as its JSON text.
      return app.appendVarchar(typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
}

/** How a date or timestamp column's text becomes its type: an offset honoured (DuckDB without ICU keeps TIMESTAMPTZ in UTC), the timestamp kept in UTC. */
const castOf = (c: PartColumn) =>
  c.type === 'DATE' ? `TRY_CAST(${quoteIdent(c.name)} AS DATE)` : `CAST(TRY_CAST(${quoteIdent(c.name)} AS TIMESTAMPTZ) AS TIMESTAMP)`;

/**
 * Writes `features` as `<outBase>-part-0001.parquet` and on; answers the parts in order (one even with no rows, so
 * the columns arrive). A value that is not of its column's type stops it with `fail(where(n) + reason)`; on any
 * failure the parts written are removed and the error passed on.
 */
export async function writeFeatureParts(
  outBase: string,
  columns: PartColumn[],
  features: Iterable<FeatureRow> | AsyncIterable<FeatureRow>,
  refuse: { fail: (reason: string) => Error; where: (feature: number) => string },
): Promise<string[]> {
  const parts: string[] = [];
  const duck = await DuckDBInstance.create(':memory:', { threads: '1', memory_limit: '256MB' });
  const conn = await duck.connect();
  try {
    const taken = new Set(columns.map((c) => c.name.toLowerCase()));
    const withGeojson = !taken.has('_geojson');
    const withLatLng = !taken.has('latitude') && !taken.has('longitude');
    const staged = [
      ...columns.map((c) => `${quoteIdent(c.name)} ${c.type === 'DATE' || c.type === 'TIMESTAMP' ? 'VARCHAR' : c.type}`),
      ...(withGeojson ? ['_geojson VARCHAR'] : []),
      ...(withLatLng ? ['latitude DOUBLE', 'longitude DOUBLE'] : []),
    ];
    await conn.run(`CREATE TABLE staged (${staged.join(', ')})`);
    const select = [
      ...columns.map((c) => (c.type === 'DATE' || c.type === 'TIMESTAMP' ? `${castOf(c)} AS ${quoteIdent(c.name)}` : quoteIdent(c.name))),
      ...(withGeojson ? ['_geojson'] : []),
      ...(withLatLng ? ['latitude', 'longitude'] : []),
    ].join(', ');
    const flush = async () => {
      const file = `${outBase}-part-${String(parts.length + 1).padStart(4, '0')}.parquet`;
      parts.push(file);
      await conn.run(`COPY (SELECT ${select} FROM staged) TO ${quoteLiteral(file)} (FORMAT parquet)`);
      await conn.run('DELETE FROM staged');
    };
    let app = await conn.createAppender('staged');
    let inPart = 0;
    let n = 0;
    for await (const { values, geometry: g } of features) {
      n++;
      for (const c of columns) {
        const v = values[c.name];
        appendValue(app, c, v, () => refuse.fail(`${refuse.where(n)}: column '${c.name}' holds ${JSON.stringify(String(v)).slice(0, 60)}, not a ${c.type.toLowerCase()}`));
      }
      if (withGeojson) {
        if (g) app.appendVarchar(JSON.stringify(g));
        else app.appendNull();
      }
      if (withLatLng) {
        const point = g?.type === 'Point' && g.coordinates.length >= 2 ? g.coordinates : null;
        if (point) {
          app.appendDouble(point[1]!);
          app.appendDouble(point[0]!);
        } else {
          app.appendNull();
          app.appendNull();
        }
      }
      app.endRow();
      if (++inPart >= PART_ROWS) {
        app.closeSync();
        await flush();
        app = await conn.createAppender('staged');
        inPart = 0;
      }
    }
    app.closeSync();
    if (inPart > 0 || parts.length === 0) await flush();
    return parts;
  } catch (e) {
    await Promise.all(parts.map((p) => rm(p, { force: true })));
    throw e;
  } finally {
    conn.closeSync();
    duck.closeSync();
  }
}
