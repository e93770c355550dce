import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBScalarFunction, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import { Geos, normaliseGeometry, type Repair, type Shape } from '@studio/spatial';
import type { Geometry } from 'geojson';
import { parseGeometry, toWkt } from './geometry-text';
import { quoteIdent, quoteLiteral } from './sql';
import { checkKey, removeQuietly, type ObjectStore } from './store';
import type { GeometryRepairCounts } from './types';

/**
 * The one place a dataset's geometry is normalised (@studio/spatial `normaliseGeometry`: cut at the antimeridian,
 * closed along a pole, 0..360° wrapped, rings closed and oriented, invalid shapes named): a DuckDB scalar function
 * over the geometry text column, run by ingest for every format (after detection, over the Parquet it wrote) and by
 * the job that rewrites datasets made before. Text stays in the form it came in (GeoJSON or WKT); a geometry that
 * needs nothing keeps its text byte for byte, so a second pass changes nothing.
 */

export const REPAIR_FUNCTION = 'studio_geometry_repair';

/** What one pass did: geometries changed, by repair, and the invalid ones by GEOS's kind of invalidity. */
export type GeometryRepairs = GeometryRepairCounts & { repairs: Partial<Record<Repair, number>> };

/** Tallies of the passes running now, by the token each passes to the function (one pass = one COPY). */
const tallies = new Map<string, GeometryRepairs>();

/** A geometry's text after normalising, and what was done to it (null text: not a geometry the studio reads). */
export function repairText(geos: Geos, text: string, tally: GeometryRepairs): string {
  const g = parseGeometry(text);
  if (!g) return text;
  const n = normaliseGeometry(geos, g as Shape);
  if (n.invalid) tally.invalid[n.invalid] = (tally.invalid[n.invalid] ?? 0) + 1;
  if (!n.repairs.length) return text;
  tally.repaired++;
  for (const r of n.repairs) tally.repairs[r] = (tally.repairs[r] ?? 0) + 1;
  const out = n.geometry as Geometry;
  return text.trimStart().startsWith('{') ? JSON.stringify(out) : (toWkt(out) ?? text);
}

/**
 * Registers `studio_geometry_repair(text, token)` in the connection's database (once per DuckDB instance). GEOS is
 * loaded first: DuckDB calls scalar functions synchronously, on the JS thread, a vector at a time.
 */
export async function registerGeometryRepair(conn: DuckDBConnection): Promise<void> {
  const geos = await Geos.load();
  conn.registerScalarFunction(
    DuckDBScalarFunction.create({
      name: REPAIR_FUNCTION,
      returnType: VARCHAR,
      parameterTypes: [VARCHAR, VARCHAR],
      mainFunction: (_info, input, output) => {
        const texts = input.getColumnVector(0);
        const tokens = input.getColumnVector(1);
        for (let row = 0; row < input.rowCount; row++) {
          const text = texts.getItem(row) as string | null;
          const tally = tallies.get(String(tokens.getItem(row)));
          output.setItem(row, text === null || !tally ? text : repairText(geos, text, tally));
        }
        output.flush();
      },
    }),
  );
}

/** The Parquet options ingest writes with (ingest.ts says why). */
export const PARQUET_OPTIONS = 'FORMAT parquet, COMPRESSION lz4_raw, PARQUET_VERSION V2';

/**
 * Rewrites the Parquet file `src` to `dest` with its text column `column` normalised; answers what was done. Callers
 * keep `src` when nothing was repaired (dest is still written: the pass is one COPY either way).
 */
export async function repairGeometryParquet(conn: DuckDBConnection, src: string, dest: string, column: string): Promise<GeometryRepairs> {
  const token = randomUUID();
  const tally: GeometryRepairs = { repaired: 0, repairs: {}, invalid: {} };
  tallies.set(token, tally);
  try {
    const c = quoteIdent(column);
    // Points within [-180, 180] need nothing: SQL passes them by (CASE runs the function only on the other rows),
    // which made a pass over 100k WKT points 3.7 s -> 0.34 s at load 20-26 (a plain copy: 0.17 s); the JS call is the cost.
    const wktLon = `TRY_CAST(regexp_extract(${c}, '^POINT \\((\\S+) \\S+\\)$', 1) AS DOUBLE)`;
    const jsonLon = `TRY_CAST(json_extract(${c}, '$.coordinates[0]') AS DOUBLE)`;
    const plainPoint = `CASE WHEN starts_with(${c}, 'POINT (') THEN abs(${wktLon}) <= 180
      WHEN starts_with(${c}, '{') AND json_extract_string(${c}, '$.type') = 'Point' THEN abs(${jsonLon}) <= 180 ELSE false END`;
    const repaired = `CASE WHEN ${plainPoint} THEN ${c} ELSE ${REPAIR_FUNCTION}(${c}, ${quoteLiteral(token)}) END`;
    await conn.run(`COPY (SELECT * REPLACE (${repaired} AS ${c}) FROM read_parquet(${quoteLiteral(src)})) TO ${quoteLiteral(dest)} (${PARQUET_OPTIONS})`);
    return tally;
  } finally {
    tallies.delete(token);
  }
}

/** Whether a pass found anything to report. */
export const anyRepairs = (r: GeometryRepairs) => r.repaired > 0 || Object.keys(r.invalid).length > 0;

/**
 * A stored dataset's geometry normalised (the job for datasets made before ingest did it): `fromKey`'s Parquet
 * rewritten under `toKey` when anything was repaired (nothing is stored otherwise); answers the counts and, when
 * stored, the new file's size.
 */
export async function repairStoredGeometry(
  conn: DuckDBConnection,
  store: ObjectStore,
  tmpDir: string,
  from: { key: string; column: string },
  toKey: string,
): Promise<{ counts: GeometryRepairs; byteSize: number | null }> {
  checkKey(toKey);
  const tmp = path.join(tmpDir, `repair-${randomUUID()}.parquet`);
  try {
    const counts = await repairGeometryParquet(conn, await store.localPath(from.key), tmp, from.column);
    if (!counts.repaired) return { counts, byteSize: null };
    const byteSize = (await stat(tmp)).size;
    await store.put(toKey, tmp);
    return { counts, byteSize };
  } finally {
    await removeQuietly(tmp);
  }
}
