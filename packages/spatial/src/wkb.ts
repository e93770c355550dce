/**
 * WKB (ISO and EWKB, either byte order) read into plain coordinates and written from them, in JS: measures on the
 * spheroid, accessors and GeoJSON output need coordinates, not a GEOS object, and a point or an envelope is
 * cheaper to write here than to build in GEOS. Z and M ordinates are read and dropped (data is 2D lon/lat).
 */
export type Position = [number, number];

export type Shape =
  | { type: 'Point'; coordinates: Position | null }
  | { type: 'LineString'; coordinates: Position[] }
  | { type: 'Polygon'; coordinates: Position[][] }
  | { type: 'MultiPoint'; coordinates: Position[] }
  | { type: 'MultiLineString'; coordinates: Position[][] }
  | { type: 'MultiPolygon'; coordinates: Position[][][] }
  | { type: 'GeometryCollection'; geometries: Shape[] };

const TYPES = ['', 'Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon', 'GeometryCollection'] as const;

export class WkbError extends Error {}

class Reader {
  private i = 0;
  private readonly view: DataView;
  private little = true;
  /** Ordinates a position of the shape being read (2 to 4; Z and M are read and dropped). */
  private dims = 2;
  constructor(bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  private need(n: number) {
    if (this.i + n > this.view.byteLength) throw new WkbError(`WKB ends early at byte ${this.i}`);
  }
  u8() { this.need(1); return this.view.getUint8(this.i++); }
  u32() { this.need(4); const v = this.view.getUint32(this.i, this.little); this.i += 4; return v; }
  f64() { this.need(8); const v = this.view.getFloat64(this.i, this.little); this.i += 8; return v; }
  get done() { return this.i === this.view.byteLength; }

  // Methods, not closures made at each shape(): under tsx and Vitest (the benches, the tests) every closure is also
  // wrapped in a naming call (`__name`); reading 57 dissolved states and 3,376 points took 12.8 ms of CPU, now 2.7.
  private pos(): Position {
    const p: Position = [this.f64(), this.f64()];
    for (let d = 2; d < this.dims; d++) this.f64();
    return p;
  }
  private count(): number {
    const n = this.u32();
    this.need(Math.min(n, 1));
    return n;
  }
  private points(): Position[] {
    const n = this.count();
    const out: Position[] = [];
    for (let k = 0; k < n; k++) out.push(this.pos());
    return out;
  }
  private rings(): Position[][] {
    const n = this.count();
    const out: Position[][] = [];
    for (let k = 0; k < n; k++) out.push(this.points());
    return out;
  }

  shape(): Shape {
    const order = this.u8();
    if (order > 1) throw new WkbError(`byte order ${order} is neither 0 nor 1`);
    this.little = order === 1;
    const raw = this.u32();
    // EWKB flags (Z 0x80000000, M 0x40000000, SRID 0x20000000) or ISO's thousands (1000 Z, 2000 M, 3000 ZM).
    let dims = 2 + ((raw & 0x80000000) ? 1 : 0) + ((raw & 0x40000000) ? 1 : 0);
    if (raw & 0x20000000) this.u32();
    let code = raw & 0x0fffffff;
    if (code >= 1000 && code < 4000) { dims = 2 + [0, 1, 1, 2][Math.floor(code / 1000)]!; code %= 1000; }
    const type = TYPES[code];
    if (!type) throw new WkbError(`geometry type ${code} is not one WKB knows`);
    this.dims = dims;
    switch (type) {
      case 'Point': { const p = this.pos(); return { type, coordinates: Number.isNaN(p[0]) && Number.isNaN(p[1]) ? null : p }; }
      case 'LineString': return { type, coordinates: this.points() };
      case 'Polygon': return { type, coordinates: this.rings() };
      default: {
        const n = this.count();
        const parts: Shape[] = [];
        for (let k = 0; k < n; k++) parts.push(this.shape());
        if (type === 'GeometryCollection') return { type, geometries: parts };
        const want = type.slice(5);
        for (const p of parts) if (p.type !== want) throw new WkbError(`a ${type} holds a ${p.type}`);
        const coords = parts.map((p) => (p as { coordinates: unknown }).coordinates);
        if (type === 'MultiPoint') return { type, coordinates: coords.filter((c): c is Position => c !== null) };
        if (type === 'MultiLineString') return { type, coordinates: coords as Position[][] };
        return { type, coordinates: coords as Position[][][] };
      }
    }
  }
}

/** The shape a WKB value holds, or a WkbError saying where it is malformed. */
export function readWkb(bytes: Uint8Array): Shape {
  const r = new Reader(bytes);
  const s = r.shape();
  if (!r.done) throw new WkbError('WKB has bytes after its geometry');
  return s;
}

/** True when the bytes are exactly a 2D little-endian point, the shape ST_Point writes (the predicates' fast path). */
export function pointXY(bytes: Uint8Array): Position | null {
  if (bytes.length !== 21 || bytes[0] !== 1 || bytes[1] !== 1 || bytes[2] !== 0 || bytes[3] !== 0 || bytes[4] !== 0) return null;
  const v = new DataView(bytes.buffer, bytes.byteOffset, 21);
  return [v.getFloat64(5, true), v.getFloat64(13, true)];
}

/** A 2D little-endian WKB point (21 bytes). */
export function pointWkb(x: number, y: number): Uint8Array {
  const b = new Uint8Array(21);
  const v = new DataView(b.buffer);
  v.setUint8(0, 1);
  v.setUint32(1, 1, true);
  v.setFloat64(5, x, true);
  v.setFloat64(13, y, true);
  return b;
}

/** A 2D little-endian WKB polygon of the given rings (each closed by the caller). */
export function polygonWkb(rings: Position[][]): Uint8Array {
  const size = 9 + rings.reduce((n, r) => n + 4 + r.length * 16, 0);
  const b = new Uint8Array(size);
  const v = new DataView(b.buffer);
  v.setUint8(0, 1);
  v.setUint32(1, 3, true);
  v.setUint32(5, rings.length, true);
  let o = 9;
  for (const ring of rings) {
    v.setUint32(o, ring.length, true);
    o += 4;
    for (const [x, y] of ring) { v.setFloat64(o, x, true); v.setFloat64(o + 8, y, true); o += 16; }
  }
  return b;
}

/** A multi-geometry of type `code` whose members are whole WKB values, written one after another. */
function membersWkb(code: number, parts: Uint8Array[]): Uint8Array {
  const b = new Uint8Array(9 + parts.reduce((n, p) => n + p.length, 0));
  const v = new DataView(b.buffer);
  v.setUint8(0, 1);
  v.setUint32(1, code, true);
  v.setUint32(5, parts.length, true);
  let o = 9;
  for (const p of parts) { b.set(p, o); o += p.length; }
  return b;
}

/** A GeometryCollection WKB made of whole WKB values (ST_Union's aggregate unions it in one GEOS call). */
export const collectionWkb = (parts: Uint8Array[]): Uint8Array => membersWkb(7, parts);

/** Every position of a shape, in order (rings keep their closing point, as PostGIS counts them). */
export function* positions(s: Shape): Generator<Position> {
  switch (s.type) {
    case 'Point': if (s.coordinates) yield s.coordinates; return;
    case 'LineString': case 'MultiPoint': yield* s.coordinates; return;
    case 'Polygon': case 'MultiLineString': for (const r of s.coordinates) yield* r; return;
    case 'MultiPolygon': for (const p of s.coordinates) for (const r of p) yield* r; return;
    case 'GeometryCollection': for (const g of s.geometries) yield* positions(g);
  }
}

/** The simple parts of a shape: points, lines and polygons (collections and multis flattened). */
export function* simpleParts(s: Shape): Generator<{ kind: 'point'; p: Position } | { kind: 'line'; line: Position[] } | { kind: 'polygon'; rings: Position[][] }> {
  switch (s.type) {
    case 'Point': if (s.coordinates) yield { kind: 'point', p: s.coordinates }; return;
    case 'MultiPoint': for (const p of s.coordinates) yield { kind: 'point', p }; return;
    case 'LineString': yield { kind: 'line', line: s.coordinates }; return;
    case 'MultiLineString': for (const line of s.coordinates) yield { kind: 'line', line }; return;
    case 'Polygon': yield { kind: 'polygon', rings: s.coordinates }; return;
    case 'MultiPolygon': for (const rings of s.coordinates) yield { kind: 'polygon', rings }; return;
    case 'GeometryCollection': for (const g of s.geometries) yield* simpleParts(g);
  }
}

/** GeoJSON text of a shape, coordinates rounded to `digits` decimals (PostGIS's ST_AsGeoJSON default is 9). */
export function geoJson(s: Shape, digits = 9): string {
  const f = 10 ** Math.max(0, Math.min(15, Math.trunc(digits)));
  const round = (p: Position): Position => [Math.round(p[0] * f) / f, Math.round(p[1] * f) / f];
  const conv = (g: Shape): object => {
    switch (g.type) {
      case 'Point': return { type: g.type, coordinates: g.coordinates ? round(g.coordinates) : [] };
      case 'LineString': case 'MultiPoint': return { type: g.type, coordinates: g.coordinates.map(round) };
      case 'Polygon': case 'MultiLineString': return { type: g.type, coordinates: g.coordinates.map((r) => r.map(round)) };
      case 'MultiPolygon': return { type: g.type, coordinates: g.coordinates.map((p) => p.map((r) => r.map(round))) };
      case 'GeometryCollection': return { type: g.type, geometries: g.geometries.map(conv) };
    }
  };
  return JSON.stringify(conv(s));
}

const CODES: Record<Shape['type'], number> = { Point: 1, LineString: 2, Polygon: 3, MultiPoint: 4, MultiLineString: 5, MultiPolygon: 6, GeometryCollection: 7 };

/** Bytes of a shape's 2D WKB. */
function wkbSize(g: Shape): number {
  switch (g.type) {
    case 'Point': return 21;
    case 'LineString': return 9 + g.coordinates.length * 16;
    case 'Polygon': return 9 + g.coordinates.reduce((n, r) => n + 4 + r.length * 16, 0);
    case 'MultiPoint': return 9 + g.coordinates.length * 21;
    case 'MultiLineString': return 9 + g.coordinates.reduce((n, l) => n + 9 + l.length * 16, 0);
    case 'MultiPolygon': return 9 + g.coordinates.reduce((n, p) => n + wkbSize({ type: 'Polygon', coordinates: p }), 0);
    case 'GeometryCollection': return 9 + g.geometries.reduce((n, x) => n + wkbSize(x), 0);
  }
}

/**
 * 2D little-endian ISO WKB of a shape (an empty point as NaN NaN, as GEOS and PostGIS write it). Sized first, then
 * written in place: a write plan of one entry a number made a union's 100k vertices mostly garbage to collect.
 */
export function writeWkb(s: Shape): Uint8Array {
  const b = new Uint8Array(wkbSize(s));
  const v = new DataView(b.buffer);
  let o = 0;
  const head = (code: number, n?: number) => { v.setUint8(o, 1); v.setUint32(o + 1, code, true); o += 5; if (n !== undefined) { v.setUint32(o, n, true); o += 4; } };
  const xy = (x: number, y: number) => { v.setFloat64(o, x, true); v.setFloat64(o + 8, y, true); o += 16; };
  const pts = (ps: Position[]) => { v.setUint32(o, ps.length, true); o += 4; for (const p of ps) xy(p[0], p[1]); };
  const emit = (g: Shape) => {
    switch (g.type) {
      case 'Point': head(CODES.Point); xy(g.coordinates ? g.coordinates[0] : NaN, g.coordinates ? g.coordinates[1] : NaN); return;
      case 'LineString': head(CODES.LineString); pts(g.coordinates); return;
      case 'Polygon': head(CODES.Polygon, g.coordinates.length); g.coordinates.forEach(pts); return;
      case 'MultiPoint': head(CODES.MultiPoint, g.coordinates.length); for (const p of g.coordinates) emit({ type: 'Point', coordinates: p }); return;
      case 'MultiLineString': head(CODES.MultiLineString, g.coordinates.length); for (const l of g.coordinates) emit({ type: 'LineString', coordinates: l }); return;
      case 'MultiPolygon': head(CODES.MultiPolygon, g.coordinates.length); for (const p of g.coordinates) emit({ type: 'Polygon', coordinates: p }); return;
      case 'GeometryCollection': head(CODES.GeometryCollection, g.geometries.length); g.geometries.forEach(emit);
    }
  };
  emit(s);
  return b;
}

/** The same shape with every position mapped by `f`. */
export function mapPositions(s: Shape, f: (p: Position) => Position): Shape {
  switch (s.type) {
    case 'Point': return { type: s.type, coordinates: s.coordinates ? f(s.coordinates) : null };
    case 'LineString': case 'MultiPoint': return { type: s.type, coordinates: s.coordinates.map(f) } as Shape;
    case 'Polygon': case 'MultiLineString': return { type: s.type, coordinates: s.coordinates.map((r) => r.map(f)) } as Shape;
    case 'MultiPolygon': return { type: s.type, coordinates: s.coordinates.map((p) => p.map((r) => r.map(f))) };
    case 'GeometryCollection': return { type: s.type, geometries: s.geometries.map((g) => mapPositions(g, f)) };
  }
}

/** A bounding box: [xmin, ymin, xmax, ymax]. */
export type Box = [xmin: number, ymin: number, xmax: number, ymax: number];

/**
 * The polygons of a 2D little-endian ISO Polygon or MultiPolygon WKB (what ST_Buffer and GEOS write here), as views of
 * its bytes, with their box, read without building coordinates; null for anything else (another byte order or type,
 * Z or M, an empty polygon, malformed bytes), which callers read with readWkb.
 */
export function polygonalParts(bytes: Uint8Array): { polygons: Uint8Array[]; box: Box } | null {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.byteLength;
  const box: Box = [Infinity, Infinity, -Infinity, -Infinity];
  const polygons: Uint8Array[] = [];
  /** Reads one Polygon at `o`; answers the offset after it, or -1. */
  const polygon = (o: number): number => {
    if (o + 9 > end || v.getUint8(o) !== 1 || v.getUint32(o + 1, true) !== 3) return -1;
    const rings = v.getUint32(o + 5, true);
    if (rings === 0) return -1;
    let p = o + 9;
    for (let r = 0; r < rings; r++) {
      if (p + 4 > end) return -1;
      const n = v.getUint32(p, true);
      p += 4;
      if (p + n * 16 > end) return -1;
      for (let k = 0; k < n; k++, p += 16) {
        const x = v.getFloat64(p, true), y = v.getFloat64(p + 8, true);
        if (x < box[0]) box[0] = x; if (x > box[2]) box[2] = x;
        if (y < box[1]) box[1] = y; if (y > box[3]) box[3] = y;
      }
    }
    polygons.push(bytes.subarray(o, p));
    return p;
  };
  if (end < 9 || v.getUint8(0) !== 1) return null;
  const code = v.getUint32(1, true);
  let o: number;
  if (code === 3) o = polygon(0);
  else if (code === 6) {
    const n = v.getUint32(5, true);
    o = n ? 9 : -1;
    for (let k = 0; k < n && o >= 0; k++) o = polygon(o);
  } else return null;
  return o === end && box[0] <= box[2] ? { polygons, box } : null;
}

/** A Polygon WKB when there is one polygon, else a MultiPolygon of them (each a 2D little-endian Polygon WKB). */
export function multiPolygonWkb(polygons: Uint8Array[]): Uint8Array {
  return polygons.length === 1 ? polygons[0]!.slice() : membersWkb(6, polygons);
}
