import { checkStatus, type UploadFileOptions } from '@studio/client';
import { headerDelimiter, headerFields, type Dataset } from '@studio/schema';
import { reportQuota } from '../app/quota-events';
import { client } from '../app/api';

/** Media types of the files the server ingests, by extension (catalog §5). */
export const MEDIA_TYPES: Record<string, string> = {
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  jsonl: 'application/x-ndjson',
  geojson: 'application/geo+json',
  // Newline-delimited GeoJSON (one Feature a line): read as JSON, its geometry found by the server.
  geojsonl: 'application/x-ndjson',
  geojsons: 'application/geo+json-seq',
  parquet: 'application/vnd.apache.parquet',
  // Read by a reader made for each (engine/src/formats): a Shapefile comes zipped with its .dbf and .prj.
  zip: 'application/zip',
  kml: 'application/vnd.google-earth.kml+xml',
  kmz: 'application/vnd.google-earth.kmz',
  gpx: 'application/gpx+xml',
  fgb: 'application/flatgeobuf',
  gpkg: 'application/geopackage+sqlite3',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  arrow: 'application/vnd.apache.arrow.file',
  feather: 'application/vnd.apache.arrow.file',
  ipc: 'application/vnd.apache.arrow.file',
  arrows: 'application/vnd.apache.arrow.stream',
};

/** What the file picker offers. */
export const ACCEPT = [...Object.keys(MEDIA_TYPES), 'gz'].map((e) => `.${e}`).join(',');

export interface UploadFormat {
  contentType: string;
  contentEncoding?: 'gzip';
}

/**
 * The media type of a file from its name: `.csv` -> text/csv; `.csv.gz` -> text/csv sent with
 * Content-Encoding gzip. Null for anything the server would refuse.
 */
export function formatOf(fileName: string): UploadFormat | null {
  const parts = fileName.toLowerCase().split('.');
  if (parts.length < 2) return null;
  const gzip = parts[parts.length - 1] === 'gz';
  const ext = gzip ? parts[parts.length - 2] : parts[parts.length - 1];
  if (gzip && parts.length < 3) return null;
  const contentType = ext ? MEDIA_TYPES[ext] : undefined;
  if (!contentType) return null;
  return gzip ? { contentType, contentEncoding: 'gzip' } : { contentType };
}

/** The dataset name a file suggests: its name without the format extensions. */
export function defaultName(fileName: string): string {
  const base = fileName.replace(/\.gz$/i, '');
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  return (ext in MEDIA_TYPES ? base.slice(0, dot) : base) || fileName;
}

/**
 * Files from this size on are ingested by a background job (`Prefer: respond-async`): the dialog is done once
 * the file is sent, and the dataset's page follows the ingestion (its job's progress, then ready or the
 * reason it failed). Smaller files are ingested while the dialog waits, and refused there when malformed.
 */
export const BACKGROUND_UPLOAD_BYTES = 64 * 1024 * 1024;

export type UploadPhase = { kind: 'sending'; loaded: number; total: number } | { kind: 'ingesting' };

/**
 * Sends a file as a new dataset, or as the new data of `datasetId`, with XMLHttpRequest: fetch
 * reports no upload progress. `onPhase` sees the bytes sent, then "ingesting" once the whole file is
 * on the server and it is reading it. Answers the ingested dataset or raises the server's error.
 */
export async function uploadDataset(
  file: Blob,
  meta: UploadFormat & Omit<UploadFileOptions, 'contentType' | 'contentEncoding' | 'eachLayer'>,
  onPhase: (p: UploadPhase) => void,
  datasetId?: string,
  signal?: AbortSignal,
): Promise<Dataset> {
  return ((await send(file, meta, onPhase, datasetId, signal)) as { item: Dataset }).item;
}

/** Sends a GeoPackage as one new dataset a layer (POST /v1/datasets/data/layers): answers them in the file's order. */
export async function uploadEachLayer(
  file: Blob,
  meta: UploadFormat & Pick<UploadFileOptions, 'name' | 'description'>,
  onPhase: (p: UploadPhase) => void,
  signal?: AbortSignal,
): Promise<{ layer: string; item: Dataset }[]> {
  return ((await send(file, { ...meta, eachLayer: true }, onPhase, undefined, signal)) as { items: { layer: string; item: Dataset }[] }).items;
}

/**
 * The layers a refused upload names: the server's 422 for a GeoPackage of several layers uploaded without
 * `?layer=` carries them in its details (`{"layers": [...]}`); null for any other error.
 */
export function layersOfRefusal(details: string | undefined): string[] | null {
  if (!details) return null;
  try {
    const parsed = JSON.parse(details) as { layers?: unknown };
    return Array.isArray(parsed.layers) && parsed.layers.length > 1 && parsed.layers.every((l) => typeof l === 'string') ? (parsed.layers as string[]) : null;
  } catch {
    return null;
  }
}

async function send(file: Blob, meta: UploadFormat & Omit<UploadFileOptions, 'contentType' | 'contentEncoding'>, onPhase: (p: UploadPhase) => void, datasetId?: string, signal?: AbortSignal): Promise<unknown> {
  // A cheap authenticated call first: an expired access token is refreshed by the app's fetch
  // before the (possibly long) upload starts, instead of failing after it.
  await client.me();
  const req = client.datasets.uploadRequest(meta, datasetId);
  const response = await new Promise<Response>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(req.method, req.url);
    for (const [k, v] of Object.entries(req.headers)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => onPhase({ kind: 'sending', loaded: e.loaded, total: e.lengthComputable ? e.total : file.size });
    xhr.upload.onload = () => onPhase({ kind: 'ingesting' });
    xhr.onload = () => resolve(new Response(xhr.responseText, { status: xhr.status, headers: { 'content-type': xhr.getResponseHeader('content-type') ?? 'application/json' } }));
    xhr.onerror = () => reject(new Error('The upload was cut off: the connection to the studio failed'));
    xhr.onabort = () => reject(new DOMException('The upload was cancelled', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    onPhase({ kind: 'sending', loaded: 0, total: file.size });
    xhr.send(file);
  });
  reportQuota(response);
  await checkStatus(response, req.url);
  return response.json();
}

/**
 * The column names on the first line of a delimited file (quotes honoured, `""` is a quote), split on
 * `delimiter` or, when none is given, on the one of , ; tab | that line uses most: the names the dialog
 * offers type choices for. The server reads the file itself; this only labels the choices.
 */
export function headerNames(firstBytes: string, delimiter?: string): string[] {
  const head = firstBytes.replace(/^\uFEFF/, '');
  return headerFields(head, delimiter ?? headerDelimiter(head) ?? ',');
}
