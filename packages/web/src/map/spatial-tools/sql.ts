import { duckdbDialect } from '@studio/pipeline';

/** A layer's catalog dataset as the tools read it: its id (what the SQL names), name, columns and detected place. */
export interface ToolSource {
  id: string;
  name: string;
  columns: string[];
  detected: { latitude?: string; longitude?: string; geometry?: string };
}

export const SPATIAL_TOOLS = {
  join: { label: 'Join to…', other: 'Join to', needsMetres: false },
  count: { label: 'Count points in polygons', other: 'Polygons', needsMetres: false },
  buffer: { label: 'Buffer', other: null, needsMetres: true },
  nearest: { label: 'Nearest…', other: 'Nearest of', needsMetres: true },
} as const;
export type SpatialTool = keyof typeof SPATIAL_TOOLS;

/** The column the count of points lands in: the choropleth colours the polygons by it. */
export const COUNT_COLUMN = 'point_count';
/** The buffer's polygons, as GeoJSON text (what kepler.gl draws and the catalog detects as geometry). */
export const BUFFER_COLUMN = '_geojson';

const q = duckdbDialect.quoteIdent;

/** The columns that place a dataset's rows: its geometry column, else its latitude/longitude pair. */
function placeColumns(s: ToolSource): string[] {
  if (s.detected.geometry) return [s.detected.geometry];
  if (s.detected.latitude && s.detected.longitude) return [s.detected.latitude, s.detected.longitude];
  throw new Error(`${s.name} has no geometry or latitude/longitude columns for a spatial tool to use`);
}

/** The geometry of `s`'s rows under `alias`: its geometry column as it stands (GeoJSON or WKT text), or a point. */
export function geometryOf(s: ToolSource, alias: string): string {
  const [first, second] = placeColumns(s);
  return second ? `ST_Point(${alias}.${q(second)}, ${alias}.${q(first!)})` : `${alias}.${q(first!)}`;
}

const list = (alias: string, columns: string[]) => columns.map((c) => `${alias}.${q(c)}`);

/** `other`'s columns beside `base`'s, its place columns left out (the result is drawn by `base`'s), names kept apart. */
function otherColumns(base: ToolSource, other: ToolSource, prefix: string): string[] {
  const place = new Set(placeColumns(other));
  const taken = new Set(base.columns.map((c) => c.toLowerCase()));
  return other.columns.filter((c) => !place.has(c)).map((c) => {
    const name = taken.has(c.toLowerCase()) ? `${prefix}${c}` : c;
    taken.add(name.toLowerCase());
    return `b.${q(c)} AS ${q(name)}`;
  });
}

function positiveMetres(metres: number | undefined, what: string): number {
  if (metres === undefined || !Number.isFinite(metres) || metres <= 0) throw new Error(`${what} must be a number of metres above 0`);
  return metres;
}

/**
 * The SELECT a tool runs over the layers' datasets (named by id), for POST /v1/datasets/query: the result becomes a
 * catalog dataset and a layer. `a` is the layer the tool was opened on; `b` the other layer (count: the polygons).
 */
export function toolQuery(tool: SpatialTool, a: ToolSource, b: ToolSource | null, metres?: number): string {
  const needB = () => {
    if (!b) throw new Error(`${SPATIAL_TOOLS[tool].label.replace('…', '')} needs a second layer`);
    return b;
  };
  switch (tool) {
    case 'count': {
      // Every polygon, with how many of the points it contains (0 for none: a LEFT JOIN counts no point).
      const polygons = needB();
      const cols = list('b', polygons.columns);
      return `SELECT ${cols.join(', ')}, count(${list('a', placeColumns(a).slice(0, 1))[0]}) AS ${q(COUNT_COLUMN)} FROM ${q(polygons.id)} AS b LEFT JOIN ${q(a.id)} AS a ON ST_Contains(${geometryOf(polygons, 'b')}, ${geometryOf(a, 'a')}) GROUP BY ${cols.join(', ')}`;
    }
    case 'join': {
      // Each feature of a with the attributes of the features of b it intersects (none: NULLs, the feature kept).
      const other = needB();
      return `SELECT ${[...list('a', a.columns), ...otherColumns(a, other, 'joined_')].join(', ')} FROM ${q(a.id)} AS a LEFT JOIN ${q(other.id)} AS b ON ST_Intersects(${geometryOf(a, 'a')}, ${geometryOf(other, 'b')})`;
    }
    case 'buffer': {
      // The buffer replaces the feature's place: the layer drawn is the polygons, not the points they came from.
      const r = positiveMetres(metres, 'The buffer radius');
      const place = new Set(placeColumns(a));
      const kept = a.columns.filter((c) => !place.has(c) && c !== BUFFER_COLUMN);
      return `SELECT ${[...list('a', kept), `ST_AsGeoJSON(ST_Buffer(${geometryOf(a, 'a')}, ${r})) AS ${q(BUFFER_COLUMN)}`].join(', ')} FROM ${q(a.id)} AS a`;
    }
    case 'nearest': {
      // Each feature of a with the nearest feature of b within the distance and that distance in metres (spheroid).
      const other = needB();
      const max = positiveMetres(metres, 'The search distance');
      const distance = `ST_Distance(${geometryOf(a, 'a')}, ${geometryOf(other, 'b')})`;
      const cols = list('a', a.columns);
      return `SELECT ${[...cols, ...otherColumns(a, other, 'nearest_'), `${distance} AS ${q('distance_m')}`].join(', ')} FROM ${q(a.id)} AS a LEFT JOIN ${q(other.id)} AS b ON ST_DWithin(${geometryOf(a, 'a')}, ${geometryOf(other, 'b')}, ${max}) QUALIFY row_number() OVER (PARTITION BY ${cols.join(', ')} ORDER BY ${distance}) = 1`;
    }
  }
}
