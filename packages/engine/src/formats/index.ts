/**
 * Formats DuckDB cannot read here (its spatial, Excel and Arrow extensions cannot be downloaded): each is
 * turned by a reader made for it into files DuckDB reads — GeoJSON for the geographic ones, CSV for
 * sheets, Parquet for Arrow IPC — and those are ingested as usual.
 */
export type ConvertedFormat = 'shapefile' | 'kml' | 'kmz' | 'gpx' | 'flatgeobuf' | 'xlsx' | 'arrow';

export const CONVERTED_CONTENT_TYPES: Record<string, ConvertedFormat> = {
  'application/zip': 'shapefile',
  'application/x-zip-compressed': 'shapefile',
  'application/x-shapefile': 'shapefile',
  'application/vnd.google-earth.kml+xml': 'kml',
  'application/vnd.google-earth.kmz': 'kmz',
  'application/gpx+xml': 'gpx',
  'application/flatgeobuf': 'flatgeobuf',
  'application/vnd.flatgeobuf': 'flatgeobuf',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.apache.arrow.file': 'arrow',
  'application/vnd.apache.arrow.stream': 'arrow',
  'application/x-apache-arrow': 'arrow',
  'application/x-feather': 'arrow',
};

/**
 * What converted files are read as: a GeoJSON FeatureCollection, a CSV with a header and ragged rows, or
 * Parquet parts read as one table.
 */
export type ConvertedInto = 'geojson' | 'sheet' | 'parquet';

/** One output file named `outBase` + its extension, written by `write`. */
const single =
  (extension: string, write: (input: string, out: string) => Promise<number>) =>
  async (input: string, outBase: string): Promise<string[]> => {
    const file = `${outBase}.${extension}`;
    await write(input, file);
    return [file];
  };

// Each reader (with its library: exceljs, shpjs and proj4, xmldom, flatgeobuf, parquet-wasm) is loaded on the
// first file of its format, not when the server starts (docs/decisions.md "Dataset data path performance", row "Libraries on first use").
const CONVERTERS: Record<ConvertedFormat, { into: ConvertedInto; convert: (input: string, outBase: string) => Promise<string[]> }> = {
  shapefile: { into: 'geojson', convert: single('geojson', async (i, o) => (await import('./shapefile')).shapefileToGeoJson(i, o)) },
  kml: { into: 'geojson', convert: single('geojson', async (i, o) => (await import('./xml-geo')).kmlToGeoJson(i, o)) },
  kmz: { into: 'geojson', convert: single('geojson', async (i, o) => (await import('./xml-geo')).kmzToGeoJson(i, o)) },
  gpx: { into: 'geojson', convert: single('geojson', async (i, o) => (await import('./xml-geo')).gpxToGeoJson(i, o)) },
  flatgeobuf: { into: 'geojson', convert: single('geojson', async (i, o) => (await import('./flatgeobuf')).flatgeobufToGeoJson(i, o)) },
  xlsx: { into: 'sheet', convert: single('csv', async (i, o) => (await import('./xlsx')).xlsxToCsv(i, o)) },
  arrow: { into: 'parquet', convert: async (i, o) => (await import('./arrow-ipc')).arrowIpcToParquetParts(i, o) },
};

/** Converts `input` into files named from `outBase`; answers them and how to read them. */
export async function convertUpload(format: ConvertedFormat, input: string, outBase: string): Promise<{ files: string[]; into: ConvertedInto }> {
  const { into, convert } = CONVERTERS[format];
  return { files: await convert(input, outBase), into };
}
