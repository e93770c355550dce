import type { Geometry, Position } from 'geojson';

/**
 * Well-Known Binary (OGC Simple Features / ISO SQL/MM, as GeoPackage stores it after its header) to GeoJSON
 * and back. The reader trusts no count in the blob: every count is checked against the bytes left before
 * anything is allocated, so a blob that lies about its sizes is refused instead of taking the memory it claims.
 */

export class WkbError extends Error {}

const TYPES = ['', 'Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon', 'GeometryCollection'] as const;

/** Nesting of collections the reader follows (a blob nesting deeper is refused, not recursed into). */
const MAX_DEPTH = 32;

class Reader {
  private at = 0;
  private little = true;
  constructor(private readonly view: DataView) {}

  private need(bytes: number): void {
    if (bytes < 0 || this.at + bytes > this.view.byteLength) throw new WkbError('the geometry blob ends before its coordinates do');
  }

  private u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.at, this.little);
    this.at += 4;
    return v;
  }

  private f64(): number {
    const v = this.view.getFloat64(this.at, this.little);
    this.at += 8;
    return v;
  }

  /** A count of items at least `minBytes` each: refused when the bytes left cannot hold them. */
  private count(minBytes: number): number {
    const n = this.u32();
    this.need(n * minBytes);
    return n;
  }

  private positions(n: number, dims: number): Position[] {
    this.need(n * dims * 8);
    const out: Position[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const p: Position = [this.f64(), this.f64()];
      if (dims >= 3) p.push(this.f64());
      if (dims === 4) this.f64(); // M has no place in GeoJSON
      out[i] = p;
    }
    return out;
  }

  geometry(depth = 0): Geometry {
    if (depth > MAX_DEPTH) throw new WkbError(`the geometry nests collections deeper than ${MAX_DEPTH} levels`);
    this.need(1);
    const order = this.view.getUint8(this.at++);
    if (order > 1) throw new WkbError('the geometry blob has no valid byte order');
    this.little = order === 1;
    const raw = this.u32();
    // ISO codes (1000 Z, 2000 M, 3000 ZM) and the EWKB flags GDAL may still write.
    const hasZ = (raw & 0x80000000) !== 0 || (raw % 10000 >= 1000 && raw % 10000 < 2000) || raw % 10000 >= 3000;
    const hasM = (raw & 0x40000000) !== 0 || raw % 10000 >= 2000;
    const kind = (raw & 0x0fffffff) % 1000;
    if ((raw & 0x20000000) !== 0) throw new WkbError('the geometry blob carries an SRID inside (EWKB), which GeoPackage does not');
    const dims = 2 + (hasZ ? 1 : 0) + (hasM ? 1 : 0);
    const point = dims * 8;
    const type = TYPES[kind];
    if (!type) throw new WkbError(`geometry type ${raw} is not one GeoJSON has`);
    const little = this.little;
    const sub = (expected: number) => {
      const g = this.geometry(depth + 1);
      this.little = little;
      if (expected && g.type !== TYPES[expected]) throw new WkbError(`a ${type} holds a ${g.type}`);
      return g;
    };
    switch (type) {
      case 'Point': {
        const [p] = this.positions(1, dims);
        // An empty point is written as NaN coordinates.
        return { type, coordinates: Number.isNaN(p![0]) && Number.isNaN(p![1]) ? [] : p! };
      }
      case 'LineString':
        return { type, coordinates: this.positions(this.count(point), dims) };
      case 'Polygon': {
        const rings = this.count(4);
        const coordinates: Position[][] = [];
        for (let i = 0; i < rings; i++) coordinates.push(this.positions(this.count(point), dims));
        return { type, coordinates };
      }
      case 'MultiPoint':
      case 'MultiLineString':
      case 'MultiPolygon': {
        const n = this.count(5);
        const parts: Position[] | Position[][] | Position[][][] = [];
        for (let i = 0; i < n; i++) (parts as unknown[]).push((sub(kind - 3) as { coordinates: unknown }).coordinates);
        return { type, coordinates: parts } as Geometry;
      }
      case 'GeometryCollection': {
        const n = this.count(5);
        const geometries: Geometry[] = [];
        for (let i = 0; i < n; i++) geometries.push(sub(0));
        return { type, geometries };
      }
    }
    throw new WkbError(`geometry type ${raw} is not one GeoJSON has`);
  }

  get offset(): number {
    return this.at;
  }
}

