import { duckdbDialect } from '@studio/pipeline';

/** Rows the map tab draws at most (software WebGL and the browser's memory bound it, not the query). */
export const MAP_ROWS = 10_000;

const q = duckdbDialect.quoteIdent;

/** The column name kepler.gl makes a GeoJSON layer from. */
const KEPLER_GEOJSON = '_geojson';

/** The SQL over a view with its WKB BLOB columns as GeoJSON text, the first one named `as` unless a column has that name. */
function geojsonQuery(view: string, columns: { name: string; type: string }[], as: string, limit?: number): string | null {
  const blobs = columns.filter((c) => c.type === 'BLOB');
  if (!blobs.length) return null;
  const drawn = columns.some((c) => c.name.toLowerCase() === as) ? null : blobs[0]!.name;
  const list = columns.map((c) => (c.type === 'BLOB' ? `ST_AsGeoJSON(${q(c.name)}) AS ${q(c.name === drawn ? as : c.name)}` : q(c.name)));
  return `SELECT ${list.join(', ')} FROM ${q(view)}${limit ? ` LIMIT ${limit}` : ''}`;
}

/**
 * The SQL the map tab runs over a result's temporary view: geometry that spatial functions made (WKB BLOBs) as
 * GeoJSON text, which kepler.gl draws - the first such column named `_geojson` (the name kepler makes a layer from)
 * unless the result has one; every other column as it is. Null when no column needs it (the view itself is drawn).
 */
export const mapQuery = (view: string, columns: { name: string; type: string }[]): string | null => geojsonQuery(view, columns, KEPLER_GEOJSON, MAP_ROWS);

/**
 * The SQL a download runs over the view, all its rows: the first WKB column as GeoJSON text named `geometry`, the
 * name the downloads place rows by (they read geometry as text, not WKB), so a GeoPackage or Shapefile of a spatial
 * query has its shapes. Null when no column needs it (the view itself is downloaded).
 */
export const downloadQuery = (view: string, columns: { name: string; type: string }[]): string | null => geojsonQuery(view, columns, 'geometry');
