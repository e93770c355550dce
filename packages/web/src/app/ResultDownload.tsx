import { useState } from 'react';
import { DATASET_DOWNLOAD_EXTENSIONS, type DatasetDownloadFormat } from '@studio/schema';
import { ErrorMessage, useAction } from './ui';
import { saveBlob } from './save-blob';

/** Every format the studio downloads (DATASET_DOWNLOAD_FORMATS), as the pickers name them. */
export const DOWNLOAD_LABELS: Record<DatasetDownloadFormat, string> = {
  csv: 'CSV',
  parquet: 'Parquet',
  geojson: 'GeoJSON',
  arrow: 'Arrow',
  flatgeobuf: 'FlatGeobuf',
  gpkg: 'GeoPackage',
  kml: 'KML',
  shapefile: 'Shapefile (zip)',
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
        {Object.entries(DOWNLOAD_LABELS).map(([f, label]) => <option key={f} value={f}>{label}</option>)}
      </select>
      <button type="button" className="button button-small" disabled={download.pending} onClick={() => void download.run(async () => saveBlob(await file(format), `${name}.${DATASET_DOWNLOAD_EXTENSIONS[format]}`))}>
        {download.pending ? 'Downloading…' : 'Download'}
      </button>
      <ErrorMessage message={download.error} />
    </>
  );
}
