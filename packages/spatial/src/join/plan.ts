/**
 * The spatial-join planner, on DuckDB's JSON AST (json_serialize_sql): an INNER JOIN whose ON has (in its AND chain)
 * ST_Intersects / ST_Contains / ST_Within / ST_Covers / ST_DWithin between a geometry of one side and one of the other
 * becomes a hash equi-join on grid keys (grid.ts) with the exact predicate kept as the residual test:
 *
 *   FROM pts p JOIN counties c ON ST_Contains(c.geom, p.geom)
 *   →
 *   FROM (SELECT *, studio_sj_key(p.geom, S) AS __sj1_k FROM pts p) p
 *   JOIN (SELECT * EXCLUDE (__sj1_r), unnest(generate_series(<the run's entries>)) AS __sj1_e
 *         FROM (SELECT * EXCLUDE (__sj1_c), __sj1_c[1] AS __sj1_h, unnest(__sj1_c[2:]) AS __sj1_r
 *               FROM (SELECT *, studio_sj_cover(c.geom, S) AS __sj1_c FROM counties c) c) c) c
 *     ON p.__sj1_k = c.__sj1_e // 4 AND (c.__sj1_e % 4 = 1 OR <the exact test on the prepared geometry numbered __sj1_h>)
 *   where S = (SELECT studio_sj_scale(quantile_cont(studio_sj_extent(c.geom), 0.5), max(studio_sj_size(c.geom)),
 *              (SELECT count(*) FROM pts p), count(*)) FROM counties c)
 *
 * Each build row lists a cell at most once and each probe row has one key, so no pair is produced twice and the
 * answer is the nested loop's. Interior cells (flag 1) accept without the test only when the build side is the
 * container (ST_Contains/ST_Covers's first argument, ST_Within's second, either of ST_Intersects). The exact test
 * finds the build geometry by its number (registry.ts), so the join never carries the geometry. The helper columns
 * are taken out of every `*` of the enclosing SELECT. LEFT and RIGHT joins of two relations are planned through the
 * inner join (planOuterJoin). Left as written (a nested loop, still correct): FULL joins, predicates under OR,
 * arguments with unqualified columns or subqueries, and sides that are not single relations.
 */
import { OP_CODE } from './exact';
import { GRID, RUN } from './grid';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type AstNode = { [k: string]: Json };

const RAW = JSON as unknown as { isRawJSON?: (v: unknown) => boolean };
const isObj = (v: Json | undefined): v is AstNode => typeof v === 'object' && v !== null && !Array.isArray(v) && !RAW.isRawJSON?.(v);

const PREDICATES = new Set(['st_intersects', 'st_contains', 'st_within', 'st_covers', 'st_dwithin']);

