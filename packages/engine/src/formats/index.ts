import { flatgeobufToGeoJson } from './flatgeobuf';
import { shapefileToGeoJson } from './shapefile';
import { gpxToGeoJson, kmlToGeoJson, kmzToGeoJson } from './xml-geo';
import { xlsxToCsv } from './xlsx';

/**
 * Formats DuckDB cannot read here (its spatial and Excel extensions cannot be downloaded): each is turned
 * by a reader made for it into a file DuckDB reads — GeoJSON for the geographic ones, CSV for sheets —
 * and that file is ingested as usual.
 */
export type ConvertedFormat = 'shapefile' | 'kml' | 'kmz' | 'gpx' | 'flatgeobuf' | 'xlsx';

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
};

/** What a converted file is read as: a GeoJSON FeatureCollection, or a CSV with a header and ragged rows. */
export type ConvertedInto = 'geojson' | 'sheet';

const CONVERTERS: Record<ConvertedFormat, { into: ConvertedInto; convert: (input: string, out: string) => Promise<number> }> = {
  shapefile: { into: 'geojson', convert: shapefileToGeoJson },
  kml: { into: 'geojson', convert: kmlToGeoJson },
  kmz: { into: 'geojson', convert: kmzToGeoJson },
  gpx: { into: 'geojson', convert: gpxToGeoJson },
  flatgeobuf: { into: 'geojson', convert: flatgeobufToGeoJson },
  xlsx: { into: 'sheet', convert: xlsxToCsv },
};

/** Converts `input` into `outBase` + its extension; answers the file and how to read it. */
export async function convertUpload(format: ConvertedFormat, input: string, outBase: string): Promise<{ file: string; into: ConvertedInto }> {
  const { into, convert } = CONVERTERS[format];
  const file = `${outBase}.${into === 'geojson' ? 'geojson' : 'csv'}`;
  await convert(input, file);
  return { file, into };
}
