import { z } from 'zod';
import { Id, IsoDate, QueryBool } from './common';
import { UPLOAD_DELIMITERS } from './delimited';
import { StudioRecord } from './records';
import { VectorTileBuild, VectorTileInfo } from './vector-tiles';
import { HexTileBuild } from './tilesets';
import { DatasetRefresh } from './dataset-refresh';

export const DATASET_TYPES = ['managed', 'externally-hosted', 'vector-tile', 'raster-tile', 'hex-tile', 'sql', 'wms', 'tile3d'] as const;
export const DatasetType = z.enum(DATASET_TYPES);
export type DatasetType = z.infer<typeof DatasetType>;

/**
 * Dataset status (catalog §3, §4; transitions decided here, see docs/datasets.md):
 * new -> pending (data arriving or being ingested) -> ready | error; ready | error -> pending when data is
 * replaced. A dataset with no stored data to read is never `ready`.
 */
export const DATASET_STATUSES = ['new', 'pending', 'ready', 'error'] as const;
export const DatasetStatus = z.enum(DATASET_STATUSES);
export type DatasetStatus = z.infer<typeof DatasetStatus>;

export const DATASET_TRANSITIONS: Record<DatasetStatus, readonly DatasetStatus[]> = {
  new: ['pending', 'error'],
  pending: ['ready', 'error'],
  ready: ['pending'],
  error: ['pending'],
};

export const COLUMN_TYPES = ['STRING', 'INTEGER', 'BIGINT', 'FLOAT', 'DOUBLE', 'DECIMAL', 'BOOLEAN', 'GEOMETRY', 'DATE', 'TIMESTAMP', 'ARRAY', 'STRUCT', 'MAP', 'VARIANT'] as const;
export const ColumnType = z.enum(COLUMN_TYPES);

export const DatasetColumn = z.object({
  name: z.string(),
  type: ColumnType,
  duckdbType: z.string(),
  role: z.enum(['latitude', 'longitude', 'geometry', 'h3', 'timestamp']).optional(),
  stats: z.object({
    nullCount: z.number(),
    min: z.union([z.number(), z.string()]).optional(),
    max: z.union([z.number(), z.string()]).optional(),
    mean: z.number().optional(),
    distinctCount: z.number().optional(),
  }),
});
export type DatasetColumn = z.infer<typeof DatasetColumn>;

/**
 * Upload media types (catalog §5: json, parquet, csv, tsv; GeoJSON is JSON), and the formats the studio
 * converts with a reader made for each: zipped Shapefile, KML/KMZ, GPX, FlatGeobuf, Excel .xlsx, Arrow IPC.
 */
export const UPLOAD_CONTENT_TYPES = [
  'text/csv',
  'text/tab-separated-values',
  'application/json',
  'application/x-ndjson',
  'application/geo+json',
  'application/geo+json-seq',
  'application/json-seq',
  'application/vnd.apache.parquet',
  'application/x-parquet',
  'application/octet-stream',
  'application/zip',
  'application/x-zip-compressed',
  'application/x-shapefile',
  'application/vnd.google-earth.kml+xml',
  'application/vnd.google-earth.kmz',
  'application/gpx+xml',
  'application/flatgeobuf',
  'application/vnd.flatgeobuf',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.apache.arrow.file',
  'application/vnd.apache.arrow.stream',
  'application/x-apache-arrow',
  'application/x-feather',
  'application/geopackage+sqlite3',
] as const;

/**
 * Formats a dataset downloads in (`GET /v1/datasets/{id}/data?format=`, or by Accept): CSV (the default),
 * GeoJSON, Parquet (GeoParquet when the dataset has a location), an Arrow IPC stream, FlatGeobuf, GeoPackage, KML,
 * Shapefile (a zip of one .shp/.shx/.dbf/.prj/.cpg set per geometry type).
 */
export const DATASET_DOWNLOAD_FORMATS = ['csv', 'geojson', 'parquet', 'arrow', 'flatgeobuf', 'gpkg', 'kml', 'shapefile'] as const;
export const DatasetDownloadFormat = z.enum(DATASET_DOWNLOAD_FORMATS);
export type DatasetDownloadFormat = z.infer<typeof DatasetDownloadFormat>;
/** The extension of each format's file name: what the server's Content-Disposition names and the web app saves as. */
export const DATASET_DOWNLOAD_EXTENSIONS: Record<DatasetDownloadFormat, string> = {
  csv: 'csv',
  geojson: 'geojson',
  parquet: 'parquet',
  arrow: 'arrow',
  flatgeobuf: 'fgb',
  gpkg: 'gpkg',
  kml: 'kml',
  shapefile: 'zip',
};

