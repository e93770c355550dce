import { readFile } from 'node:fs/promises';
import shp from 'shpjs';
import type { Feature } from 'geojson';
import { badInput, isStudioError } from '@studio/schema';
import { writeFeatureCollection } from './geojson-file';
import { WHOLE_FILE_MAX_BYTES, assertWholeFileSize } from './whole-file';
import { readZipEntries } from './zip-bounds';

/** The parts of a layer read from the zip, by extension (lower case); macOS's resource forks are left out. */
const PART = /^(?!.*__MACOSX)(.+)\.(shp|dbf|prj|cpg)$/i;

/**
 * A zipped Shapefile (.shp with its .dbf, and .prj when the coordinates are projected) as GeoJSON in WGS84:
 * the zip is read here within bounds (zip-bounds.ts), then shpjs parses each layer's parts and reprojects through
 * proj4 from the .prj. A zip of several Shapefiles becomes one dataset with a `layer` column naming each
 * feature's file.
 */
export async function shapefileToGeoJson(input: string, out: string): Promise<number> {
  await assertWholeFileSize(input, 'Zipped Shapefile');
  const files = await readZipEntries(await readFile(input), (name) => PART.test(name), 'the zip', WHOLE_FILE_MAX_BYTES);
  // Layers by the path before the extension, as shpjs names them ("roads", "data/roads").
  const layers = new Map<string, Partial<Record<'shp' | 'dbf' | 'prj' | 'cpg', Uint8Array>>>();
  for (const [name, bytes] of files) {
    const [, base, extension] = PART.exec(name)!;
    const parts = layers.get(base!) ?? {};
    parts[extension!.toLowerCase() as 'shp'] = bytes;
    layers.set(base!, parts);
  }
  const named = [...layers].filter(([, parts]) => parts.shp);
  if (!named.length) throw badInput('The zip holds no Shapefile (.shp)');
  const text = (b?: Uint8Array) => (b ? new TextDecoder().decode(b) : undefined);
  const many = named.length > 1;
  const features: Feature[] = [];
  for (const [fileName, parts] of named) {
    let layer: Awaited<ReturnType<typeof shp>>;
    try {
      layer = await shp({ shp: parts.shp!, dbf: parts.dbf, prj: text(parts.prj), cpg: text(parts.cpg) });
    } catch (e) {
      if (isStudioError(e)) throw e;
      throw badInput(`Could not read the Shapefile: ${(e as Error).message}`);
    }
    for (const f of layer.features) {
      // A dBase date field holds a day: shpjs makes it a Date at midnight UTC; kept as the day it is.
      const properties = Object.fromEntries(Object.entries(f.properties ?? {}).map(([k, v]) => [k, v instanceof Date && !Number.isNaN(v.getTime()) ? v.toISOString().slice(0, 10) : v]));
      features.push({ ...f, properties: many ? { layer: fileName, ...properties } : properties });
    }
  }
  return writeFeatureCollection(out, features);
}