// AST builders (the shapes json_serialize_sql writes).
const col = (...names: string[]): AstNode => ({ class: 'COLUMN_REF', type: 'COLUMN_REF', alias: '', query_location: 0, column_names: names });
const int = (v: number): AstNode => ({ class: 'CONSTANT', type: 'VALUE_CONSTANT', alias: '', query_location: 0, value: { type: { id: 'INTEGER', type_info: null }, is_null: false, value: v } });
const bigConst = (v: number): AstNode => ({ class: 'CONSTANT', type: 'VALUE_CONSTANT', alias: '', query_location: 0, value: { type: { id: 'BIGINT', type_info: null }, is_null: false, value: v } });
const dbl = (v: number): AstNode => ({ class: 'CONSTANT', type: 'VALUE_CONSTANT', alias: '', query_location: 0, value: { type: { id: 'DOUBLE', type_info: null }, is_null: false, value: v } });
const fn = (name: string, children: Json[], operator = false, alias = ''): AstNode => ({
  class: 'FUNCTION', type: 'FUNCTION', alias, query_location: 0, function_name: name, schema: '', children,
  filter: null, order_bys: { type: 'ORDER_MODIFIER', orders: [] }, distinct: false, is_operator: operator, export_state: false, catalog: '',
});
const eq = (left: Json, right: Json): AstNode => ({ class: 'COMPARISON', type: 'COMPARE_EQUAL', alias: '', query_location: 0, left, right });
const conj = (type: 'AND' | 'OR', children: Json[]): AstNode => ({ class: 'CONJUNCTION', type: `CONJUNCTION_${type}`, alias: '', query_location: 0, children });
const star = (): AstNode => ({ class: 'STAR', type: 'STAR', alias: '', query_location: 0, relation_name: '', exclude_list: [], replace_list: [], columns: false, expr: null, qualified_exclude_list: [], rename_list: [] });
const select = (list: Json[], from: Json): AstNode => ({
  type: 'SELECT_NODE', modifiers: [], cte_map: { map: [] }, select_list: list, from_table: from, where_clause: null, group_expressions: [], group_sets: [],
  aggregate_handling: 'STANDARD_HANDLING', having: null, sample: null, qualify: null,
});
const subqueryRef = (alias: string, node: AstNode): AstNode => ({ type: 'SUBQUERY', alias, sample: null, query_location: 0, subquery: { node, named_param_map: [] }, column_name_alias: [] });
const scalar = (node: AstNode): AstNode => ({ class: 'SUBQUERY', type: 'SUBQUERY', alias: '', query_location: 0, subquery_type: 'SCALAR', subquery: { node, named_param_map: [] }, child: null, comparison_type: 'INVALID' });
const tryBigint = (child: Json): AstNode => ({ class: 'CAST', type: 'OPERATOR_CAST', alias: '', query_location: 0, child, cast_type: { id: 'BIGINT', type_info: null }, try_cast: true });
const between = (input: Json, lower: Json, upper: Json): AstNode => ({ class: 'BETWEEN', type: 'COMPARE_BETWEEN', alias: '', query_location: 0, input, lower, upper });
const caseWhen = (when: Json, then: Json, otherwise: Json): AstNode => ({ class: 'CASE', type: 'CASE_EXPR', alias: '', query_location: 0, case_checks: [{ when_expr: when, then_expr: then }], else_expr: otherwise });
const clone = <T extends Json>(v: T): T => structuredClone(v);

/**
 * The probe key of `ST_Point(x, y)` as SQL arithmetic (grid.ts's pointKey): DuckDB computes it vectorised, where a JS
 * function pays a native call a row to read each WKB value (3.5 µs measured on a loaded machine).
 */
function pointKeySql(x: Json, y: Json, scale: Json): AstNode {
  const cell = (v: Json) => tryBigint(fn('floor', [fn('*', [clone(v), clone(scale)], true)]));
  const inRange = (c: AstNode) => between(c, int(-GRID.limit + 1), int(GRID.limit - 1));
  const [ix, iy] = [cell(x), cell(y)];
  const key = fn('+', [fn('*', [fn('+', [clone(ix), int(GRID.offset)], true), int(GRID.row)], true), fn('+', [clone(iy), int(GRID.offset)], true)], true);
  return caseWhen(conj('AND', [inRange(ix), inRange(iy)]), key, bigConst(GRID.globalKey));
}

/** The name a FROM item is referred to by, when it is one relation. */
function relationName(ref: AstNode): string | null {
  if (typeof ref.alias === 'string' && ref.alias) return ref.alias;
  if (ref.type === 'BASE_TABLE' && typeof ref.table_name === 'string') return ref.table_name;
  return null;
}

/** The single relations under a FROM item (through nested joins), by lowercased name, with where they hang. */
function relations(ref: Json | undefined, out = new Map<string, { holder: AstNode; key: string }>(), holder?: AstNode, key?: string): Map<string, { holder: AstNode; key: string }> {
  if (!isObj(ref)) return out;
  if (ref.type === 'JOIN') {
    relations(ref.left, out, ref, 'left');
    relations(ref.right, out, ref, 'right');
  } else if (holder && key) {
    const name = relationName(ref);
    if (name) out.set(name.toLowerCase(), { holder, key });
  }
  return out;
}

/** The relation names an expression's columns name (null when one is unqualified or there is a subquery). */
function referenced(e: Json, out = new Set<string>()): Set<string> | null {
  if (Array.isArray(e)) {
    for (const x of e) if (!referenced(x, out)) return null;
    return out;
  }
  if (!isObj(e)) return out;
  if (e.class === 'SUBQUERY' || e.class === 'STAR' || e.class === 'LAMBDA') return null;
  if (e.class === 'COLUMN_REF') {
    const names = e.column_names as string[];
    if (names.length < 2) return null;
    out.add(names[names.length - 2]!.toLowerCase());
    return out;
  }
  for (const [k, v] of Object.entries(e)) if (k !== 'alias' && !referenced(v, out)) return null;
  return out;
}

