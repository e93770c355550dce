import proj4 from 'proj4';
import { DuckDBConnection, DuckDBScalarFunction, VARCHAR } from '@duckdb/node-api';

/**
 * Geometry in a projected CRS (GeoParquet's `geo` metadata names it, as PROJJSON or an identifier) brought to
 * longitude/latitude, the studio's one CRS. DuckDB's spatial extension (ST_Transform) cannot be installed here,
 * so proj4 — the reader Shapefiles already go through — transforms each geometry's WKT in a scalar function
 * that ingestion calls; DuckDB runs it on the JavaScript thread, a vector of rows at a time.
 */

/** (x, y) in the source CRS → [longitude, latitude]. */
export type ToLngLat = (x: number, y: number) => [number, number];

/** CRSs whose definitions proj4 knows without a database: WGS 84 / UTM zones and Web Mercator. */
function definitionOf(authority: string, code: number): string | null {
  if (authority.toUpperCase() !== 'EPSG') return null;
  if (code >= 32601 && code <= 32660) return `+proj=utm +zone=${code - 32600} +datum=WGS84 +units=m +no_defs`;
  if (code >= 32701 && code <= 32760) return `+proj=utm +zone=${code - 32700} +south +datum=WGS84 +units=m +no_defs`;
  if (code === 3857 || code === 900913) return 'EPSG:3857';
  return null;
}

interface ProjJson {
  type?: string;
  name?: string;
  id?: { authority?: string; code?: string | number };
  conversion?: unknown;
}

/**
 * The transform from a CRS as DuckDB reports it (`ST_CRS`: "EPSG:32610", or GeoParquet's PROJJSON) to
 * longitude/latitude; null when the studio cannot build one (a CRS named only by a code it has no definition for).
 */
export function toLngLatOf(crs: string): ToLngLat | null {
  let source: string | object | null = null;
  const text = crs.trim();
  if (text.startsWith('{')) {
    let j: ProjJson;
    try {
      j = JSON.parse(text) as ProjJson;
    } catch {
      return null;
    }
    // A whole PROJJSON (its conversion and datum) defines itself; one cut to its name and id needs the code known.
    if (j.conversion) source = j;
    else if (j.id?.authority && j.id.code !== undefined) source = definitionOf(j.id.authority, Number(j.id.code));
  } else {
    const m = /^([A-Za-z]+):(\d+)$/.exec(text);
    if (m) source = definitionOf(m[1]!, Number(m[2]));
  }
  if (!source) return null;
  let converter: proj4.Converter;
  try {
    converter = proj4(source as string, 'EPSG:4326');
  } catch {
    return null;
  }
  return (x, y) => converter.forward([x, y]) as [number, number];
}

/** One coordinate of WKT: two to four numbers apart by spaces (x y, then z and m kept as they are). */
const COORDINATE = /(-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s+(-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)((?:\s+-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?){0,2})/g;

/** The WKT with each coordinate's x and y transformed (z and m kept); EMPTY geometries stay as they are. */
export function reprojectWkt(wkt: string, toLngLat: ToLngLat): string {
  return wkt.replace(COORDINATE, (_whole, x: string, y: string, rest: string) => {
    const [lng, lat] = toLngLat(Number(x), Number(y));
    return `${round(lng)} ${round(lat)}${rest}`;
  });
}

/** Nine decimals: a tenth of a millimetre, finer than any source's own accuracy, and no float noise in the text. */
const round = (v: number) => String(Math.round(v * 1e9) / 1e9);

export const REPROJECT_FUNCTION = 'studio_wkt_to_lnglat';

/**
 * Registers `studio_wkt_to_lnglat(wkt, crs)` in the connection's database (once per DuckDB instance: scalar
 * functions land in its catalog): the WKT in longitude/latitude, NULL for a NULL geometry. Callers check the CRS
 * with toLngLatOf first; a CRS without a transform here is an error, never a silent copy of the coordinates.
 */
export function registerReprojection(conn: DuckDBConnection): void {
  const transforms = new Map<string, ToLngLat>();
  conn.registerScalarFunction(
    DuckDBScalarFunction.create({
      name: REPROJECT_FUNCTION,
      returnType: VARCHAR,
      parameterTypes: [VARCHAR, VARCHAR],
      mainFunction: (_info, input, output) => {
        const wkts = input.getColumnVector(0);
        const crss = input.getColumnVector(1);
        for (let row = 0; row < input.rowCount; row++) {
          const wkt = wkts.getItem(row) as string | null;
          const crs = String(crss.getItem(row));
          let toLngLat = transforms.get(crs);
          if (!toLngLat) {
            const made = toLngLatOf(crs);
            if (!made) throw new Error(`No transform from ${crs} to longitude/latitude`);
            transforms.set(crs, made);
            toLngLat = made;
          }
          output.setItem(row, wkt === null ? null : reprojectWkt(wkt, toLngLat));
        }
        output.flush();
      },
    }),
  );
}
