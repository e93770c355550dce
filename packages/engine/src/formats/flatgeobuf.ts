import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { deserialize } from 'flatgeobuf/lib/mjs/geojson.js';
import { ColumnType } from 'flatgeobuf/lib/mjs/flat-geobuf/column-type.js';
import type { HeaderMeta } from 'flatgeobuf/lib/mjs/header-meta.js';
import type { Geometry } from 'geojson';
import { badInput, isStudioError } from '@studio/schema';
import { assertFlatGeobufFrame } from './flatgeobuf-check';
import { writeFeatureParts, type FeatureRow, type PartColumn } from './feature-parts';

const fail = (reason: string) => badInput(`Could not read FlatGeobuf: ${reason}`);

/** FlatGeobuf's column types (its header declares them) as the Parquet parts type them. */
function partType(t: ColumnType): PartColumn['type'] {
  switch (t) {
    case ColumnType.Bool:
      return 'BOOLEAN';
    case ColumnType.Byte:
    case ColumnType.UByte:
    case ColumnType.Short:
    case ColumnType.UShort:
    case ColumnType.Int:
    case ColumnType.UInt:
    case ColumnType.Long:
    case ColumnType.ULong:
      return 'BIGINT';
    case ColumnType.Float:
    case ColumnType.Double:
      return 'DOUBLE';
    case ColumnType.DateTime:
      return 'TIMESTAMP';
    case ColumnType.Binary:
      return 'BLOB';
    default:
      return 'VARCHAR';
  }
}

/**
 * FlatGeobuf, streamed a feature at a time by the flatgeobuf reader, into Parquet parts with the columns its header
 * declares (feature-parts.ts): 1M points in bounded memory, where the GeoJSON collection it used to become ran
 * DuckDB's read_json out of memory. Answers the parts in order.
 */
export async function flatgeobufToParquetParts(input: string, outBase: string): Promise<string[]> {
  await assertFlatGeobufFrame(input);
  const stream = Readable.toWeb(createReadStream(input)) as unknown as ReadableStream;
  let header: HeaderMeta | undefined;
  try {
    const reader = deserialize(stream, { headerMetaFn: (h) => (header = h) })[Symbol.asyncIterator]();
    // The header is read with the first feature: the columns are known once it has been asked for.
    const first = await reader.next();
    const columns: PartColumn[] = (header?.columns ?? []).map((c) => ({ name: c.name, type: partType(c.type) }));
    async function* features(): AsyncGenerator<FeatureRow> {
      for (let r = first; !r.done; r = await reader.next()) {
        yield { values: (r.value.properties ?? {}) as Record<string, unknown>, geometry: (r.value.geometry ?? null) as Geometry | null };
      }
    }
    return await writeFeatureParts(outBase, columns, features(), { fail, where: (n) => `feature ${n}` });
  } catch (e) {
    if (isStudioError(e)) throw e;
    // The library's own failures on damaged bytes are JavaScript's (a TypeError, a RangeError of a typed array):
    // they say nothing to a user and name the reader's internals.
    if (e instanceof TypeError || e instanceof RangeError) throw fail('the file is damaged (a feature cannot be read)');
    throw fail(String((e as Error)?.message ?? e).split('\n')[0]!.replace(/\/\S+/g, 'the file'));
  }
}