const andChain = (e: Json): Json[] => (isObj(e) && e.class === 'CONJUNCTION' && e.type === 'CONJUNCTION_AND' ? (e.children as Json[]).flatMap(andChain) : [e]);

interface State { n: number }

/** Plans one join node in place; answers the helper columns to take out of `*`, by relation. */
function planJoin(join: AstNode, st: State): { rel: string; column: string }[] {
  if (join.join_type !== 'INNER' || join.ref_type !== 'REGULAR' || !isObj(join.condition)) return [];
  const left = relations(join.left, new Map(), join, 'left');
  const right = relations(join.right, new Map(), join, 'right');
  const parts = andChain(join.condition);
  for (let i = 0; i < parts.length; i++) {
    const call = parts[i];
    if (!isObj(call) || call.class !== 'FUNCTION' || (call.schema && call.schema !== '')) continue;
    const name = String(call.function_name).toLowerCase();
    const args = call.children as Json[];
    if (!PREDICATES.has(name) || args.length !== (name === 'st_dwithin' ? 3 : 2)) continue;
    const [ra, rb] = [referenced(args[0]!), referenced(args[1]!)];
    if (!ra || !rb || ra.size !== 1 || rb.size !== 1) continue;
    const [a, b] = [[...ra][0]!, [...rb][0]!];
    const sideOf = (r: string) => (left.has(r) ? 'left' : right.has(r) ? 'right' : null);
    if (!sideOf(a) || !sideOf(b) || sideOf(a) === sideOf(b)) continue;
    // The build side is the container where there is one, else the JOIN's right side (hash joins build the right).
    const buildArg = name === 'st_within' ? 1 : name === 'st_contains' || name === 'st_covers' ? 0 : sideOf(a) === 'right' ? 0 : 1;
    const buildRel = buildArg === 0 ? a : b;
    const probeRel = buildArg === 0 ? b : a;
    let metres: Json | null = null;
    if (name === 'st_dwithin') {
      const rd = referenced(args[2]!);
      if (!rd || [...rd].some((r) => r !== buildRel)) continue;
      metres = args[2]!;
    }
    const buildAt = (left.get(buildRel) ?? right.get(buildRel))!;
    const probeAt = (left.get(probeRel) ?? right.get(probeRel))!;
    const n = ++st.n;
    const [k, e] = [`__sj${n}_k`, `__sj${n}_e`];
    const buildRef = buildAt.holder[buildAt.key] as AstNode;
    const probeRef = probeAt.holder[probeAt.key] as AstNode;
    const buildName = relationName(buildRef)!, probeName = relationName(probeRef)!;
    const [h, covered] = [`__sj${n}_h`, `__sj${n}_c`];
    const extent = () => fn('studio_sj_extent', [clone(args[buildArg]!), ...(metres ? [clone(metres)] : [])]);
    const size = fn('studio_sj_size', [clone(args[buildArg]!), ...(metres ? [clone(metres)] : [])]);
    // The probe side's rows, where counting them is cheap (a table, a file's metadata), size the cells (grid.ts).
    const countable = !metres && (probeRef.type === 'BASE_TABLE' || probeRef.type === 'TABLE_FUNCTION');
    const rows = countable ? [scalar(select([fn('count_star', [])], clone(probeRef))), fn('count_star', [])] : [];
    const scale = scalar(select([fn('studio_sj_scale', [fn('quantile_cont', [extent(), dbl(0.5)]), fn('max', [size]), ...rows])], clone(buildRef)));
    const cover = fn('studio_sj_cover', [clone(args[buildArg]!), clone(scale), ...(metres ? [clone(metres)] : [])], false, covered);
    // (SELECT * EXCLUDE (r), unnest(generate_series(r // M, r // M + r % M * STEP, STEP)) AS e FROM (SELECT * EXCLUDE
    // (c), c[1] AS h, unnest(c[2:]) AS r FROM (SELECT *, studio_sj_cover(...) AS c FROM build))): the cover's first
    // element is the geometry's number in the registry (registry.ts), the rest its runs of entries (grid.ts's RUN).
    const run = `__sj${n}_r`;
    const inner = subqueryRef(buildName, select([star(), cover], buildRef));
    const rest = fn('list_slice', [col(buildName, covered), int(2), fn('len', [col(buildName, covered)])]);
    const runs = subqueryRef(buildName, select([{ ...star(), exclude_list: [covered] }, fn('list_extract', [col(buildName, covered), int(1)], false, h), fn('unnest', [rest], false, run)], inner));
    const first = fn('//', [col(buildName, run), int(RUN.max)], true);
    const last = fn('+', [clone(first), fn('*', [fn('%', [col(buildName, run), int(RUN.max)], true), int(RUN.step)], true)], true);
    buildAt.holder[buildAt.key] = subqueryRef(buildName, select([{ ...star(), exclude_list: [run] }, fn('unnest', [fn('generate_series', [first, last, int(RUN.step)])], false, e)], runs));
    const probeArg = args[1 - buildArg] as AstNode;
    const xy = probeArg.class === 'FUNCTION' && String(probeArg.function_name).toLowerCase() === 'st_point' && (probeArg.children as Json[]).length === 2 ? (probeArg.children as Json[]) : null;
    if (xy) {
      // The key's arithmetic names the scale four times: read it from a one-row subquery joined on, so the scale
      // (a pass over the build side) is worked out once for the probe side, not once per mention.
      const sName = `__sj${n}_s`;
      const scaleRow = subqueryRef(sName, select([{ ...scale, alias: 'v' }], { type: 'EMPTY', alias: '', sample: null, query_location: 0 }));
      const cross: AstNode = { type: 'JOIN', alias: '', sample: null, query_location: 0, left: probeRef, right: scaleRow, condition: null, join_type: 'INNER', ref_type: 'CROSS', using_columns: [], delim_flipped: false, duplicate_eliminated_columns: [] };
      probeAt.holder[probeAt.key] = subqueryRef(probeName, select([{ ...star(), relation_name: probeName }, { ...pointKeySql(xy[0]!, xy[1]!, col(sName, 'v')), alias: k }], cross));
    } else {
      probeAt.holder[probeAt.key] = subqueryRef(probeName, select([star(), fn('studio_sj_key', [clone(probeArg), scale], false, k)], probeRef));
    }
    const keyEq = eq(col(probeName, k), fn('//', [col(buildName, e), int(4)], true));
    let test: AstNode = call;
    if (name !== 'st_dwithin') {
      const opName = name === 'st_covers' ? 'covers' : name === 'st_intersects' ? 'intersects' : 'contains';
      const op = { type: 'VALUE_CONSTANT', class: 'CONSTANT', alias: '', query_location: 0, value: { type: { id: 'VARCHAR', type_info: null }, is_null: false, value: opName } };
      // The exact test on the prepared build geometry by its number (registry.ts): the join never carries the build value.
      const known = xy
        ? fn('studio_sj_xy', [int(OP_CODE[opName]), col(buildName, h), clone(xy[0]!), clone(xy[1]!)])
        : fn('studio_sj_test', [op, col(buildName, h), clone(probeArg)]);
      // Interior cells (flag 1) hold only for a point probe, which is keyed at level 0, the only level with flags.
      test = conj('OR', [eq(fn('%', [col(buildName, e), int(4)], true), int(1)), known]);
    }
    parts.splice(i, 1, keyEq, test);
    join.condition = conj('AND', parts);
    return [{ rel: buildName, column: e }, { rel: buildName, column: h }, { rel: probeName, column: k }];
  }
  return [];
}