/** Column types a user may set on upload, over the reader's guess (CSV and TSV). */
export const UPLOAD_COLUMN_TYPES = ['STRING', 'INTEGER', 'BIGINT', 'DOUBLE', 'BOOLEAN', 'DATE', 'TIMESTAMP'] as const;

/**
 * What the user sets instead of what is detected when a CSV or TSV is read (query parameters of the
 * uploads): `delimiter` (one of , ; | or a tab), `header` (is the first line names), `encoding` (utf-8,
 * utf-16, latin-1; detected otherwise), `columnTypes` (JSON: {"zip": "STRING"}).
 */
export const UploadReadOptions = z.object({
  delimiter: z.enum(UPLOAD_DELIMITERS, { error: 'delimiter must be one of , ; | or a tab' }).optional(),
  header: QueryBool.optional(),
  encoding: z.enum(['utf-8', 'utf-16', 'latin-1'], { error: 'encoding must be utf-8, utf-16 or latin-1' }).optional(),
  columnTypes: z
    .string()
    .max(100_000)
    .transform((text, c) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        c.addIssue({ code: 'custom', message: 'columnTypes must be a JSON object such as {"zip": "STRING"}' });
        return z.NEVER;
      }
    })
    .pipe(z.record(z.string().min(1), z.enum(UPLOAD_COLUMN_TYPES, { error: `column types are ${UPLOAD_COLUMN_TYPES.join(', ')}` })))
    .optional(),
  /** GeoPackage: the layer (feature table) to read; a file of several layers needs it. */
  layer: z.string().min(1).max(1000).optional(),
});
export type UploadReadOptions = z.infer<typeof UploadReadOptions>;
/** The query of a one-step upload: the new dataset's name and description beside the reading options. */
export const NewUploadQuery = UploadReadOptions.extend({ name: z.string().trim().min(1).max(500).default('Uploaded dataset'), description: z.string().max(10_000).default('') });
/** POST /v1/datasets/data: a one-step upload's query with the ingestion switches (skipArrow, skipBadRows as for PUT /{id}/data). */
export const DatasetUploadQuery = NewUploadQuery.extend({ skipArrow: QueryBool.optional(), skipBadRows: QueryBool.optional() });

/**
 * What normalising a dataset's geometry did (ingest, or the job that rewrites datasets made before): geometries
 * changed, by repair (`cut`: at the antimeridian; `pole`: closed along a pole; `wrapped`: 0..360° longitudes;
 * `closed`, `duplicates`, `orientation`), and geometries still invalid, by kind (`self-intersection`), kept as written.
 */
export const GeometryRepairs = z.object({
  repaired: z.number().int().nonnegative(),
  repairs: z.partialRecord(z.enum(['wrapped', 'closed', 'duplicates', 'orientation', 'cut', 'pole']), z.number().int().nonnegative()),
  invalid: z.record(z.string(), z.number().int().nonnegative()),
});
export type GeometryRepairs = z.infer<typeof GeometryRepairs>;

export const DatasetMetadata = z.object({
  /** Where the data is read: `GET /v1/datasets/{id}/data`. */
  storageReadPath: z.string().nullable(),
  source: z.string().nullable(),
  pipelineType: z.string().nullable(),
  contentType: z.string().nullable(),
  rowCount: z.number().nullable(),
  byteSize: z.number().nullable(),
  columns: z.array(DatasetColumn),
  detected: z.object({
    latitude: z.string().optional(),
    longitude: z.string().optional(),
    geometry: z.string().optional(),
    h3: z.string().optional(),
    timestamp: z.string().optional(),
  }),
  errorMessage: z.string().nullable(),
  errorDetails: z.string().nullable(),
  query: z.string().nullable(),
  ingestedAt: IsoDate.nullable(),
  /** Uploaded with "skip bad rows" (CSV, TSV): how many malformed lines were left out; null otherwise. */
  rejectedRows: z.number().int().nonnegative().nullable().optional(),
  /** Datasets with a geometry column: what normalising it repaired and found invalid; null or absent when nothing. */
  geometryRepairs: GeometryRepairs.nullable().optional(),
  /** Vector-tile datasets: their tile pyramid (see vector-tiles.ts). */
  vectorTile: VectorTileInfo.nullable().optional(),
  /** Vector-tile datasets cut from a dataset: the options they were cut with, to cut them again. */
  vectorTileBuild: VectorTileBuild.nullable().optional(),
  /** Hex-tile datasets: how they were built from their source (the body of POST /v1/datasets/hextile), to build them again. */
  hexTile: HexTileBuild.nullable().optional(),
  /** Live datasets (type sql): when their query runs again, and how the last run went. */
  refresh: DatasetRefresh.nullable().optional(),
});
export type DatasetMetadata = z.infer<typeof DatasetMetadata>;

