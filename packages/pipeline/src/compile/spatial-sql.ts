import type { SpatialPredicate } from '../nodes/common';

/**
 * How one warehouse writes the spatial steps' SQL. Geometry arguments are compiled SQL (a column, a call);
 * metres are compiled SQL too (a cast parameter). An operation a warehouse cannot express is left out, and the
 * step that needs it answers 409 naming itself (spatial.ts). Semantics everywhere: predicates planar in lon/lat
 * (PostGIS geometry), measures in metres on the spheroid (PostGIS geography); where a warehouse differs
 * docs/spatial-sql.md says how.
 */
export interface SpatialSql {
  predicate(p: Exclude<SpatialPredicate, 'dwithin'>, a: string, b: string): string | undefined;
  dwithin(a: string, b: string, metres: string): string | undefined;
  distance(a: string, b: string): string | undefined;
  area(g: string): string | undefined;
  length(g: string): string | undefined;
  buffer(g: string, metres: string): string | undefined;
  centroid(g: string): string | undefined;
  /** The union of a group's geometries (an aggregate). */
  unionAgg(g: string): string | undefined;
  intersection(a: string, b: string): string | undefined;
  /** A geometry a step made, as the step's output column holds it. */
  out(g: string): string;
  /**
   * Rows tagged with a row id and given back with their own columns only, for steps that group per input row
   * (aggregateInPolygons, nearest) without knowing its columns. Absent: those steps answer 409.
   */
  keyed?: RowKeys;
}

export interface RowKeys {
  /** SELECT of `rel`'s rows with the id column `id` (and whatever `column` and `all` read). */
  tag(rel: string, id: string): string;
  /** A column of a tagged row under `alias`. */
  column(alias: string, quoted: string): string;
  /** The tagged row's own columns, without the id (a select-list entry). */
  all(alias: string, id: string): string;
}

const PREDICATES = { intersects: 'ST_Intersects', contains: 'ST_Contains', within: 'ST_Within', covers: 'ST_Covers' } as const;

/** `* EXCLUDE (id)` / `* EXCEPT (id)`: engines that can drop a column from a star. */
const starWithout = (word: string): RowKeys => ({
  tag: (rel, id) => `SELECT *, row_number() OVER () AS ${id} FROM ${rel}`,
  column: (alias, c) => `${alias}.${c}`,
  all: (alias, id) => `${alias}.* ${word} (${id})`,
});

/** DuckDB with the studio's functions (packages/spatial): metres already, geometry given back as GeoJSON text. */
export const duckdbSpatial: SpatialSql = {
  predicate: (p, a, b) => `${PREDICATES[p]}(${a}, ${b})`,
  dwithin: (a, b, d) => `ST_DWithin(${a}, ${b}, ${d})`,
  distance: (a, b) => `ST_Distance(${a}, ${b})`,
  area: (g) => `ST_Area(${g})`,
  length: (g) => `ST_Length(${g})`,
  buffer: (g, d) => `ST_Buffer(${g}, ${d})`,
  centroid: (g) => `ST_Centroid(${g})`,
  // JS cannot register aggregates: the union of a list, as the SQL sandbox rewrites ST_Union(g).
  unionAgg: (g) => `st_union_agg(list(${g}))`,
  intersection: (a, b) => `ST_Intersection(${a}, ${b})`,
  // Our functions answer WKB BLOBs; datasets, the map and the grid read GeoJSON text (as an upload's _geojson).
  out: (g) => `ST_AsGeoJSON(${g})`,
  keyed: starWithout('EXCLUDE'),
};

const pgGeom = (g: string) => `CAST(${g} AS geometry)`;
const pgGeog = (g: string) => `CAST(${g} AS geography)`;

