import { DuckDBScalarFunction, VARCHAR, type DuckDBVector } from '@duckdb/node-api';
import type { Engine } from '@studio/engine';
import { kindOf, mercatorBox, parseGeometry } from './geometry';

/** The DuckDB function that reads a geometry text column for the tiler. */
export const BOX_FUNCTION = 'studio_vt_box';

const registered = new WeakMap<Engine, Promise<void>>();

/**
 * Registers `studio_vt_box(text) -> 'minX,minY,maxX,maxY,kind'` (Mercator units, kind Point, LineString,
 * Polygon or Mixed; NULL for text that is not a geometry) once per engine: the spatial extension cannot be
 * installed here, so the bounding boxes the tiler partitions by come from parsing GeoJSON/WKT in JS,
 * inside the same SQL pass that writes the work table.
 */
export function ensureBoxFunction(engine: Engine): Promise<void> {
  let done = registered.get(engine);
  if (!done) {
    done = engine.withConnection(async (c) => {
      c.registerScalarFunction(
        DuckDBScalarFunction.create({
          name: BOX_FUNCTION,
          returnType: VARCHAR,
          parameterTypes: [VARCHAR],
          mainFunction: (_info, input, out) => {
            const v = input.getColumnVector(0) as DuckDBVector<string>;
            for (let i = 0; i < input.rowCount; i++) {
              const text = v.getItem(i);
              const g = text === null ? null : parseGeometry(text);
              const box = g && mercatorBox(g);
              out.setItem(i, box ? `${box.join(',')},${kindOf(g)}` : null);
            }
            out.flush();
          },
        }),
      );
    });
    registered.set(engine, done);
    done.catch(() => registered.delete(engine));
  }
  return done;
}
