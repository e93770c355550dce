import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { deserialize } from 'flatgeobuf/lib/mjs/geojson.js';
import type { Feature } from 'geojson';
import { badInput } from '@studio/schema';
import { writeFeatureCollection } from './geojson-file';
import { assertFlatGeobufFrame } from './flatgeobuf-check';

/** FlatGeobuf, streamed a feature at a time by the flatgeobuf reader, as GeoJSON. */
export async function flatgeobufToGeoJson(input: string, out: string): Promise<number> {
  await assertFlatGeobufFrame(input);
  const stream = Readable.toWeb(createReadStream(input)) as unknown as ReadableStream;
  try {
    return await writeFeatureCollection(out, deserialize(stream) as AsyncIterable<Feature>);
  } catch (e) {
    // The library's own failures on damaged bytes are JavaScript's (a TypeError, a RangeError of a typed array):
    // they say nothing to a user and name the reader's internals.
    if (e instanceof TypeError || e instanceof RangeError) throw badInput('Could not read FlatGeobuf: the file is damaged (a feature cannot be read)');
    throw badInput(`Could not read FlatGeobuf: ${String((e as Error).message ?? e).split('\n')[0]}`);
  }
}