/** PostgreSQL with PostGIS: predicates on geometry, metres through geography (spheroid, as ours). */
export const postgisSpatial: SpatialSql = {
  predicate: (p, a, b) => `${PREDICATES[p]}(${pgGeom(a)}, ${pgGeom(b)})`,
  dwithin: (a, b, d) => `ST_DWithin(${pgGeog(a)}, ${pgGeog(b)}, ${d})`,
  distance: (a, b) => `ST_Distance(${pgGeog(a)}, ${pgGeog(b)})`,
  area: (g) => `ST_Area(${pgGeog(g)})`,
  length: (g) => `ST_Length(${pgGeog(g)})`,
  buffer: (g, d) => pgGeom(`ST_Buffer(${pgGeog(g)}, ${d})`),
  centroid: (g) => `ST_Centroid(${pgGeom(g)})`,
  unionAgg: (g) => `ST_Union(${pgGeom(g)})`,
  intersection: (a, b) => `ST_Intersection(${pgGeom(a)}, ${pgGeom(b)})`,
  out: (g) => g,
  // No star-minus-column in PostgreSQL: the row travels whole as a record and is expanded at the end.
  keyed: {
    tag: (rel, id) => `SELECT row_number() OVER () AS ${id}, t AS "__studio_row" FROM ${rel} AS t`,
    column: (alias, c) => `(${alias}."__studio_row").${c}`,
    all: (alias) => `(${alias}."__studio_row").*`,
  },
};

/** GEOGRAPHY (spherical edges, metres on the sphere): BigQuery. Columns are GEOGRAPHY as stored. */
export const bigquerySpatial: SpatialSql = {
  predicate: (p, a, b) => `${PREDICATES[p].toUpperCase()}(${a}, ${b})`,
  dwithin: (a, b, d) => `ST_DWITHIN(${a}, ${b}, ${d})`,
  distance: (a, b) => `ST_DISTANCE(${a}, ${b})`,
  area: (g) => `ST_AREA(${g})`,
  length: (g) => `ST_LENGTH(${g})`,
  buffer: (g, d) => `ST_BUFFER(${g}, ${d})`,
  centroid: (g) => `ST_CENTROID(${g})`,
  unionAgg: (g) => `ST_UNION_AGG(${g})`,
  intersection: (a, b) => `ST_INTERSECTION(${a}, ${b})`,
  out: (g) => g,
  keyed: starWithout('EXCEPT'),
};

/** Snowflake GEOGRAPHY: as BigQuery, but ST_BUFFER takes GEOMETRY only (planar units), so no buffer. */
export const snowflakeSpatial: SpatialSql = { ...bigquerySpatial, buffer: () => undefined, keyed: starWithout('EXCLUDE') };

/**
 * Redshift: predicates on GEOMETRY; metres through GEOGRAPHY (ST_Distance, ST_Area, ST_Length). Its ST_Buffer is
 * planar only and it has no union aggregate nor a star without a column: buffer, dissolve, clip,
 * aggregateInPolygons and nearest answer 409.
 */
export const redshiftSpatial: SpatialSql = {
  predicate: (p, a, b) => `${PREDICATES[p]}(${a}, ${b})`,
  dwithin: (a, b, d) => `(ST_Distance(CAST(${a} AS GEOGRAPHY), CAST(${b} AS GEOGRAPHY)) <= ${d})`,
  distance: (a, b) => `ST_Distance(CAST(${a} AS GEOGRAPHY), CAST(${b} AS GEOGRAPHY))`,
  area: (g) => `ST_Area(CAST(${g} AS GEOGRAPHY))`,
  length: (g) => `ST_Length(CAST(${g} AS GEOGRAPHY))`,
  buffer: () => undefined,
  centroid: (g) => `ST_Centroid(${g})`,
  unionAgg: () => undefined,
  intersection: () => undefined,
  out: (g) => g,
};

const sph = (g: string) => `to_spherical_geography(${g})`;
/**
 * Trino / Presto / Athena: GEOMETRY predicates (no ST_Covers); metres through SphericalGeography (great-circle
 * distance between points, areas and lengths on the sphere). Its ST_Buffer is planar: no buffer.
 */
export const trinoSpatial: SpatialSql = {
  predicate: (p, a, b) => (p === 'covers' ? undefined : `${PREDICATES[p]}(${a}, ${b})`),
  dwithin: (a, b, d) => `(ST_Distance(${sph(a)}, ${sph(b)}) <= ${d})`,
  distance: (a, b) => `ST_Distance(${sph(a)}, ${sph(b)})`,
  area: (g) => `ST_Area(${sph(g)})`,
  length: (g) => `ST_Length(${sph(g)})`,
  buffer: () => undefined,
  centroid: (g) => `ST_Centroid(${g})`,
  unionAgg: (g) => `geometry_union_agg(${g})`,
  intersection: (a, b) => `ST_Intersection(${a}, ${b})`,
  out: (g) => g,
};
