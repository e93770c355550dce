import Pbf from 'pbf';
import { VT_OPTIONS, fitWithin, type Encoded } from './mvt';

/**
 * MVT encoding of a layer of points, written straight from the tiler's rows.
 *
 * vt-pbf (what geojson-vt tiles go through) wants a feature object with a properties object each, and
 * de-duplicates values in a plain object keyed by `type + ':' + value`: with a unique text per point (a
 * name, an id) that object grows to a dictionary of every value in the tile, and that lookup was 9 of the 22
 * seconds a million points took to encode. Here values are de-duplicated in a Map per type and properties
 * come as an array in the layer's key order, so nothing per feature is allocated beyond its row.
 *
 * The bytes follow the MVT 2.1 spec as vt-pbf writes them: version, name, extent, then features (id, tags,
 * type 1, one MoveTo), then keys and values; a value is text, a boolean, a double (fractions), an unsigned
 * or a zigzag integer.
 */

/** One point of a tile: its feature id, its position in tile units, and the row holding its values. */
export interface PointFeature {
  id: number;
  x: number;
  y: number;
  /** Key k's value is `row[offset + k]` (encodePoints' offset); null or undefined leaves it out (MVT has no null). */
  row: readonly unknown[];
}

const zigzag = (n: number) => (n << 1) ^ (n >> 31);

/** A layer's values, each written once: index by type, then by value (1 and '1' are two values). */
class ValueTable {
  readonly values: (string | number | boolean)[] = [];
  private readonly strings = new Map<string, number>();
  private readonly numbers = new Map<number, number>();
  private readonly booleans = new Map<boolean, number>();

  indexOf(value: unknown): number {
    if (typeof value === 'number') return this.lookup(this.numbers, value);
    if (typeof value === 'boolean') return this.lookup(this.booleans, value);
    // Anything else is written as text, as vt-pbf does (JSON for objects).
    return this.lookup(this.strings, typeof value === 'string' ? value : JSON.stringify(value));
  }

  private lookup<T extends string | number | boolean>(map: Map<T, number>, value: T): number {
    let index = map.get(value);
    if (index === undefined) {
      index = this.values.length;
      this.values.push(value);
      map.set(value, index);
    }
    return index;
  }
}

function writeValue(value: string | number | boolean, pbf: Pbf) {
  if (typeof value === 'string') pbf.writeStringField(1, value);
  else if (typeof value === 'boolean') pbf.writeBooleanField(7, value);
  else if (value % 1 !== 0) pbf.writeDoubleField(3, value);
  else if (value < 0) pbf.writeSVarintField(6, value);
  else pbf.writeVarintField(5, value);
}

/** The MVT of one layer holding the first `count` of `features`; null when there are none. */
export function encodePoints(layer: string, keys: readonly string[], offset: number, features: readonly PointFeature[], count = features.length): Uint8Array | null {
  if (count === 0) return null;
  const pbf = new Pbf();
  const table = new ValueTable();
  pbf.writeMessage(3, () => {
    pbf.writeVarintField(15, 2);
    pbf.writeStringField(1, layer);
    pbf.writeVarintField(5, VT_OPTIONS.extent);
    for (let i = 0; i < count; i++) {
      const f = features[i]!;
      pbf.writeMessage(2, () => {
        pbf.writeVarintField(1, f.id);
        pbf.writeMessage(2, () => {
          for (let k = 0; k < keys.length; k++) {
            const v = f.row[offset + k];
            if (v === null || v === undefined) continue;
            pbf.writeVarint(k);
            pbf.writeVarint(table.indexOf(v));
          }
        }, undefined);
        pbf.writeVarintField(3, 1);
        pbf.writeMessage(4, () => {
          pbf.writeVarint((1 << 3) + 1); // MoveTo, one point
          pbf.writeVarint(zigzag(f.x));
          pbf.writeVarint(zigzag(f.y));
        }, undefined);
      }, undefined);
    }
    // Keys are written in the layer's order, so a tag's key index is its column; a column with no value in
    // this tile keeps its slot (the spec lets a key go unreferenced; it costs its name's bytes once a tile).
    for (const key of keys) pbf.writeStringField(3, key);
    for (const value of table.values) pbf.writeMessage(4, () => writeValue(value, pbf), undefined);
  }, undefined);
  return pbf.finish();
}

/** The points' MVT within `maxBytes` (see fitWithin: the lowest ids kept, as for other geometry). */
export function encodePointsWithin(layer: string, keys: readonly string[], offset: number, features: readonly PointFeature[], maxBytes?: number): Encoded {
  return fitWithin(encodePoints(layer, keys, offset, features), features.length, maxBytes, () => {
    const byId = [...features].sort((a, b) => a.id - b.id);
    return (n) => encodePoints(layer, keys, offset, byId, n)!;
  });
}
