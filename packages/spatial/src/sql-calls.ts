/**
 * Calls the registered functions cannot take as written, mapped on the parsed SQL (DuckDB's JSON AST of a function
 * call) by the SQL sandbox's rewrite: JS can register neither aggregates nor a second function of one name.
 * - `ST_Union(geom)` with one argument is PostGIS's aggregate: `st_union_agg(list(geom))` (its DISTINCT, FILTER and
 *   ORDER BY move onto `list`); `ST_Union(a, b)` stays the two-geometry union.
 * - `ST_GeomFromWKB(...)`: core DuckDB owns `st_geomfromwkb(BLOB)` (it answers GEOMETRY and says nothing of the function
 *   on bad WKB), so calls go to ours, `studio_st_geomfromwkb`, which answers WKB and names ST_GeomFromWKB in errors.
 * - Any other `ST_` name is not one the studio has: a 422 saying so, instead of DuckDB's advice to install its spatial
 *   extension (which cannot be done here).
 */
import { badInput } from '@studio/schema';
import { SPATIAL_FUNCTIONS } from './functions';

/** ST_ names core DuckDB 1.5 has itself (on its GEOMETRY type). */
const CORE_ST = ['st_asbinary', 'st_astext', 'st_aswkb', 'st_aswkt', 'st_crs', 'st_geomfromwkb', 'st_intersects_extent', 'st_setcrs'];
const KNOWN_ST = new Set([...CORE_ST, ...SPATIAL_FUNCTIONS.map((f) => (f.name ?? f.label).toLowerCase())]);

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

/** The call node to use instead of `node` (a FUNCTION node of the AST), or `node` itself. */
export function mapSpatialCall(node: Obj): Obj {
  const name = typeof node.function_name === 'string' ? node.function_name.toLowerCase() : '';
  const children = Array.isArray(node.children) ? node.children : [];
  if (name.startsWith('st_') && !KNOWN_ST.has(name)) {
    throw badInput(`${name.toUpperCase()} is not one of the studio's spatial functions (docs/spatial-sql.md lists them)`);
  }
  if (name === 'st_geomfromwkb') return { ...node, function_name: 'studio_st_geomfromwkb' };
  if (name === 'st_union' && children.length === 1) {
    const list: Obj = { ...node, function_name: 'list' };
    return {
      ...node,
      function_name: 'st_union_agg',
      children: [list],
      distinct: false,
      filter: null,
      order_bys: { type: 'ORDER_MODIFIER', orders: [] },
    };
  }
  return node;
}
