import { BIGINT, DuckDBAnyType, DuckDBScalarFunction, DuckDBTypeId, type DuckDBConnection, type DuckDBVector } from '@duckdb/node-api';
import { GeomReader, SpatialInputError, geomValueAt } from '../args';
import type { Geos } from '../geos';
import { pointXY } from '../wkb';
import { boxKey, boxOf, pointKey } from './grid';

/**
 * `studio_sj_key(geom, scale)`, the probe side's key, called once a probe row (10M in the bench). Written against the
 * vectors directly rather than through define.ts's per-row machinery (7.5 µs a row measured, most of a points-in-
 * polygons join): a WKB point's 21 bytes are read and keyed in place, other values go through the shared reader.
 */
export function registerProbeKey(connection: DuckDBConnection, geos: Geos): void {
  connection.registerScalarFunction(
    DuckDBScalarFunction.create({
      name: 'studio_sj_key',
      returnType: BIGINT,
      parameterTypes: [DuckDBAnyType.instance, DuckDBAnyType.instance],
      mainFunction: (info, input, out) => {
        const rows = input.rowCount;
        try {
          const g = input.getColumnVector(0);
          const s = input.getColumnVector(1);
          const blob = g.type.typeId === DuckDBTypeId.BLOB ? (g as unknown as { getItemBytes(i: number): Uint8Array | null }) : null;
          const reader = new GeomReader(geos, 'studio_sj_key');
          for (let i = 0; i < rows; i++) {
            const scale = Number(s.getItem(i) ?? NaN);
            if (!(scale > 0)) { out.setItem(i, null); continue; }
            const bytes = blob ? blob.getItemBytes(i) : undefined;
            const xy = bytes ? pointXY(bytes) : null;
            if (xy && !Number.isNaN(xy[0])) {
              out.setItem(i, BigInt(pointKey(xy[0], xy[1], scale)));
              continue;
            }
            const v = bytes === null ? null : bytes ? { bytes } : geomValueAt('studio_sj_key', 1, g as DuckDBVector, i);
            const b = v ? boxOf(reader.shape(1, v)) : null;
            out.setItem(i, b ? BigInt(boxKey(b, b.x0 === b.x1 && b.y0 === b.y1 && reader.shape(1, v!).type === 'Point', scale)) : null);
            reader.release();
          }
          out.flush();
        } catch (e) {
          info.setError(e instanceof SpatialInputError ? e.message : `studio_sj_key: ${(e as Error).message}`);
        }
      },
    }),
  );
}
