import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { deserialize } from 'flatgeobuf/lib/mjs/geojson.js';
import type { Feature } from 'geojson';
import { badInput } from '@studio/schema';
import { writeFeatureCollection } from './geojson-file';

/** FlatGeobuf, streamed a feature at a time by the flatgeobuf reader, as GeoJSON. */
export async function flatgeobufToGeoJson(input: string, out: string): Promise<number> {
  const stream = Readable.toWeb(createReadStream(input)) as unknown as ReadableStream;
  try {
    return await writeFeatureCollection(out, deserialize(stream) as AsyncIterable<Feature>);
  } catch (e) {
    throw badInput(`Could not read FlatGeobuf: ${String((e as Error).message ?? e).split('\n')[0]}`);
  }
}
