import { DuckDBTypeId, type DuckDBVector } from '@duckdb/node-api';
import { Geos, GeosError, type GeomPtr, type PreparedPtr } from './geos';
import { readWkb, WkbError, type Shape } from './wkb';

/**
 * How a function reads its geometry arguments. A geometry arrives as a dataset's column stands — GeoJSON or WKT text
 * (detected), hex WKB text, a WKB BLOB (what these functions return), or core DuckDB's GEOMETRY — so no cast is ever
 * needed. Parsed values are kept in a small cache keyed by their text or bytes: in a join, the same polygon meets
 * every point, and parsing (and preparing) it once per row would be most of the work.
 */

/** A user's bad argument: the message names the function and the argument, and shows the start of the value. */
export class SpatialInputError extends Error {}

export type GeomValue = { text: string; bytes?: undefined } | { bytes: Uint8Array; text?: undefined };

const snippet = (v: GeomValue) => {
  const s = v.text ?? `\\x${Buffer.from(v.bytes.subarray(0, 24)).toString('hex')}${v.bytes.length > 24 ? '…' : ''}`;
  return JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s);
};

/**
 * The last text value read from one column of one chunk, by its DuckDB string header (length and data pointer).
 * In a join the polygon column repeats one string in every row: the same header is the same bytes while the chunk
 * lives, so the value (and the geometry parsed from it) is reused without decoding 2 KB of GeoJSON a row.
 */
export class TextMemo {
  private len = -1;
  private lo = 0;
  private hi = 0;
  private value: GeomValue | null = null;
  constructor(private readonly view: DataView | undefined) {}
  static of(v: DuckDBVector): TextMemo {
    const view = (v as unknown as { dataView?: unknown }).dataView;
    return new TextMemo(view instanceof DataView ? view : undefined);
  }
  get(v: DuckDBVector<string>, i: number): GeomValue | null {
    const view = this.view;
    // Strings of 12 bytes or fewer are stored inline: no pointer to compare (and cheap to decode anyway).
    if (!view || view.byteLength < (i + 1) * 16 || view.getUint32(i * 16, true) <= 12) {
      const t = v.getItem(i);
      return t === null ? null : { text: t };
    }
    const len = view.getUint32(i * 16, true), lo = view.getUint32(i * 16 + 8, true), hi = view.getUint32(i * 16 + 12, true);
    if (this.value && len === this.len && lo === this.lo && hi === this.hi) return this.value;
    const t = v.getItem(i);
    if (t === null) return null;
    [this.len, this.lo, this.hi, this.value] = [len, lo, hi, { text: t }];
    return this.value;
  }
}

