type GeosModule = Awaited<ReturnType<typeof import('geos-wasm').default>>;
/** A GEOS geometry: a pointer into the WebAssembly heap, owned by whoever made it until `destroy`. */
export type GeomPtr = number;
export type PreparedPtr = number;

/** GEOS refused a geometry or an operation; `message` is GEOS's own reason (a ParseException, a TopologyException). */
export class GeosError extends Error {}

/** The binary predicates GEOS answers (planar, in the coordinates' own units). */
export type Predicate = 'intersects' | 'contains' | 'within' | 'covers' | 'touches' | 'disjoint';
export type Overlay = 'intersection' | 'difference' | 'union';
export type Unary = 'centroid' | 'pointOnSurface' | 'convexHull' | 'envelope' | 'makeValid';

/**
 * GEOS (the engine of PostGIS and Shapely) as WebAssembly, behind the few calls the spatial functions make. One
 * context per process; every call is synchronous (DuckDB calls scalar functions on the JS thread, one chunk at a
 * time). GEOS reports errors through a handler: it records the message and the call that saw the failure (a NULL
 * geometry or the predicate answer 2) throws a GeosError with it — a handler that throws would unwind through
 * GEOS's C++ frames and leak what they hold.
 */
export class Geos {
  private lastError = '';
  private readonly ctx: number;
  private readonly wktReader: number;
  private readonly wktWriter: number;
  private readonly wkbReader: number;
  private readonly wkbWriter: number;
  private readonly jsonReader: number;
  private readonly scratch: number;

  private constructor(private readonly g: GeosModule, onError: { set: (f: (m: string) => void) => void }) {
    onError.set((m) => { this.lastError = m; });
    this.ctx = (g as unknown as { _ctx: number })._ctx;
    this.wktReader = g.GEOSWKTReader_create_r(this.ctx);
    this.wktWriter = g.GEOSWKTWriter_create_r(this.ctx);
    g.GEOSWKTWriter_setTrim_r(this.ctx, this.wktWriter, 1);
    g.GEOSWKTWriter_setOutputDimension_r(this.ctx, this.wktWriter, 2);
    this.wkbReader = g.GEOSWKBReader_create_r(this.ctx);
    this.wkbWriter = g.GEOSWKBWriter_create_r(this.ctx);
    // 2D ISO WKB, little-endian: what the studio's readers (and core DuckDB's GEOMETRY) take.
    g.GEOSWKBWriter_setOutputDimension_r(this.ctx, this.wkbWriter, 2);
    g.GEOSWKBWriter_setByteOrder_r(this.ctx, this.wkbWriter, 1);
    this.jsonReader = g.GEOSGeoJSONReader_create_r(this.ctx);
    this.scratch = this.module._malloc(16);
  }

  private static loading: Promise<Geos> | undefined;

  /**
   * The process's GEOS, loaded on first use (2.5 MB of JS and WebAssembly, 0.1-0.5 s, ~7 MB of memory): a process
   * that only imports this package (the API, for the sandbox's call mapping) never loads it.
   */
  static load(): Promise<Geos> {
    let handler: (m: string) => void = () => {};
    Geos.loading ??= import('geos-wasm')
      .then(({ default: initGeosJs }) => initGeosJs({ errorHandler: (m: string) => handler(m), noticeHandler: () => {} }))
      .then((g) => new Geos(g, { set: (f) => { handler = f; } }));
    return Geos.loading;
  }

  private get module(): { _malloc(n: number): number; _free(p: number): void; HEAPU8: Uint8Array; HEAPF64: Float64Array; UTF8ToString(p: number): string; getValue(p: number, t: string): number } {
    return this.g.Module as never;
  }

  private fail(what: string): never {
    const reason = this.lastError || what;
    this.lastError = '';
    throw new GeosError(reason);
  }

  private checked(ptr: number, what: string): GeomPtr {
    if (!ptr) this.fail(what);
    return ptr;
  }

  /** Copies bytes into the heap (NUL-terminated, for text), calls `f` with the pointer, frees it. */
  private withBytes<T>(bytes: Uint8Array, nul: boolean, f: (ptr: number) => T): T {
    const ptr = this.module._malloc(bytes.length + 1);
    try {
      const heap = this.module.HEAPU8; // re-read: the heap's buffer changes when memory grows
      heap.set(bytes, ptr);
      if (nul) heap[ptr + bytes.length] = 0;
      return f(ptr);
    } finally {
      this.module._free(ptr);
    }
  }

  fromWKT(text: string): GeomPtr {
    return this.withBytes(encoder.encode(text), true, (p) => this.checked(this.g.GEOSWKTReader_read_r(this.ctx, this.wktReader, p), 'not valid WKT'));
  }

  fromGeoJSON(text: string): GeomPtr {
    return this.withBytes(encoder.encode(text), true, (p) => this.checked(this.g.GEOSGeoJSONReader_readGeometry_r(this.ctx, this.jsonReader, p), 'not valid GeoJSON'));
  }

  fromWKB(bytes: Uint8Array): GeomPtr {
    return this.withBytes(bytes, false, (p) => this.checked(this.g.GEOSWKBReader_read_r(this.ctx, this.wkbReader, p, bytes.length), 'not valid WKB'));
  }

  point(x: number, y: number): GeomPtr {
    return this.checked(this.g.GEOSGeom_createPointFromXY_r(this.ctx, x, y), 'could not make a point');
  }

  toWKB(geom: GeomPtr): Uint8Array {
    const sizePtr = this.scratch;
    const out = this.g.GEOSWKBWriter_write_r(this.ctx, this.wkbWriter, geom, sizePtr);
    if (!out) this.fail('could not write WKB');
    const size = this.module.HEAPU8[sizePtr]! | (this.module.HEAPU8[sizePtr + 1]! << 8) | (this.module.HEAPU8[sizePtr + 2]! << 16) | (this.module.HEAPU8[sizePtr + 3]! << 24);
    const bytes = this.module.HEAPU8.slice(out, out + size);
    this.g.GEOSFree_r(this.ctx, out);
    return bytes;
  }

