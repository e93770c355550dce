import type { DriverTarget } from './driver';

/**
 * What storage connections (s3, gcs, planet) answer: a test, a listing of one level of a prefix, and an
 * object downloaded to a file the server then ingests as a dataset.
 */

export interface StorageItem {
  /** The last part of the key (a folder ends with '/'). */
  name: string;
  /** The whole key: what `download` and the next `list` take. */
  key: string;
  type: 'folder' | 'object';
  size?: number;
  lastModified?: string;
}

export interface StorageListing {
  items: StorageItem[];
  /** More entries than one page held (the listing shows the first 1000). */
  truncated: boolean;
}

export interface StorageDriver {
  test(t: DriverTarget): Promise<{ ok: true; serverVersion: string }>;
  /** One level under `prefix` (which must lie under the connection's own prefix). */
  list(t: DriverTarget, prefix: string): Promise<StorageListing>;
  /** Writes the object to `file`; answers the content type the data is read as (from its name first). */
  download(t: DriverTarget, key: string, file: string, signal?: AbortSignal): Promise<{ contentType: string; size: number }>;
}

/** Content types the studio ingests, by file name; the object's own type is the fallback. */
const BY_EXTENSION: [RegExp, string][] = [
  [/\.csv(\.gz)?$/i, 'text/csv'],
  [/\.tsv$/i, 'text/tab-separated-values'],
  [/\.parquet$/i, 'application/vnd.apache.parquet'],
  [/\.(geojson|geo\.json)$/i, 'application/geo+json'],
  [/\.(ndjson|jsonl)$/i, 'application/x-ndjson'],
  [/\.json$/i, 'application/json'],
];

export function contentTypeOfKey(key: string, stated: string | undefined): string {
  return BY_EXTENSION.find(([re]) => re.test(key))?.[1] ?? stated?.split(';')[0]?.trim() ?? 'application/octet-stream';
}

/** Whether `key` lies under the connection's prefix (no prefix: the whole bucket). */
export function underPrefix(key: string, prefix: string | undefined): boolean {
  return !prefix || key.startsWith(prefix);
}
