/**
 * Formats DuckDB cannot read here (its spatial, Excel and Arrow extensions cannot be downloaded): each is
 * turned by a reader made for it into files DuckDB reads — GeoJSON for the geographic ones, CSV for
 * sheets, Parquet for Arrow IPC and for the GIS formats that declare their columns' types (GeoPackage,
 * FlatGeobuf) — and those are ingested as usual.
 */
export type ConvertedFormat = 'shapefile' | 'kml' | 'kmz' | 'gpx' | 'flatgeobuf' | 'xlsx' | 'arrow' | 'geopackage';

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
  'application/geopackage+sqlite3': 'geopackage',
};

/**
 * What converted files are read as: a GeoJSON FeatureCollection, a CSV with a header and ragged rows, or
 * Parquet parts read as one table.
 */
export type ConvertedInto = 'geojson' | 'sheet' | 'parquet';

/** One output file named `outBase` + its extension, written by `write`. */
const single =
  (extension: string, write: (input: string, out: string, options?: ConvertOptions) => Promise<number>) =>
  async (input: string, outBase: string, options?: ConvertOptions): Promise<string[]> => {
    const file = `${outBase}.${extension}`;
    await write(input, file, options);
    return [file];
  };

// Each reader (with its library: exceljs, shpjs and proj4, xmldom, flatgeobuf, parquet-wasm) is loaded on the
// first file of its format, not when the server starts (docs/decisions.md "Dataset data path performance", row "Libraries on first use").
/**
 * What an upload says of how to read it beyond its type: the GeoPackage layer to read (several layers: required), or
 * the KML/KMZ folder (without it, every feature with a `folder` column).
 */
export interface ConvertOptions {
  layer?: string;
}

const CONVERTERS: Record<ConvertedFormat, { into: ConvertedInto; convert: (input: string, outBase: string, options?: ConvertOptions) => Promise<string[]> }> = {
  shapefile: { into: 'geojson', convert: single('geojson', async (i, o) => (await import('./shapefile')).shapefileToGeoJson(i, o)) },
  kml: { into: 'geojson', convert: single('geojson', async (i, o, options) => (await import('./xml-geo')).kmlToGeoJson(i, o, options?.layer)) },
  kmz: { into: 'geojson', convert: single('geojson', async (i, o, options) => (await import('./xml-geo')).kmzToGeoJson(i, o, options?.layer)) },
  gpx: { into: 'geojson', convert: single('geojson', async (i, o) => (await import('./xml-geo')).gpxToGeoJson(i, o)) },
  flatgeobuf: { into: 'parquet', convert: async (i, o) => (await import('./flatgeobuf')).flatgeobufToParquetParts(i, o) },
  xlsx: { into: 'sheet', convert: single('csv', async (i, o) => (await import('./xlsx')).xlsxToCsv(i, o)) },
  arrow: { into: 'parquet', convert: async (i, o) => (await import('./arrow-ipc')).arrowIpcToParquetParts(i, o) },
  geopackage: { into: 'parquet', convert: async (i, o, options) => (await import('./geopackage')).geopackageToParquetParts(i, o, { layer: options?.layer }) },
};

/** The feature layers of a GeoPackage file, read with node:sqlite (loaded on first use, as the readers are). */
export const geopackageLayers = async (file: string): Promise<string[]> => (await import('./geopackage')).geopackageLayers(file);

/** The folders holding features of a KML (or, `zipped`, KMZ) file: its layers for the multi-layer upload. */
export const kmlFolders = async (file: string, zipped: boolean): Promise<string[]> => (await import('./xml-geo')).kmlFileFolders(file, zipped);

/** Turns an upload DuckDB cannot read into files it can (convertUpload, or the same run in a worker process). */
export type Converter = (format: ConvertedFormat, input: string, outBase: string, options?: ConvertOptions) => Promise<{ files: string[]; into: ConvertedInto }>;

/** Converts `input` into files named from `outBase`; answers them and how to read them. */
export async function convertUpload(format: ConvertedFormat, input: string, outBase: string, options?: ConvertOptions): Promise<{ files: string[]; into: ConvertedInto }> {
  const { into, convert } = CONVERTERS[format];
  return { files: await convert(input, outBase, options), into };
}