/** A dataset's metadata before anything is recorded in it: what each field is until then. */
export const EMPTY_METADATA: DatasetMetadata = {
  storageReadPath: null,
  source: null,
  pipelineType: null,
  contentType: null,
  rowCount: null,
  byteSize: null,
  columns: [],
  detected: {},
  errorMessage: null,
  errorDetails: null,
  query: null,
  ingestedAt: null,
};

/**
 * What a dataset keeps in its record's `attrs`, as the catalog stores it: parsed on every read, never cast. Fields a
 * row written by an earlier version lacks take their defaults (an empty metadata's); keys this schema does not name
 * are kept (loose), so a read-modify-write never drops them.
 */
export const StoredDataset = z.looseObject({
  datasetType: DatasetType.default('managed'),
  status: DatasetStatus.default('new'),
  storageKey: z.string().nullable().default(null),
  dataConnectionId: Id.nullable().default(null),
  /**
   * Live datasets: the user who last set the query (changed it through the workbench, or cloned the dataset).
   * A refresh runs only while they, and the owner, may run queries on the connection; absent (the dataset as
   * its owner made it, or a row from before this was recorded), the owner's rights alone stand.
   */
  querySetBy: Id.nullable().optional(),
  metadata: z
    .looseObject(DatasetMetadata.partial().shape)
    .optional()
    .transform((m) => ({ ...EMPTY_METADATA, ...m })),
  /** The background job building the data (hex tiles): while it runs, the job, not an ingestion heartbeat, keeps the dataset pending. */
  jobId: z.string().nullable().optional(),
});
export type StoredDataset = z.infer<typeof StoredDataset>;

export const Dataset = StudioRecord.omit({ type: true }).extend({
  type: DatasetType,
  status: DatasetStatus,
  metadata: DatasetMetadata,
  dataConnectionId: Id.nullable(),
});
export type Dataset = z.infer<typeof Dataset>;

export const DatasetCreate = z.object({
  name: z.string().trim().min(1, 'Name must not be empty').max(500).default('Untitled dataset'),
  description: z.string().max(10_000).default(''),
  type: DatasetType.default('managed'),
  dataConnectionId: Id.optional(),
  /** Ask for a signed post policy to upload the data with (managed datasets). */
  contentType: z.enum(UPLOAD_CONTENT_TYPES).optional(),
  metadata: z.object({ source: z.string().max(2000).optional(), url: z.url().optional() }).optional(),
});

export const DatasetUpdate = z.object({
  name: z.string().trim().min(1, 'Name must not be empty').max(500).optional(),
  description: z.string().max(10_000).optional(),
  ownerId: Id.optional(),
});

export const DatasetFromQuery = z.object({
  name: z.string().trim().min(1).max(500).default('Query result'),
  description: z.string().max(10_000).default(''),
  query: z.string().trim().min(1, 'Query must not be empty').max(100_000),
  connectionId: Id.optional(),
  /**
   * With connectionId: a live dataset (type `sql`) that remembers its connection and query; pipelines over
   * it run on the warehouse (push-down), and its snapshot serves maps and downloads. Default false: a
   * Parquet snapshot only.
   */
  live: z.boolean().default(false),
});

export const WorkbenchBody = z.object({
  connectionId: Id.optional(),
  schemaName: z.string().max(200).optional(),
  tableName: z.string().max(200).optional(),
  workbenchDataSource: z.string().max(100_000).optional(),
  includeHeader: z.boolean().optional(),
});
