import { readFile } from 'node:fs/promises';
import { unzipSync } from 'fflate';
import shp from 'shpjs';
import type { Feature } from 'geojson';
import { badInput } from '@studio/schema';
import { writeFeatureCollection } from './geojson-file';
import { assertWholeFileSize } from './whole-file';

/**
 * A zipped Shapefile (.shp with its .dbf, and .prj when the coordinates are projected) as GeoJSON in WGS84:
 * shpjs reads it and reprojects through proj4 from the .prj. A zip of several Shapefiles becomes one
 * dataset with a `layer` column naming each feature's file.
 */
export async function shapefileToGeoJson(input: string, out: string): Promise<number> {
  await assertWholeFileSize(input, 'Zipped Shapefile');
  const bytes = await readFile(input);
  let names: string[];
  try {
    names = Object.keys(unzipSync(bytes, { filter: (f) => /\.shp$/i.test(f.name) }));
  } catch {
    throw badInput('Could not read the zip: the file is not a zip archive or it is damaged');
  }
  if (!names.length) throw badInput('The zip holds no Shapefile (.shp)');
  let parsed: Awaited<ReturnType<typeof shp>>;
  try {
    parsed = await shp(bytes);
  } catch (e) {
    throw badInput(`Could not read the Shapefile: ${(e as Error).message}`);
  }
  const layers = Array.isArray(parsed) ? parsed : [parsed];
  const many = layers.length > 1;
  const features = layers.flatMap((layer) =>
    layer.features.map((f): Feature => (many ? { ...f, properties: { layer: layer.fileName ?? '', ...f.properties } } : f)),
  );
  return writeFeatureCollection(out, features);
}