/** The GeoJSON geometry of WKB at `view` (the whole view: trailing bytes are refused). */
export function wkbToGeoJson(view: DataView): Geometry {
  const r = new Reader(view);
  const g = r.geometry();
  if (r.offset !== view.byteLength) throw new WkbError('the geometry blob has bytes after its geometry');
  return g;
}

const WRITE_CODES: Record<Geometry['type'], number> = { Point: 1, LineString: 2, Polygon: 3, MultiPoint: 4, MultiLineString: 5, MultiPolygon: 6, GeometryCollection: 7 };

/** Bytes the WKB of `g` takes (2D, little-endian). */
function sizeOf(g: Geometry): number {
  switch (g.type) {
    case 'Point':
      return 21;
    case 'LineString':
    case 'MultiPoint':
      return 9 + g.coordinates.length * (g.type === 'MultiPoint' ? 21 : 16);
    case 'Polygon':
      return 9 + g.coordinates.reduce((s, r) => s + 4 + r.length * 16, 0);
    case 'MultiLineString':
      return 9 + g.coordinates.reduce((s, l) => s + 9 + l.length * 16, 0);
    case 'MultiPolygon':
      return 9 + g.coordinates.reduce((s, p) => s + 9 + p.reduce((t, r) => t + 4 + r.length * 16, 0), 0);
    case 'GeometryCollection':
      return 9 + g.geometries.reduce((s, c) => s + sizeOf(c), 0);
  }
}

/** 2D little-endian WKB of a GeoJSON geometry, written at `offset` of `view`; answers the offset after it. */
function writeInto(view: DataView, offset: number, g: Geometry): number {
  let at = offset;
  const u32 = (v: number) => {
    view.setUint32(at, v, true);
    at += 4;
  };
  const xy = (p: Position) => {
    view.setFloat64(at, p[0] ?? NaN, true);
    view.setFloat64(at + 8, p[1] ?? NaN, true);
    at += 16;
  };
  const head = (code: number) => {
    view.setUint8(at++, 1);
    u32(code);
  };
  const ring = (r: Position[]) => {
    u32(r.length);
    r.forEach(xy);
  };
  head(WRITE_CODES[g.type]);
  switch (g.type) {
    case 'Point':
      xy(g.coordinates);
      break;
    case 'LineString':
      ring(g.coordinates);
      break;
    case 'Polygon':
      u32(g.coordinates.length);
      g.coordinates.forEach(ring);
      break;
    case 'MultiPoint':
      u32(g.coordinates.length);
      for (const p of g.coordinates) at = writeInto(view, at, { type: 'Point', coordinates: p });
      break;
    case 'MultiLineString':
      u32(g.coordinates.length);
      for (const l of g.coordinates) at = writeInto(view, at, { type: 'LineString', coordinates: l });
      break;
    case 'MultiPolygon':
      u32(g.coordinates.length);
      for (const p of g.coordinates) at = writeInto(view, at, { type: 'Polygon', coordinates: p });
      break;
    case 'GeometryCollection':
      u32(g.geometries.length);
      for (const c of g.geometries) at = writeInto(view, at, c);
      break;
  }
  return at;
}

/** 2D little-endian WKB of `g` after `headerBytes` bytes left for the caller (GeoPackage's header). */
export function geoJsonToWkb(g: Geometry, headerBytes = 0): Uint8Array {
  const bytes = new Uint8Array(headerBytes + sizeOf(g));
  writeInto(new DataView(bytes.buffer), headerBytes, g);
  return bytes;
}
