import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Feature } from 'geojson';

/**
 * Writes features as one GeoJSON FeatureCollection, a feature at a time (a converted file is read by
 * DuckDB as GeoJSON next): memory holds one feature, not the collection. Answers the count written.
 */
export async function writeFeatureCollection(file: string, features: Iterable<Feature | Feature<null>> | AsyncIterable<Feature | Feature<null>>): Promise<number> {
  const out = createWriteStream(file);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  let count = 0;
  try {
    await write('{"type":"FeatureCollection","features":[');
    for await (const f of features) {
      await write(`${count ? ',' : ''}\n${JSON.stringify({ type: 'Feature', properties: f.properties ?? {}, geometry: f.geometry ?? null })}`);
      count++;
    }
    await write('\n]}\n');
  } finally {
    out.end();
    await once(out, 'close');
  }
  return count;
}
