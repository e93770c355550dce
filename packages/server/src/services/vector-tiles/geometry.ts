import type { Geometry, Position } from 'geojson';

/**
 * Geometry of a dataset row as GeoJSON. Datasets keep geometry as text (the spatial extension cannot be
 * installed here): GeoJSON (a geometry or a Feature) or WKT / EWKT, with Z and M values ignored.
 */
export function parseGeometry(text: string): Geometry | null {
  const s = text.trimStart();
  if (s.startsWith('{')) {
    try {
      const o = JSON.parse(s) as { type?: string; geometry?: unknown };
      const g = (o.type === 'Feature' ? o.geometry : o) as Geometry | null;
      return g && typeof g.type === 'string' && ('coordinates' in g || 'geometries' in g) ? g : null;
    } catch {
      return null;
    }
  }
  try {
    return new Wkt(s.replace(/^SRID=\d+;/i, '')).geometry();
  } catch {
    return null;
  }
}

/** A small recursive-descent reader of WKT geometry text. */
class Wkt {
  private i = 0;
  constructor(private readonly s: string) {}

  geometry(): Geometry {
    const type = this.word().toUpperCase();
    if (/^(Z|M|ZM)$/i.test(this.peekWord())) this.word();
    if (this.peekWord().toUpperCase() === 'EMPTY') {
      this.word();
      return empty(type);
    }
    switch (type) {
      case 'POINT':
        return { type: 'Point', coordinates: this.wrapped(() => this.position()) };
      case 'LINESTRING':
        return { type: 'LineString', coordinates: this.positions() };
      case 'POLYGON':
        return { type: 'Polygon', coordinates: this.list(() => this.positions()) };
      case 'MULTIPOINT':
        // Both MULTIPOINT (1 2, 3 4) and MULTIPOINT ((1 2), (3 4)).
        return { type: 'MultiPoint', coordinates: this.list(() => (this.peek() === '(' ? this.wrapped(() => this.position()) : this.position())) };
      case 'MULTILINESTRING':
        return { type: 'MultiLineString', coordinates: this.list(() => this.positions()) };
      case 'MULTIPOLYGON':
        return { type: 'MultiPolygon', coordinates: this.list(() => this.list(() => this.positions())) };
      case 'GEOMETRYCOLLECTION':
        return { type: 'GeometryCollection', geometries: this.list(() => this.geometry()) };
      default:
        throw new Error(`Unknown WKT type ${type}`);
    }
  }

  private positions(): Position[] {
    return this.list(() => this.position());
  }

  private position(): Position {
    const x = this.number();
    const y = this.number();
    while (/[-+\d.]/.test(this.peek())) this.number(); // Z, M
    return [x, y];
  }

  private list<T>(item: () => T): T[] {
    return this.wrapped(() => {
      const out = [item()];
      while (this.peek() === ',') {
        this.i++;
        out.push(item());
      }
      return out;
    });
  }

  private wrapped<T>(inner: () => T): T {
    this.expect('(');
    const v = inner();
    this.expect(')');
    return v;
  }

  private skip(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }

  private peek(): string {
    this.skip();
    return this.s[this.i] ?? '';
  }

  private expect(ch: string): void {
    if (this.peek() !== ch) throw new Error(`Expected ${ch} at ${this.i}`);
    this.i++;
  }

  private peekWord(): string {
    this.skip();
    return /^[A-Za-z]+/.exec(this.s.slice(this.i))?.[0] ?? '';
  }

  private word(): string {
    const w = this.peekWord();
    if (!w) throw new Error(`Expected a word at ${this.i}`);
    this.i += w.length;
    return w;
  }

  private number(): number {
    this.skip();
    const m = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(this.s.slice(this.i));
    if (!m) throw new Error(`Expected a number at ${this.i}`);
    this.i += m[0].length;
    return Number(m[0]);
  }
}

function empty(type: string): Geometry {
  if (type === 'GEOMETRYCOLLECTION') return { type: 'GeometryCollection', geometries: [] };
  const name = { POINT: 'MultiPoint', LINESTRING: 'LineString', POLYGON: 'Polygon', MULTIPOINT: 'MultiPoint', MULTILINESTRING: 'MultiLineString', MULTIPOLYGON: 'MultiPolygon' }[type];
  if (!name) throw new Error(`Unknown WKT type ${type}`);
  return { type: name, coordinates: [] } as unknown as Geometry;
}

/** Web Mercator as geojson-vt uses it: x, y in 0..1 from the antimeridian and the north edge. */
export const MERCATOR_MAX_LAT = 85.0511287798066;
export const mercX = (lng: number) => lng / 360 + 0.5;
export function mercY(lat: number): number {
  const sin = Math.sin((Math.max(-MERCATOR_MAX_LAT, Math.min(MERCATOR_MAX_LAT, lat)) * Math.PI) / 180);
  return 0.5 - (0.25 * Math.log((1 + sin) / (1 - sin))) / Math.PI;
}
export const lngOf = (x: number) => (x - 0.5) * 360;
export const latOf = (y: number) => (360 / Math.PI) * Math.atan(Math.exp((1 - 2 * y) * Math.PI)) - 90;

/** The geometry's kind for TileJSON: Point, LineString or Polygon (multi-parts count as their part). */
export function kindOf(g: Geometry): 'Point' | 'LineString' | 'Polygon' | 'Mixed' {
  if (g.type === 'GeometryCollection') {
    const kinds = new Set(g.geometries.map(kindOf));
    return kinds.size === 1 ? [...kinds][0]! : 'Mixed';
  }
  return g.type.replace(/^Multi/, '') as 'Point' | 'LineString' | 'Polygon';
}

/** [minX, minY, maxX, maxY] in Mercator units, or null for a geometry without a finite position. */
export function mercatorBox(g: Geometry): [number, number, number, number] | null {
  const box: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  const visit = (c: unknown): void => {
    if (!Array.isArray(c)) return;
    if (typeof c[0] === 'number') {
      const [lng, lat] = c as number[];
      if (!Number.isFinite(lng) || !Number.isFinite(lat)) return;
      const x = mercX(lng!);
      const y = mercY(lat!);
      if (x < box[0]) box[0] = x;
      if (y < box[1]) box[1] = y;
      if (x > box[2]) box[2] = x;
      if (y > box[3]) box[3] = y;
      return;
    }
    for (const part of c) visit(part);
  };
  const walk = (geom: Geometry) => (geom.type === 'GeometryCollection' ? geom.geometries.forEach(walk) : visit(geom.coordinates));
  walk(g);
  return box[0] <= box[2] ? box : null;
}
