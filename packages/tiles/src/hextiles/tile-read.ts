import { gzipSync } from 'node:zlib';
import { tableFromIPC, tableToIPC } from 'apache-arrow';
import { notFound } from '@studio/schema';
import { quoteIdent, type Engine } from '@studio/engine';
import type { TileCache } from '../tile-cache';
import type { TileArchive } from './archive';
import { pathLiteral } from './sql';
import { arrowEntryName } from './layout';

/** One tile entry as a client asks for it. */
export interface TileAsk {
  /** The entry's name in the archive (layout.entryName). */
  name: string;
  /** A time step's path (e.g. D2024-01-05) when the tileset has time. */
  step?: string;
  /** The fields of an Arrow answer, in order (ignored for the stored Parquet entry). */
  fields: string[];
  /** The stored Parquet entry as it is, instead of Arrow IPC. */
  parquet: boolean;
}

/** What varies an answer of one entry: the format, the fields and the encoding (the part of a tile's ETag and cache key after its version). */
export const variantOf = (ask: TileAsk, gzip = false) => `${ask.parquet ? `parquet:${ask.name}` : `arrow:${ask.name}:${ask.fields.join(',')}`}${gzip ? ':gzip' : ''}`;

/**
 * Answers worth sending gzip: Arrow IPC (its padding and repeated values halve or better). Parquet entries
 * are compressed inside already, and below half a kilobyte the saving is lost in the headers.
 */
export const pays = (ask: TileAsk, bytes: number) => !ask.parquet && bytes >= 512;

/** An answer of every field in the tileset's order: the stored Arrow entry as it is, no re-framing. */
const isWhole = (archive: TileArchive, ask: TileAsk) =>
  ask.fields.length === archive.meta.fields.length && ask.fields.every((f, i) => f === archive.meta.fields[i]!.name);

/**
 * A hex tile as gzip for clients that accept it, kept in the tile cache beside the plain bytes: the hot path
 * sends stored bytes either way. A whole tile goes as its archive entry's own deflate stream (nothing
 * compressed); a selection of fields, or an archive without Arrow entries, is compressed once per node.
 */
export function readHexTileGzip(s: { tileCache: TileCache }, archive: TileArchive, ask: TileAsk, plain: Buffer): Promise<Buffer> {
  return s.tileCache.getOrLoad(`${archive.key}|${variantOf(ask, true)}`, async () =>
    (isWhole(archive, ask) ? await archive.readGzip(arrowEntryName(ask.name)) : null) ?? gzipSync(plain));
}

/**
 * A hex tile's bytes: from the node's tile cache when hot, else read from the archive and kept there. Arrow
 * answers are the tile's Arrow entry, encoded when the tileset was built: as it is for every field, re-framed
 * to the chosen columns otherwise (the record batches' buffers are kept; no DuckDB, no decoding of values).
 * Archives without Arrow entries (built before they were written, or made elsewhere and named by zipUrl) run
 * DuckDB over the Parquet entry instead. The Parquet entry itself answers octet-stream. The cache key carries
 * the archive's storage key, so a rebuilt tileset never answers from old entries. Clients asking for a cold
 * tile together share one read; one of them leaving does not stop it (the others wait for it, and a tile's
 * read is short). DuckDB's errors come as they are: the route says what they mean to the client.
 */
export function readHexTile(s: { engine: Engine; tileCache: TileCache }, archive: TileArchive, ask: TileAsk): Promise<Buffer> {
  return s.tileCache.getOrLoad(`${archive.key}|${variantOf(ask)}`, async () => {
    if (ask.parquet) {
      const entry = await archive.read(ask.name);
      if (!entry) throw notFound(`No tile ${ask.name} in this tileset`);
      return entry;
    }
    const columns = ['hex', ...(ask.step ? ['time'] : []), ...ask.fields];
    const stored = await archive.read(arrowEntryName(ask.name));
    if (stored) return isWhole(archive, ask) ? stored : Buffer.from(tableToIPC(tableFromIPC(stored).select(columns), 'stream'));
    const file = await archive.file(ask.name);
    return collect(s.engine.arrowStream({ sql: `SELECT ${columns.map(quoteIdent).join(', ')} FROM read_parquet(${pathLiteral(file)})` }));
  });
}

async function collect(stream: AsyncGenerator<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}
