import { BLOB, BOOLEAN, DOUBLE, INTEGER, LIST, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import { cellToBoundary, isValidCell, polygonToCells } from 'h3-js';
import { SpatialInputError, checkSrid } from './args';
import { registerFunction, type FunctionSpec, type Row } from './define';
import { area, distance, fromPlane, geodesicCircle, geodesicDistance, length, perimeter, toPlane } from './geodesic';
import { Geos, type GeomPtr, type Overlay, type Predicate, type Unary } from './geos';
import { JOIN_FUNCTIONS } from './join/functions';
import { unionWkb } from './union';
import { NEAREST_FUNCTIONS } from './nearest';
import { registerExactTest } from './join/exact';
import { registerProbeKey } from './join/key';
import { geoJson, mapPositions, pointWkb, pointXY, polygonWkb, positions, readWkb, simpleParts, writeWkb, type Position, type Shape } from './wkb';

/**
 * The spatial SQL functions, with PostGIS's names and argument order. Data is WGS 84 longitude/latitude.
 * Predicates and constructions are planar in lon/lat, as PostGIS answers on `geometry` (GEOS, the same engine);
 * distances, lengths, areas, buffer radii and ST_DWithin's distance are metres on the WGS 84 spheroid, as PostGIS
 * answers on `geography`. Geometry results are WKB BLOBs (core DuckDB's GEOMETRY cannot be made from JS), which every
 * function takes back. docs/spatial-sql.md has the table of every function.
 */

/** The result of a GEOS construction as WKB; the intermediate geometry is destroyed. */
function wkbOf(geos: Geos, g: GeomPtr): Uint8Array {
  try {
    return geos.toWKB(g);
  } finally {
    geos.destroy(g);
  }
}

const isEmptyShape = (s: Shape) => positions(s).next().done === true;

/** Minimum/maximum of an ordinate over a shape's positions; null when empty. */
function extent(s: Shape, axis: 0 | 1, pick: typeof Math.min): number | null {
  let v: number | null = null;
  for (const p of positions(s)) v = v === null ? p[axis] : pick(v, p[axis]);
  return v;
}

/**
 * A binary predicate, with the prepared-geometry fast paths a join needs: the polygon side of ST_Contains /
 * ST_Within / ST_Intersects / ST_Covers is prepared once it repeats, and a point made by ST_Point is tested by its
 * coordinates, no GEOS point made.
 */
function predicate(r: Row, p: Predicate): boolean {
  // within(a, b) is contains(b, a): prepare b.
  const [big, small, as] = p === 'within' ? [1, 0, 'contains' as const] : [0, 1, p];
  if (as === 'contains' || as === 'intersects' || as === 'covers') {
    const prepared = r.prepared(big);
    if (prepared) {
      const v = r.value(small);
      const xy = v.bytes ? pointXY(v.bytes) : null;
      if (xy && as !== 'covers' && !Number.isNaN(xy[0])) return r.geos.preparedXY(as, prepared, xy[0], xy[1]);
      return r.geos.preparedPredicate(as, prepared, r.geom(small));
    }
  }
  return r.geos.predicate(as, r.geom(big), r.geom(small));
}

/** ST_Distance in metres on the spheroid (geography: edges are geodesics, containment is on the sphere). */
function metres(r: Row): number {
  const a = r.shape(0);
  const b = r.shape(1);
  if (isEmptyShape(a) || isEmptyShape(b)) return NaN;
  if (a.type === 'Point' && b.type === 'Point') return geodesicDistance(a.coordinates!, b.coordinates!);
  return distance(a, b);
}

/** Centre of a shape's bounding box, for the buffer's projection. */
function centreOf(s: Shape): Position {
  const x0 = extent(s, 0, Math.min)!, x1 = extent(s, 0, Math.max)!, y0 = extent(s, 1, Math.min)!, y1 = extent(s, 1, Math.max)!;
  return [(x0 + x1) / 2, (y0 + y1) / 2];
}

/**
 * ST_Buffer in metres: the shape is projected to an azimuthal equidistant plane centred on it (distances from the
 * centre exact on the spheroid), buffered there by GEOS, and projected back. PostGIS's geography buffer does the same
 * through a UTM or polar plane it picks; the areas agree within 1% for radii up to a few hundred km.
 */
function bufferMetres(r: Row): Uint8Array {
  const s = r.shape(0);
  const radius = r.num(1);
  const segs = r.count > 2 ? r.num(2) : 8;
  if (!Number.isFinite(radius)) throw new SpatialInputError('ST_Buffer: argument 2 (the radius in metres) must be a finite number');
  if (!(segs >= 1 && segs <= 1000)) throw new SpatialInputError('ST_Buffer: argument 3 (segments a quarter circle) must be 1 to 1000');
  if (isEmptyShape(s)) return writeWkb({ type: 'Polygon', coordinates: [] });
  if (s.type === 'Point' && radius > 0) return geodesicCircle(s.coordinates!, radius, Math.round(segs));
  const centre = centreOf(s);
  const planar = r.geos.fromWKB(writeWkb(mapPositions(s, (p) => toPlane(centre, p))));
  try {
    const buffered = readWkb(wkbOf(r.geos, r.geos.buffer(planar, radius, Math.round(segs))));
    return writeWkb(mapPositions(buffered, (p) => fromPlane(centre, p)));
  } finally {
    r.geos.destroy(planar);
  }
}

/** ST_Union over rows (the sandbox rewrites `ST_Union(geom)` to `st_union_agg(list(geom))`): union.ts. */
function unionAll(r: Row): Uint8Array | null {
  const parts: Uint8Array[] = [];
  for (const item of r.list(0)) {
    if (item === null || item === undefined) continue;
    const value = typeof item === 'string' ? { text: item } : { bytes: (item as { bytes: Uint8Array }).bytes };
    parts.push(value.bytes ?? r.geos.toWKB(r.reader.geom(1, value)));
  }
  return parts.length ? unionWkb(r.geos, parts) : null;
}

const srid = (r: Row, k: number, fn: string) => { if (r.count > k) checkSrid(fn, r.num(k)); };

const resolution = (fn: string, res: number) => {
  if (!(Number.isInteger(res) && res >= 0 && res <= 15)) throw new SpatialInputError(`${fn}: resolution ${res} is outside 0..15`);
  return res;
};

/** H3 cells (hex text, as the h3_* functions) whose centres lie in the polygon(s). */
function cellsOf(r: Row): string[] {
  const res = resolution('h3_polygon_to_cells', r.num(1));
  const cells = new Set<string>();
  let polygons = 0;
  for (const part of simpleParts(r.shape(0))) {
    if (part.kind !== 'polygon') continue;
    polygons++;
    for (const c of polygonToCells(part.rings, res, true)) cells.add(c);
  }
  if (!polygons && !isEmptyShape(r.shape(0))) throw new SpatialInputError(`h3_polygon_to_cells: argument 1 is a ${r.shape(0).type}, not a polygon`);
  return [...cells].sort();
}

function cellPolygon(r: Row): Uint8Array | null {
  const cell = r.text(0);
  if (!isValidCell(cell)) throw new SpatialInputError(`h3_cell_to_boundary: argument 1 is not an H3 cell: ${JSON.stringify(cell.slice(0, 40))}`);
  const ring = cellToBoundary(cell, true) as Position[];
  const [f, l] = [ring[0]!, ring[ring.length - 1]!];
  if (f[0] !== l[0] || f[1] !== l[1]) ring.push([f[0], f[1]]);
  return polygonWkb([ring]);
}

const geomType = (s: Shape) => `ST_${s.type}`;

const pointCoord = (fn: string, s: Shape, axis: 0 | 1) => {
  if (s.type !== 'Point') throw new SpatialInputError(`${fn}: argument 1 is a ${s.type}, not a point`);
  return s.coordinates ? s.coordinates[axis] : null;
};

/** Geometry text to WKB, for the constructors that say which text they take. */
function fromText(r: Row, fn: string, want: 'wkt' | 'geojson'): Uint8Array {
  const t = r.text(0).trimStart();
  if (want === 'geojson' && !t.startsWith('{')) throw new SpatialInputError(`${fn}: argument 1 is not GeoJSON: ${JSON.stringify(t.slice(0, 40))}`);
  if (want === 'wkt' && (t.startsWith('{') || !/^(SRID=\d+;\s*)?[A-Za-z]/i.test(t))) throw new SpatialInputError(`${fn}: argument 1 is not WKT: ${JSON.stringify(t.slice(0, 40))}`);
  return r.geos.toWKB(r.reader.geom(1, { text: t }));
}

const unary = (label: string, op: Unary): FunctionSpec => ({ label, args: ['geom'], returns: BLOB, row: (r) => wkbOf(r.geos, r.geos.unary(op, r.geom(0))) });
const overlay = (label: string, op: Overlay): FunctionSpec => ({ label, args: ['geom', 'geom'], returns: BLOB, row: (r) => wkbOf(r.geos, r.geos.overlay(op, r.geom(0), r.geom(1))) });
const pred = (label: string, p: Predicate): FunctionSpec => ({ label, args: ['geom', 'geom'], returns: BOOLEAN, row: (r) => predicate(r, p) });
/**
 * Measures of shapes the reader keeps (text values, cached by value): a join measuring one polygon per point pays
 * GeographicLib (~3 µs a vertex) once, not once a row.
 */
const measured = new WeakMap<Shape, Map<string, number>>();
const measure = (label: string, f: (s: Shape) => number): FunctionSpec => ({
  label, args: ['geom'], returns: DOUBLE,
  row: (r) => {
    const s = r.shape(0);
    let m = measured.get(s);
    if (!m) measured.set(s, (m = new Map()));
    let v = m.get(label);
    if (v === undefined) m.set(label, (v = f(s)));
    return v;
  },
});
const bound = (label: string, axis: 0 | 1, pick: typeof Math.min): FunctionSpec => ({ label, args: ['geom'], returns: DOUBLE, row: (r) => extent(r.shape(0), axis, pick) });

/** Every function, as registered. Names that core DuckDB also has (st_astext, st_aswkb) get ours as an ANY overload: core keeps GEOMETRY. */
export const SPATIAL_FUNCTIONS: FunctionSpec[] = [
  // Constructors
  { label: 'ST_Point', args: ['num', 'num'], optional: ['num'], returns: BLOB, row: (r) => (srid(r, 2, 'ST_Point'), pointWkb(r.num(0), r.num(1))) },
  {
    label: 'ST_MakeEnvelope', args: ['num', 'num', 'num', 'num'], optional: ['num'], returns: BLOB,
    row: (r) => {
      srid(r, 4, 'ST_MakeEnvelope');
      const [x0, y0, x1, y1] = [r.num(0), r.num(1), r.num(2), r.num(3)];
      return polygonWkb([[[x0, y0], [x0, y1], [x1, y1], [x1, y0], [x0, y0]]]);
    },
  },
  { label: 'ST_GeomFromText', args: ['text'], optional: ['num'], returns: BLOB, row: (r) => (srid(r, 1, 'ST_GeomFromText'), fromText(r, 'ST_GeomFromText', 'wkt')) },
  { label: 'ST_GeomFromGeoJSON', args: ['text'], returns: BLOB, row: (r) => fromText(r, 'ST_GeomFromGeoJSON', 'geojson') },
  // Core DuckDB's st_geomfromwkb(BLOB) answers GEOMETRY and cannot be overloaded on BLOB: the sandbox maps ST_GeomFromWKB here.
  {
    label: 'ST_GeomFromWKB', name: 'studio_st_geomfromwkb', args: ['geom'], optional: ['num'], returns: BLOB,
    row: (r) => {
      srid(r, 1, 'ST_GeomFromWKB');
      const v = r.value(0);
      if (!v.bytes) throw new SpatialInputError('ST_GeomFromWKB: argument 1 must be WKB (a BLOB), not text');
      r.shape(0); // reads it through: malformed WKB is named here, not later
      return r.geos.toWKB(r.geom(0));
    },
  },
  // Outputs
  { label: 'ST_AsText', args: ['geom'], returns: VARCHAR, row: (r) => r.geos.toWKT(r.geom(0)) },
  { label: 'ST_AsGeoJSON', args: ['geom'], optional: ['num'], returns: VARCHAR, row: (r) => geoJson(r.shape(0), r.count > 1 ? r.num(1) : 9) },
  { label: 'ST_AsWKB', args: ['geom'], returns: BLOB, row: (r) => r.geos.toWKB(r.geom(0)) },
  // Predicates (planar, GEOS)
  pred('ST_Intersects', 'intersects'),
  pred('ST_Contains', 'contains'),
  pred('ST_Within', 'within'),
  pred('ST_Covers', 'covers'),
  pred('ST_Touches', 'touches'),
  pred('ST_Disjoint', 'disjoint'),
  {
    label: 'ST_DWithin', args: ['geom', 'geom', 'num'], returns: BOOLEAN,
    row: (r) => {
      const d = r.num(2);
      if (!(d >= 0)) throw new SpatialInputError('ST_DWithin: argument 3 (the distance in metres) must be 0 or more');
      const m = metres(r);
      return Number.isNaN(m) ? false : m <= d;
    },
  },
  // Measures (metres, square metres on the WGS 84 spheroid)
  { label: 'ST_Distance', args: ['geom', 'geom'], returns: DOUBLE, row: metres },
  measure('ST_Area', area),
  measure('ST_Length', length),
  measure('ST_Perimeter', perimeter),
  // Constructions
  { label: 'ST_Buffer', args: ['geom', 'num'], optional: ['num'], returns: BLOB, row: bufferMetres },
  unary('ST_Centroid', 'centroid'),
  unary('ST_PointOnSurface', 'pointOnSurface'),
  unary('ST_ConvexHull', 'convexHull'),
  unary('ST_Envelope', 'envelope'),
  unary('ST_MakeValid', 'makeValid'),
  overlay('ST_Intersection', 'intersection'),
  overlay('ST_Difference', 'difference'),
  overlay('ST_Union', 'union'),
  { label: 'ST_Union_Agg', args: ['list'], returns: BLOB, row: unionAll },
  { label: 'ST_Simplify', args: ['geom', 'num'], returns: BLOB, row: (r) => wkbOf(r.geos, r.geos.simplify(r.geom(0), r.num(1))) },
  // Accessors
  { label: 'ST_X', args: ['geom'], returns: DOUBLE, row: (r) => pointCoord('ST_X', r.shape(0), 0) },
  { label: 'ST_Y', args: ['geom'], returns: DOUBLE, row: (r) => pointCoord('ST_Y', r.shape(0), 1) },
  bound('ST_XMin', 0, Math.min),
  bound('ST_XMax', 0, Math.max),
  bound('ST_YMin', 1, Math.min),
  bound('ST_YMax', 1, Math.max),
  { label: 'ST_GeometryType', args: ['geom'], returns: VARCHAR, row: (r) => geomType(r.shape(0)) },
  { label: 'ST_NPoints', args: ['geom'], returns: INTEGER, row: (r) => [...positions(r.shape(0))].length },
  { label: 'ST_IsValid', args: ['geom'], returns: BOOLEAN, row: (r) => r.geos.isValid(r.geom(0)) },
  { label: 'ST_IsEmpty', args: ['geom'], returns: BOOLEAN, row: (r) => isEmptyShape(r.shape(0)) },
  // H3 bridges
  { label: 'h3_polygon_to_cells', args: ['geom', 'num'], returns: LIST(VARCHAR), row: cellsOf },
  { label: 'h3_cell_to_boundary', args: ['text'], returns: BLOB, row: cellPolygon },
];

/**
 * Registers every spatial function on a connection (they land in the database's catalog, so every connection of
 * that instance has them). Loads GEOS on first call.
 */
export async function registerSpatialFunctions(connection: DuckDBConnection): Promise<void> {
  const geos = await Geos.load();
  for (const spec of [...SPATIAL_FUNCTIONS, ...JOIN_FUNCTIONS, ...NEAREST_FUNCTIONS]) registerFunction(connection, geos, spec);
  registerProbeKey(connection, geos);
  registerExactTest(connection, geos);
}
