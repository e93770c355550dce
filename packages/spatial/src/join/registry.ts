import { SpatialInputError } from '../args';
import type { Geos, GeomPtr, PreparedPtr } from '../geos';

/**
 * Build geometries of planned joins, found again by a number the build rows carry (`__sj<n>_h`), so a boundary
 * cell's exact test costs one prepared GEOS call and the join never carries the geometry itself: a residual that
 * read the build value (even only as a fallback) made DuckDB copy it into the hash table once per cell entry — 200k
 * copies of 1.6 KB for the US counties, 2.4x the join's time measured (5x with GeoJSON text).
 *
 * Two tiers: every geometry's WKB is kept (up to WKB_BUDGET, oldest dropped first), and GEOS's prepared form of the
 * most recently used (up to PREPARED_BUDGET of their WKB; GEOS holds a few times that in its heap, which never
 * shrinks), prepared again from the WKB on a miss. A geometry is found by its bytes too (a hash, then the bytes
 * compared), so running the same join again reuses the numbers and memory does not grow with repeated queries.
 * A number that was dropped — one join's build side above WKB_BUDGET — is an error, never a wrong answer.
 */
interface Entry { id: number; wkb: Uint8Array; hash: number; prepared: { geom: GeomPtr; prepared: PreparedPtr } | null; used: number }

const WKB_BUDGET = 256 * 1024 * 1024;
const PREPARED_BUDGET = 48 * 1024 * 1024;

/** FNV-1a over the bytes (32-bit), with the length: a bucket key, the bytes are compared after it. */
export function hashOf(b: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return (h >>> 0) * 65536 + (b.length & 0xffff);
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && Buffer.compare(a, b) === 0;

export class BuildRegistry {
  private static byGeos = new WeakMap<Geos, BuildRegistry>();
  /** By number, oldest first (a Map keeps insertion order; a geometry added again moves to the end). */
  private readonly entries = new Map<number, Entry>();
  private readonly byHash = new Map<number, number[]>();
  /** Entries whose prepared form is held; `used` says when each was last used (a Map reordered on every use cost more than the test). */
  private readonly hot = new Set<Entry>();
  private tick = 0;
  private next = 1;
  private wkbBytes = 0;
  private preparedBytes = 0;
  private constructor(private readonly geos: Geos) {}

  static of(geos: Geos): BuildRegistry {
    let r = BuildRegistry.byGeos.get(geos);
    if (!r) BuildRegistry.byGeos.set(geos, (r = new BuildRegistry(geos)));
    return r;
  }

  /** The number of a geometry given as its WKB (kept: the caller's bytes may be reused) and its prepared form. */
  add(wkb: Uint8Array): { id: number; prepared: PreparedPtr } {
    const hash = hashOf(wkb);
    for (const id of this.byHash.get(hash) ?? []) {
      const e = this.entries.get(id)!;
      if (!sameBytes(e.wkb, wkb)) continue;
      this.entries.delete(id);
      this.entries.set(id, e);
      return { id, prepared: this.prepare(e) };
    }
    const id = this.next++;
    const e: Entry = { id, wkb: Uint8Array.prototype.slice.call(wkb), hash, prepared: null, used: 0 };
    this.entries.set(id, e);
    this.byHash.set(hash, [...(this.byHash.get(hash) ?? []), id]);
    this.wkbBytes += wkb.length;
    while (this.wkbBytes > WKB_BUDGET && this.entries.size > 1) this.drop(this.entries.keys().next().value as number);
    return { id, prepared: this.prepare(e) };
  }

  /** The prepared geometry of a number; a number not held is the caller's error (see above). */
  prepared(id: number): PreparedPtr {
    const e = this.entries.get(id);
    if (!e) {
      throw new SpatialInputError(`spatial join: the polygons' side holds more geometry than a join keeps (${WKB_BUDGET / 2 ** 20} MB of WKB): filter or simplify it (ST_Simplify) first`);
    }
    return this.prepare(e);
  }

  has(id: number): boolean {
    return this.entries.has(id);
  }

  private prepare(e: Entry): PreparedPtr {
    e.used = ++this.tick;
    if (e.prepared) return e.prepared.prepared;
    const geom = this.geos.fromWKB(e.wkb);
    e.prepared = { geom, prepared: this.geos.prepare(geom) };
    this.hot.add(e);
    this.preparedBytes += e.wkb.length;
    if (this.preparedBytes > PREPARED_BUDGET) {
      // The least recently used first, down to 3/4 of the budget (one sort per many evictions), never the one just made.
      for (const old of [...this.hot].sort((a, b) => a.used - b.used)) {
        if (this.preparedBytes <= PREPARED_BUDGET * 0.75 || old === e) break;
        this.unprepare(old);
      }
    }
    return e.prepared.prepared;
  }

  private unprepare(e: Entry): void {
    if (!e.prepared) return;
    this.hot.delete(e);
    this.geos.destroyPrepared(e.prepared.prepared);
    this.geos.destroy(e.prepared.geom);
    e.prepared = null;
    this.preparedBytes -= e.wkb.length;
  }

  private drop(id: number): void {
    const e = this.entries.get(id)!;
    this.unprepare(e);
    this.entries.delete(id);
    this.wkbBytes -= e.wkb.length;
    const ids = this.byHash.get(e.hash)!.filter((x) => x !== id);
    if (ids.length) this.byHash.set(e.hash, ids);
    else this.byHash.delete(e.hash);
  }
}
