import { DuckDBTypeId, type DuckDBVector } from '@duckdb/node-api';

/**
 * DuckDB vectors read for the download writers without the node-api's per-row conversions: its toArray tests each
 * row's validity bit with BigInt arithmetic and decodes every string, which was most of a 1M-point Shapefile
 * download's reading time. The fields read are the node-api's own (DOUBLE's `items`, VARCHAR's `dataView`, the
 * validity's `data`), as spatial's join/exact.ts reads them; a vector of another shape falls back to the public API,
 * and test/export-vectors.test.ts checks both against toArray, so an upgrade that moves them fails there.
 */

/** The validity mask as 32-bit words (row r is bit r % 32 of word r / 32: the 64-bit words are little-endian); null when every row is valid, undefined when it cannot be read so. */
function nullWords(v: DuckDBVector): Uint32Array | null | undefined {
  const validity = (v as unknown as { validity?: { data?: unknown; offset?: unknown } }).validity;
  if (validity?.offset !== 0) return undefined;
  const mask = validity.data;
  if (mask === null) return null;
  return mask instanceof BigUint64Array ? new Uint32Array(mask.buffer, mask.byteOffset, mask.length * 2) : undefined;
}

const valid = (words: Uint32Array | null, r: number) => !words || (words[r >>> 5]! & (1 << (r & 31))) !== 0;

/** A vector's values as toArray answers them; a DOUBLE one from its typed array (that array itself when no row is null). */
export function vectorValues(v: DuckDBVector): ArrayLike<unknown> {
  const items = (v as unknown as { items?: unknown }).items;
  const words = nullWords(v);
  if (v.type.typeId !== DuckDBTypeId.DOUBLE || !(items instanceof Float64Array) || words === undefined) return v.toArray();
  if (!words) return items;
  const values: (number | null)[] = Array.from(items);
  for (let r = 0; r < items.length; r++) if (!valid(words, r)) values[r] = null;
  return values;
}

/**
 * A BIGINT vector's values as numbers where a double holds them exactly (|v| < 2^53), bigints past that, read from
 * its 64-bit words as two 32-bit halves: no BigInt made a value (a .dbf writes the digits of a number). Other
 * vectors: their values as toArray answers them.
 */
export function integerValues(v: DuckDBVector): ArrayLike<unknown> {
  const items = (v as unknown as { items?: unknown }).items;
  const words = nullWords(v);
  if (v.type.typeId !== DuckDBTypeId.BIGINT || !(items instanceof BigInt64Array) || words === undefined) return v.toArray();
  const halves = new Int32Array(items.buffer, items.byteOffset, items.length * 2); // little-endian: low word first
  const values: (number | bigint | null)[] = new Array(items.length);
  for (let r = 0; r < items.length; r++) {
    if (!valid(words, r)) {
      values[r] = null;
      continue;
    }
    // With the high word within [-2^21, 2^21) the sum is exact (its size is at most 2^53); of those, -2^53 itself is
    // past the safe integers (the same double as -2^53 - 1), so it stays a bigint.
    const high = halves[2 * r + 1]!;
    const n = high * 0x1_0000_0000 + (halves[2 * r]! >>> 0);
    values[r] = high >= -0x20_0000 && high < 0x20_0000 && n >= -Number.MAX_SAFE_INTEGER ? n : items[r]!;
  }
  return values;
}

/**
 * A VARCHAR vector's values copied as UTF-8 bytes, no string made: DuckDB keeps a string of up to 12 bytes in the
 * vector itself (16 bytes a row: its length, then its bytes); a longer one, behind a pointer, is read as text.
 */
export class TextBytes {
  private constructor(
    private readonly vector: DuckDBVector,
    private readonly view: DataView,
    private readonly bytes: Uint8Array,
    private readonly words: Uint32Array | null,
  ) {}

  /** The reader of `v`; null when it is not a VARCHAR vector of the shape read here. */
  static of(v: DuckDBVector): TextBytes | null {
    const view = (v as unknown as { dataView?: unknown }).dataView;
    const words = nullWords(v);
    if (v.type.typeId !== DuckDBTypeId.VARCHAR || !(view instanceof DataView) || words === undefined) return null;
    return new TextBytes(v, view, new Uint8Array(view.buffer, view.byteOffset, view.byteLength), words);
  }

  /**
   * Row r's bytes into `out` at `pos`, at most `max` of them and never part of a character; answers the value's
   * whole length in bytes (more than `max`: it was cut), or -1 for a null (nothing written).
   */
  copy(r: number, out: Uint8Array, pos: number, max: number): number {
    if (!valid(this.words, r)) return -1;
    const at = r * 16;
    const length = this.view.getUint32(at, true);
    if (length > 12) {
      const text = this.vector.getItem(r) as string;
      Buffer.from(out.buffer, out.byteOffset, out.byteLength).write(text, pos, max, 'utf8');
      return Buffer.byteLength(text, 'utf8');
    }
    const start = at + 4;
    let n = length;
    if (n > max) {
      n = max;
      while (n > 0 && (this.bytes[start + n]! & 0xc0) === 0x80) n--;
    }
    for (let k = 0; k < n; k++) out[pos + k] = this.bytes[start + k]!;
    return length;
  }
}
