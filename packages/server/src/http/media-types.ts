import type { DatasetDownloadFormat } from '@studio/schema';
import { EXPORTS } from '@studio/engine';

/** The media types the studio answers data in, shared by every route that streams rows. */
export const ARROW_STREAM = 'application/vnd.apache.arrow.stream';
/** The media types of the download formats (EXPORTS), without their parameters: what a download route produces. */
export const EXPORT_TYPES = Object.values(EXPORTS).map((e) => e.mediaType.split(';')[0]!);
/** What a query route answers: CSV (the default), an Arrow IPC stream, or JSON rows. */
export const QUERY_ANSWER_TYPES = ['text/csv', ARROW_STREAM, 'application/json'];

/** Media types a download may be asked for by in Accept, by format. */
const ACCEPTED: [string, DatasetDownloadFormat][] = [
  [ARROW_STREAM, 'arrow'],
  ['application/geo+json', 'geojson'],
  ['application/vnd.apache.parquet', 'parquet'],
  ['application/x-parquet', 'parquet'],
  ['application/flatgeobuf', 'flatgeobuf'],
  ['application/vnd.flatgeobuf', 'flatgeobuf'],
  ['application/geopackage+sqlite3', 'gpkg'],
  ['application/vnd.google-earth.kml+xml', 'kml'],
  ['text/csv', 'csv'],
];

/** The format an Accept header asks for: its first media type the studio writes; CSV otherwise (and for any type). */
export function formatAccepted(accept: string): DatasetDownloadFormat {
  for (const part of accept.split(',')) {
    const type = part.split(';')[0]!.trim().toLowerCase();
    const found = ACCEPTED.find(([t]) => t === type);
    if (found) return found[1];
  }
  return 'csv';
}

/**
 * Whether Accept asks for an Arrow stream with its geometry as GeoArrow: the map builder's own parameter
 * (`application/vnd.apache.arrow.stream; geoarrow=1`). Other Arrow readers (the SDK, downloads) send none and keep
 * the geometry text they get today.
 */
export function wantsGeoArrow(accept: string): boolean {
  return accept.split(',').some((part) => {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    return type === ARROW_STREAM && params.includes('geoarrow=1');
  });
}
