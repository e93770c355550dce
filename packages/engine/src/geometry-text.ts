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

/**
 * WKT of a GeoJSON geometry, as DuckDB's GEOMETRY type reads it ('POINT (1 2)'); null for one without a
 * position (WKT's EMPTY forms are not written: a GeoParquet reader counts those as rows with no geometry).
 */
export function toWkt(g: Geometry): string | null {
  const pos = (p: Position) => `${p[0]} ${p[1]}`;
  const ring = (ps: Position[]) => `(${ps.map(pos).join(', ')})`;
  const rings = (rs: Position[][]) => `(${rs.map(ring).join(', ')})`;
  switch (g.type) {
    case 'Point':
      return g.coordinates.length >= 2 ? `POINT (${pos(g.coordinates)})` : null;
    case 'MultiPoint':
      return g.coordinates.length ? `MULTIPOINT (${g.coordinates.map((p) => `(${pos(p)})`).join(', ')})` : null;
    case 'LineString':
      return g.coordinates.length ? `LINESTRING ${ring(g.coordinates)}` : null;
    case 'MultiLineString':
      return g.coordinates.length ? `MULTILINESTRING ${rings(g.coordinates)}` : null;
    case 'Polygon':
      return g.coordinates.length ? `POLYGON ${rings(g.coordinates)}` : null;
    case 'MultiPolygon':
      return g.coordinates.length ? `MULTIPOLYGON (${g.coordinates.map(rings).join(', ')})` : null;
    case 'GeometryCollection': {
      const parts = g.geometries.map(toWkt).filter((w): w is string => w !== null);
      return parts.length ? `GEOMETRYCOLLECTION (${parts.join(', ')})` : null;
    }
  }
}