/** The geometry value of row `i` of a vector, null for SQL NULL; a value of another type is the caller's error. */
export function geomValueAt(fn: string, arg: number, v: DuckDBVector, i: number, memo?: TextMemo): GeomValue | null {
  switch (v.type.typeId) {
    case DuckDBTypeId.VARCHAR: {
      if (memo) return memo.get(v as DuckDBVector<string>, i);
      const t = (v as DuckDBVector<string>).getItem(i);
      return t === null ? null : { text: t };
    }
    case DuckDBTypeId.BLOB: {
      const b = (v as unknown as { getItemBytes(i: number): Uint8Array | null }).getItemBytes(i);
      return b === null ? null : { bytes: b };
    }
    case DuckDBTypeId.GEOMETRY: {
      const g = (v as DuckDBVector<{ bytes: Uint8Array } | null>).getItem(i);
      return g === null ? null : { bytes: g.bytes };
    }
    case DuckDBTypeId.SQLNULL:
      return null;
    default:
      throw new SpatialInputError(`${fn}: argument ${arg} is not a geometry: it is ${v.type.toString()} (a geometry is WKT or GeoJSON text, or WKB)`);
  }
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const EWKT_SRID = /^\s*SRID=(\d+);/i;

/** The SRIDs the functions accept: data is WGS 84 longitude/latitude (0 is PostGIS's "unknown", taken as that). */
export function checkSrid(fn: string, srid: number): void {
  if (srid !== 4326 && srid !== 0) throw new SpatialInputError(`${fn}: SRID ${srid} is not supported: geometry here is WGS 84 longitude/latitude (SRID 4326)`);
}

interface Entry { key: string; geom: GeomPtr; prepared: PreparedPtr | 0; uses: number; shape?: Shape }

const CAPACITY = 256;

/** Parsed geometries by value, least recently used first (a Map keeps insertion order). */
class GeomCache {
  private readonly entries = new Map<string, Entry>();
  constructor(private readonly geos: Geos) {}
  get(key: string): Entry | undefined {
    const e = this.entries.get(key);
    if (e) this.touch(e);
    return e;
  }
  /** Marks an entry used now (most recent: never the next one evicted). Its key string keeps its hash: no rehashing. */
  touch(e: Entry): void {
    this.entries.delete(e.key);
    this.entries.set(e.key, e);
    e.uses++;
  }
  put(key: string, geom: GeomPtr): Entry {
    const e: Entry = { key, geom, prepared: 0, uses: 1 };
    this.entries.set(key, e);
    if (this.entries.size > CAPACITY) {
      const [oldKey, old] = this.entries.entries().next().value as [string, Entry];
      this.entries.delete(oldKey);
      if (old.prepared) this.geos.destroyPrepared(old.prepared);
      this.geos.destroy(old.geom);
    }
    return e;
  }
}

/** Geometry values below this size are parsed each time rather than cached (a point's WKB is 21 bytes). */
const CACHE_MIN_BYTES = 64;

/**
 * Reads geometry arguments for one function call over a chunk. Geometries it parses but does not cache are destroyed
 * at `release()` (after each row); cached ones live in the cache and are destroyed when it evicts them.
 */
export class GeomReader {
  private static caches = new WeakMap<Geos, GeomCache>();
  private readonly cache: GeomCache;
  private readonly owned: GeomPtr[] = [];

  constructor(readonly geos: Geos, readonly fn: string) {
    let c = GeomReader.caches.get(geos);
    if (!c) GeomReader.caches.set(geos, (c = new GeomCache(geos)));
    this.cache = c;
  }

  private bad(arg: number, v: GeomValue, reason: string): never {
    throw new SpatialInputError(`${this.fn}: argument ${arg} is not a geometry (${snippet(v)}): ${reason}`);
  }

  private parse(arg: number, v: GeomValue): GeomPtr {
    try {
      if (v.bytes) return this.geos.fromWKB(v.bytes);
      let t = v.text.trimStart();
      if (t.startsWith('{')) return this.geos.fromGeoJSON(t);
      if (HEX.test(t.trimEnd())) return this.geos.fromWKB(Buffer.from(t.trim(), 'hex'));
      const srid = EWKT_SRID.exec(t);
      if (srid) { checkSrid(this.fn, Number(srid[1])); t = t.slice(srid[0].length); }
      if (!/^[A-Za-z]/.test(t)) this.bad(arg, v, 'expected WKT (e.g. POINT(1 2)), GeoJSON or WKB');
      return this.geos.fromWKT(t);
    } catch (e) {
      if (e instanceof GeosError) this.bad(arg, v, e.message);
      throw e;
    }
  }

  /** By argument, the last value looked up and its entry: a repeated value (the same object, from TextMemo) is not hashed again. */
  private readonly last: { value: GeomValue; entry: Entry }[] = [];

  private entry(arg: number, v: GeomValue): Entry | null {
    const last = this.last[arg];
    if (last && last.value === v) {
      this.cache.touch(last.entry);
      return last.entry;
    }
    const e = this.lookup(arg, v);
    if (e) this.last[arg] = { value: v, entry: e };
    return e;
  }

  private lookup(arg: number, v: GeomValue): Entry | null {
    const key = v.text !== undefined ? `t${v.text}` : v.bytes.length >= CACHE_MIN_BYTES ? `b${Buffer.from(v.bytes.buffer, v.bytes.byteOffset, v.bytes.byteLength).toString('latin1')}` : null;
    if (key === null) return null;
    return this.cache.get(key) ?? this.cache.put(key, this.parse(arg, v));
  }

  /** The GEOS geometry of a value (argument `arg`, counted from 1 for messages). */
  geom(arg: number, v: GeomValue): GeomPtr {
    const e = this.entry(arg, v);
    if (e) return e.geom;
    const g = this.parse(arg, v);
    this.owned.push(g);
    return g;
  }

  /** A prepared geometry when the value has been seen before (preparing pays only when it is used again), else null. */
  prepared(arg: number, v: GeomValue): PreparedPtr | null {
    const e = this.entry(arg, v);
    if (!e || e.uses < 2) return null;
    if (!e.prepared) e.prepared = this.geos.prepare(e.geom);
    return e.prepared;
  }

  /** The coordinates of a value: WKB is read in JS; text goes through GEOS once (then cached). */
  shape(arg: number, v: GeomValue): Shape {
    if (v.bytes) {
      try {
        return readWkb(v.bytes);
      } catch (e) {
        if (e instanceof WkbError) this.bad(arg, v, e.message);
        throw e;
      }
    }
    const e = this.entry(arg, v)!;
    e.shape ??= readWkb(this.geos.toWKB(e.geom));
    return e.shape;
  }

  /** Destroys what this row parsed outside the cache. */
  release(): void {
    for (const g of this.owned) this.geos.destroy(g);
    this.owned.length = 0;
  }
}
