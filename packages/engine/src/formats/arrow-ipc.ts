import { createReadStream } from 'node:fs';
import { open, rm, writeFile } from 'node:fs/promises';
import { zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import { CompressionType, RecordBatchReader, Table, compressionRegistry, tableToIPC, type RecordBatch, type Schema } from 'apache-arrow';
import lz4 from 'lz4js';
import * as parquet from 'parquet-wasm';
import { badInput, isStudioError } from '@studio/schema';
import { fileHead } from '../file-head';

/**
 * Arrow IPC buffers may be compressed (pyarrow writes Feather v2 with LZ4 by default): apache-arrow reads
 * them through codecs registered here, LZ4 frames by lz4js and ZSTD by Node's own zlib. Encoders are
 * registered too, so a test can write the files a user has.
 */
compressionRegistry.set(CompressionType.LZ4_FRAME, { encode: (b: Uint8Array) => lz4.compress(b), decode: (b: Uint8Array) => lz4.decompress(b) });
compressionRegistry.set(CompressionType.ZSTD, {
  encode: (b: Uint8Array) => new Uint8Array(zstdCompressSync(b)),
  decode: (b: Uint8Array) => new Uint8Array(zstdDecompressSync(b)),
});

/** Record batches gathered into one Parquet part: memory holds about this much Arrow data at once. */
export const ARROW_PART_BYTES = 64 * 1024 * 1024;

const magicOf = async (file: string): Promise<string> => (await fileHead(file, 6)).toString('latin1');

/**
 * Arrow IPC, as a file (Feather v2, `ARROW1` magic, read with random access) or a stream, a record batch
 * at a time. DuckDB cannot read Arrow IPC here (its arrow extension cannot be downloaded), Parquet it can:
 * batches are gathered to about {@link ARROW_PART_BYTES} and each group written by parquet-wasm as one
 * Parquet part, `<outBase>-part-0001.parquet` and on. Answers the parts, in order (one even with no rows,
 * so the schema arrives).
 */
export async function arrowIpcToParquetParts(input: string, outBase: string): Promise<string[]> {
  const magic = await magicOf(input);
  if (magic.startsWith('FEA1')) throw badInput('Could not read Arrow IPC: this is a Feather version 1 file; save it as Feather version 2 (Arrow IPC)');
  const handle = magic === 'ARROW1' ? await open(input, 'r') : null;
  const parts: string[] = [];
  try {
    const reader = handle ? await RecordBatchReader.from(handle) : await RecordBatchReader.from(createReadStream(input));
    await reader.open();
    let group: RecordBatch[] = [];
    let groupBytes = 0;
    const flush = async (schema?: Schema) => {
      const table = group.length ? new Table(group) : new Table(schema!);
      const file = `${outBase}-part-${String(parts.length + 1).padStart(4, '0')}.parquet`;
      parts.push(file);
      await writeFile(file, parquet.writeParquet(parquet.Table.fromIPCStream(tableToIPC(table, 'stream'))));
      group = [];
      groupBytes = 0;
    };
    for await (const batch of reader) {
      if (batch.numRows === 0) continue;
      group.push(batch);
      groupBytes += batch.data.byteLength;
      if (groupBytes >= ARROW_PART_BYTES) await flush();
    }
    if (group.length) await flush();
    else if (parts.length === 0) {
      // No rows: one empty part carries the columns (a reader's schema is known once it is opened).
      if (!reader.schema) throw badInput('Could not read Arrow IPC: the file holds no schema');
      await flush(reader.schema);
    }
    return parts;
  } catch (e) {
    await Promise.all(parts.map((p) => rm(p, { force: true })));
    if (isStudioError(e)) throw e;
    // apache-arrow's failures on damaged bytes are JavaScript's own (reading a property of null, a size out of range).
    if (e instanceof TypeError || e instanceof RangeError) throw badInput('Could not read Arrow IPC: the file is damaged or truncated');
    throw badInput(`Could not read Arrow IPC: ${String((e as Error)?.message ?? e).split('\n')[0]}`);
  } finally {
    await handle?.close();
  }
}