/** Takes the helper columns out of the `*`s of a SELECT's list. */
function hideHelpers(node: AstNode, helpers: { rel: string; column: string }[]): void {
  for (const item of node.select_list as Json[]) {
    if (!isObj(item) || item.class !== 'STAR') continue;
    const rel = String(item.relation_name ?? '');
    if (!rel) {
      (item.qualified_exclude_list as Json[]).push(...helpers.map((h) => ({ catalog: '', schema: '', table: h.rel, column: h.column })));
    } else {
      (item.exclude_list as Json[]).push(...helpers.filter((h) => h.rel.toLowerCase() === rel.toLowerCase()).map((h) => h.column));
    }
  }
}

function walk(node: Json | undefined, st: State, enclosing: AstNode | null, helpers: { rel: string; column: string }[]): void {
  if (Array.isArray(node)) {
    for (const x of node) walk(x, st, enclosing, helpers);
    return;
  }
  if (!isObj(node)) return;
  if (node.type === 'SELECT_NODE') {
    const mine: { rel: string; column: string }[] = [];
    for (const [key, v] of Object.entries(node)) if (key !== 'select_list') walk(v, st, node, key === 'from_table' ? mine : []);
    walk(node.select_list, st, node, []);
    if (mine.length) hideHelpers(node, mine);
    return;
  }
  // Inner joins first (a chain's left side), then this one.
  for (const v of Object.values(node)) walk(v, st, enclosing, helpers);
  if (node.type === 'JOIN') helpers.push(...(node.join_type === 'LEFT' || node.join_type === 'RIGHT' ? planOuterJoin(node, st, enclosing) : planJoin(node, st)));
}