  toWKT(geom: GeomPtr): string {
    const out = this.g.GEOSWKTWriter_write_r(this.ctx, this.wktWriter, geom);
    if (!out) this.fail('could not write WKT');
    const text = this.module.UTF8ToString(out);
    this.g.GEOSFree_r(this.ctx, out);
    return text;
  }

  destroy(geom: GeomPtr): void {
    this.g.GEOSGeom_destroy_r(this.ctx, geom);
  }

  prepare(geom: GeomPtr): PreparedPtr {
    return this.checked(this.g.GEOSPrepare_r(this.ctx, geom), 'could not prepare');
  }

  destroyPrepared(prepared: PreparedPtr): void {
    this.g.GEOSPreparedGeom_destroy_r(this.ctx, prepared);
  }

  private answer(r: number, what: string): boolean {
    if (r === 2) this.fail(what);
    return r === 1;
  }

  predicate(p: Predicate, a: GeomPtr, b: GeomPtr): boolean {
    const g = this.g;
    const f = { intersects: g.GEOSIntersects_r, contains: g.GEOSContains_r, within: g.GEOSWithin_r, covers: g.GEOSCovers_r, touches: g.GEOSTouches_r, disjoint: g.GEOSDisjoint_r }[p];
    return this.answer(f(this.ctx, a, b), `could not test ${p}`);
  }

  /** The same predicates with `a` prepared (its edges indexed once): what a join over one polygon and many points wants. */
  preparedPredicate(p: Predicate, a: PreparedPtr, b: GeomPtr): boolean {
    const g = this.g;
    const f = { intersects: g.GEOSPreparedIntersects_r, contains: g.GEOSPreparedContains_r, within: g.GEOSPreparedWithin_r, covers: g.GEOSPreparedCovers_r, touches: g.GEOSPreparedTouches_r, disjoint: g.GEOSPreparedDisjoint_r }[p];
    return this.answer(f(this.ctx, a, b), `could not test ${p}`);
  }

  /** contains / intersects of a prepared geometry and the point (x, y), with no point geometry made. */
  preparedXY(p: 'contains' | 'intersects', a: PreparedPtr, x: number, y: number): boolean {
    const f = p === 'contains' ? this.g.GEOSPreparedContainsXY_r : this.g.GEOSPreparedIntersectsXY_r;
    return this.answer(f(this.ctx, a, x, y), `could not test ${p}`);
  }

  /** `b` lies in the interior of prepared `a`, touching no boundary: the spatial join's test that a grid cell is inside. */
  preparedContainsProperly(a: PreparedPtr, b: GeomPtr): boolean {
    return this.answer(this.g.GEOSPreparedContainsProperly_r(this.ctx, a, b), 'could not test containsProperly');
  }

  overlay(op: Overlay, a: GeomPtr, b: GeomPtr): GeomPtr {
    const g = this.g;
    const f = { intersection: g.GEOSIntersection_r, difference: g.GEOSDifference_r, union: g.GEOSUnion_r }[op];
    return this.checked(f(this.ctx, a, b), `could not compute the ${op}`);
  }

  unaryUnion(geom: GeomPtr): GeomPtr {
    return this.checked(this.g.GEOSUnaryUnion_r(this.ctx, geom), 'could not compute the union');
  }

  unary(op: Unary, geom: GeomPtr): GeomPtr {
    const g = this.g;
    const f = { centroid: g.GEOSGetCentroid_r, pointOnSurface: g.GEOSPointOnSurface_r, convexHull: g.GEOSConvexHull_r, envelope: g.GEOSEnvelope_r, makeValid: g.GEOSMakeValid_r }[op];
    return this.checked(f(this.ctx, geom), `could not compute the ${op}`);
  }

  simplify(geom: GeomPtr, tolerance: number): GeomPtr {
    return this.checked(this.g.GEOSSimplify_r(this.ctx, geom, tolerance), 'could not simplify');
  }

  /** A planar buffer with round caps and joins, `quadSegments` segments a quarter circle (PostGIS's default 8). */
  buffer(geom: GeomPtr, width: number, quadSegments = 8): GeomPtr {
    return this.checked(this.g.GEOSBuffer_r(this.ctx, geom, width, quadSegments), 'could not buffer');
  }

  isValid(geom: GeomPtr): boolean {
    return this.answer(this.g.GEOSisValid_r(this.ctx, geom), 'could not test validity');
  }

  /** GEOS's reason a geometry is invalid ("Self-intersection[x y]"), or null when it is valid. */
  invalidReason(geom: GeomPtr): string | null {
    if (this.isValid(geom)) return null;
    const out = this.g.GEOSisValidReason_r(this.ctx, geom) as unknown as number;
    if (!out) this.fail('could not test validity');
    const text = this.module.UTF8ToString(out);
    this.g.GEOSFree_r(this.ctx, out);
    return text;
  }

  /** The part of a geometry inside an axis-aligned rectangle (GEOS's fast clip: no overlay, robust on valid input). */
  clipByRect(geom: GeomPtr, xmin: number, ymin: number, xmax: number, ymax: number): GeomPtr {
    return this.checked(this.g.GEOSClipByRect_r(this.ctx, geom, xmin, ymin, xmax, ymax), 'could not clip');
  }

  isEmpty(geom: GeomPtr): boolean {
    return this.answer(this.g.GEOSisEmpty_r(this.ctx, geom), 'could not test emptiness');
  }
}

const encoder = new TextEncoder();
