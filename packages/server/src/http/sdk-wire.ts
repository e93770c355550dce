import { SDK_MEDIA_TYPES, type Dataset, type DatasetDownloadFormat, type SdkDataset, type SdkMap, type StudioRecord } from '@studio/schema';

/**
 * The studio's records in the Data SDK's shapes (its `models.py`). The SDK knows six dataset types; of the
 * studio's eight, a WMS layer is served as raster tiles (the nearest the SDK knows) and 3D tiles have no
 * counterpart: they are left out of SDK lists and answered as 404 by id (docs/decisions.md "Data SDK").
 */
const SDK_TYPES: Record<Dataset['type'], SdkDataset['type'] | null> = {
  managed: 'managed',
  'externally-hosted': 'externally-hosted',
  'vector-tile': 'vector-tile',
  'raster-tile': 'raster-tile',
  'hex-tile': 'hex-tile',
  sql: 'sql',
  wms: 'raster-tile',
  tile3d: null,
};

/** Whether the SDK can be shown this dataset at all. */
export const sdkVisible = (d: Dataset) => SDK_TYPES[d.type] !== null;

/** Where a tiled dataset's tiles and tile metadata are read (paths on this studio). */
function tileUrls(d: Dataset): { data: string | null; metadata: string | null } {
  if (d.type === 'vector-tile') return { data: `/v1/datasets/${d.id}/tiles/{z}/{x}/{y}`, metadata: `/v1/datasets/${d.id}/tiles.json` };
  return { data: null, metadata: null };
}

export function sdkDataset(d: Dataset): SdkDataset {
  const type = SDK_TYPES[d.type];
  if (!type) throw new Error(`A ${d.type} dataset has no Data SDK type`);
  const tiles = tileUrls(d);
  return {
    id: d.id,
    name: d.name,
    type,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    description: d.description,
    isValid: d.status === 'ready',
    metadata: {
      contentType: d.metadata.contentType,
      size: d.metadata.byteSize === null ? null : Math.round(d.metadata.byteSize),
      source: d.metadata.source,
      tilesetDataUrl: tiles.data,
      tilesetMetadataUrl: tiles.metadata,
      imageUrl: null,
      metadataUrl: null,
      dataStatus: d.status,
    },
  };
}

/**
 * A map as the SDK reads it. Lists carry neither state nor datasets (list_maps documents it); a single map
 * carries both. The state's id is the map's own: the studio keeps one latest state per map.
 */
export function sdkMap(m: StudioRecord, full?: { datasets: SdkDataset[] }): SdkMap {
  const base = { id: m.id, name: m.name, description: m.description, createdAt: m.createdAt, updatedAt: m.updatedAt };
  if (!full) return base;
  const data = m.latestState !== null && typeof m.latestState === 'object' && !Array.isArray(m.latestState) ? (m.latestState as Record<string, unknown>) : null;
  return { ...base, latestState: data ? { id: m.id, data } : null, datasets: full.datasets };
}

/**
 * The format a download answers in, by the media type the data was uploaded with: GeoJSON comes back as
 * GeoJSON (`application/geo+json`), everything else as CSV (`text/csv`) — the two the SDK's
 * `download_dataframe` reads, with their media types exactly as it compares them (no charset).
 */
export function sdkDownload(contentType: string | null): { format: DatasetDownloadFormat; mediaType: string } {
  return contentType === SDK_MEDIA_TYPES.geojson ? { format: 'geojson', mediaType: SDK_MEDIA_TYPES.geojson } : { format: 'csv', mediaType: SDK_MEDIA_TYPES.csv };
}