const baseRef = (table: string, alias: string): AstNode => ({
  type: 'BASE_TABLE', alias, sample: null, query_location: 0, schema_name: '', table_name: table, column_name_alias: [], catalog_name: '', at_clause: null,
});
const rowNumber = (alias: string): AstNode => ({
  class: 'WINDOW', type: 'WINDOW_ROW_NUMBER', alias, query_location: 0, function_name: 'row_number', schema: '', catalog: '', children: [], partitions: [], orders: [],
  start: 'UNBOUNDED_PRECEDING', end: 'CURRENT_ROW_RANGE', start_expr: null, end_expr: null, offset_expr: null, default_expr: null, ignore_nulls: false,
  filter_expr: null, exclude_clause: 'NO_OTHER', distinct: false, arg_orders: [],
});

/**
 * A LEFT (or RIGHT) JOIN between two relations on a spatial predicate: DuckDB runs an outer join's residual that is
 * not a comparison as a nested loop, so the planned inner join is made first and the preserved side joined to its
 * matches by a row number, an equi-join:
 *
 *   FROM p LEFT JOIN c ON ST_Contains(c.geom, p.geom) AND <rest>
 *   →
 *   WITH __sj2_a AS MATERIALIZED (SELECT *, row_number() OVER () AS __sj2_id FROM p p)
 *   FROM __sj2_a p LEFT JOIN (SELECT c.*, p.__sj2_id AS __sj2_m FROM __sj2_a p JOIN c ON <the planned inner join>) c
 *     ON p.__sj2_id = c.__sj2_m
 *
 * Each preserved row meets exactly its inner-join matches, or none and one NULL row: the outer join's answer. The
 * preserved side is materialised once (so both references see the same numbers); either side may be the build side.
 */
function planOuterJoin(join: AstNode, st: State, enclosing: AstNode | null): { rel: string; column: string }[] {
  if (join.ref_type !== 'REGULAR' || !enclosing || !isObj(join.condition)) return [];
  const keptKey = join.join_type === 'LEFT' ? 'left' : 'right';
  const otherKey = keptKey === 'left' ? 'right' : 'left';
  const [kept, other] = [join[keptKey], join[otherKey]];
  if (!isObj(kept) || !isObj(other) || kept.type === 'JOIN' || other.type === 'JOIN') return [];
  const keptName = relationName(kept), otherName = relationName(other);
  if (!keptName || !otherName) return [];
  const before = st.n;
  const inner: AstNode = { ...join, join_type: 'INNER', [keptKey]: baseRef('', keptName), [otherKey]: other, condition: clone(join.condition) };
  const cte = `__sj${before + 1}_a`, id = `__sj${before + 1}_id`, match = `__sj${before + 1}_m`;
  (inner[keptKey] as AstNode).table_name = cte;
  const helpers = planJoin(inner, st);
  if (!helpers.length) return [];
  const matches = select([{ ...star(), relation_name: otherName }, { ...col(keptName, id), alias: match }], inner);
  hideHelpers(matches, helpers);
  const numbered = select([star(), rowNumber(id)], kept);
  const ctes = ((enclosing.cte_map as AstNode).map as Json[]);
  ctes.push({ key: cte, value: { aliases: [], query: { node: numbered, named_param_map: [] }, materialized: 'CTE_MATERIALIZE_ALWAYS', key_targets: [] } });
  join[keptKey] = baseRef(cte, keptName);
  join[otherKey] = subqueryRef(otherName, matches);
  join.condition = eq(col(keptName, id), col(otherName, match));
  return [{ rel: keptName, column: id }, { rel: otherName, column: match }];
}

/**
 * Rewrites, in place, every spatial join of a parsed statement (json_serialize_sql's output, or any node of it) into
 * the indexed plan above; answers how many joins it planned. Run it after the sandbox's checks: the plan reads the
 * same relations the query reads and calls only the studio's registered functions.
 */
export function planSpatialJoins(ast: AstNode): number {
  const st: State = { n: 0 };
  walk(ast, st, null, []);
  return st.n;
}
