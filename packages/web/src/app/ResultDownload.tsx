import { useState } from 'react';
import type { DatasetDownloadFormat } from '@studio/schema';
import { ErrorMessage, useAction } from './ui';
import { saveBlob } from './save-blob';

/** Every format the studio downloads (DATASET_DOWNLOAD_FORMATS), as the pickers name them, with the file's extension. */
export const DOWNLOADS: Record<DatasetDownloadFormat, { label: string; extension: string }> = {
  csv: { label: 'CSV', extension: 'csv' },
  parquet: { label: 'Parquet', extension: 'parquet' },
  geojson: { label: 'GeoJSON', extension: 'geojson' },
  arrow: { label: 'Arrow', extension: 'arrow' },
  flatgeobuf: { label: 'FlatGeobuf', extension: 'fgb' },
  gpkg: { label: 'GeoPackage', extension: 'gpkg' },
  kml: { label: 'KML', extension: 'kml' },
  shapefile: { label: 'Shapefile (zip)', extension: 'zip' },
};

/**
 * A result's "Download": a format picker and the button, the file fetched by `file` and saved as `<name>.<ext>`.
 * Shared by the workbook's cells and the SQL workspace, so both offer the same formats.
 */
export function ResultDownload({ name, file }: { name: string; file: (format: DatasetDownloadFormat) => Promise<Blob> }) {
  const download = useAction();
  const [format, setFormat] = useState<DatasetDownloadFormat>('csv');
  return (
    <>
      <select aria-label={`Download format of ${name}`} value={format} onChange={(e) => setFormat(e.target.value as DatasetDownloadFormat)}>
        {Object.entries(DOWNLOADS).map(([f, { label }]) => <option key={f} value={f}>{label}</option>)}
      </select>
      <button type="button" className="button button-small" disabled={download.pending} onClick={() => void download.run(async () => saveBlob(await file(format), `${name}.${DOWNLOADS[format].extension}`))}>
        {download.pending ? 'Downloading…' : 'Download'}
      </button>
      <ErrorMessage message={download.error} />
    </>
  );
}
