import { StudioError, badInput, conflict } from '@studio/schema';
import type { Expr } from '../expr/ast';
import { containsAggregate, parseExpression, parseItem, parseSortKey } from '../expr/parse';
import type { NodeOf, PipelineNode } from '../nodes';
import { validatePipeline } from '../validate';
import type { Dialect } from './dialect';
import { h3Unavailable } from './dialect';
import { duckdb } from './duckdb';
import { bareColumns, compileExpr, defaultName, type ExprCtx } from './expr';
import { hexifyCells } from './hexify';
import { csvColumns, jsonColumns, type Columns } from './inline';
import { Params } from './params';
import { postgres } from './postgres';
import { SpatialCompiler } from './spatial';
import { TileCompiler, type TileCols, type TileResolver } from './tiles';

export type DatasetResolver = (uuid: string) => { relationSql: string };
/** The rows of a databaseQuery node, already fetched from its connection by whoever compiles (a relation to read). */
export type QueryResolver = (node: { connectionId: string; query: string; params?: string[] }) => { relationSql: string };
export type CompileContext = {
  dialect: 'duckdb' | 'postgres' | Dialect;
  resolveDataset: DatasetResolver;
  /** Hex-tile datasets (hexTile, tileExtract, tileQuantiles nodes); without it those nodes answer 409. */
  resolveTiles?: TileResolver;
  /** databaseQuery nodes; without it they answer 409 (the engine cannot reach a connection by itself). */
  resolveQuery?: QueryResolver;
};
/** `spatialJoins`: the SQL joins on a spatial predicate; a DuckDB run has the spatial-join planner rewrite it first. */
export type CompiledQuery = { sql: string; params: unknown[]; spatialJoins?: boolean };

export const DIALECTS: Record<'duckdb' | 'postgres', Dialect> = { duckdb, postgres };

/**
 * A compiled node: the CTE holding it, after a sort the ORDER BY to keep re-applying downstream, and
 * for hex tile nodes their cell/time/field columns (what tileJoin joins on).
 */
type Rel = { cte: string; order?: string; tile?: TileCols };

class Compiler {
  private readonly ctes: string[] = [];
  readonly params: Params;
  private readonly tiles: TileCompiler<Rel>;
  readonly spatial: SpatialCompiler<Rel>;
  constructor(readonly d: Dialect, private readonly resolve: DatasetResolver, resolveTiles?: TileResolver, private readonly resolveQuery?: QueryResolver) {
    this.params = new Params(d);
    this.tiles = new TileCompiler<Rel>(this, resolveTiles);
    this.spatial = new SpatialCompiler<Rel>(this);
  }

  add(sql: string, order?: string, tile?: TileCols): Rel {
    const cte = `_n${this.ctes.length}`;
    this.ctes.push(`${cte} AS (${sql})`);
    return { cte, ...(order !== undefined && { order }), ...(tile && { tile }) };
  }
  private q = (s: string) => this.d.quoteIdent(s);
  private expr(e: Expr, qualifier?: string): string {
    const ctx: ExprCtx = qualifier ? { dialect: this.d, params: this.params, qualifier } : { dialect: this.d, params: this.params };
    return compileExpr(e, ctx);
  }
  private dataset(uuid: string): string {
    return this.resolve(uuid).relationSql;
  }

  finish(root: Rel): string {
    return `WITH ${this.ctes.join(',\n')}\nSELECT * FROM ${root.cte}${root.order ? ` ORDER BY ${root.order}` : ''}`;
  }

  /** Compiles one node; a StudioError raised for it gets the node's path, like validation errors. */
  node(n: PipelineNode, path = ''): Rel {
    const child = (i: number) => this.node(n.input[i]!, `${path ? `${path}.` : ''}input[${i}]`);
    try {
      return this.build(n, child);
    } catch (e) {
      if (e instanceof StudioError && !e.details?.startsWith('at ')) {
        const where = `at ${path || 'root'} (${n.type})`;
        throw new StudioError(e.status, e.message, e.details ? `${where}; ${e.details}` : where, e.appStatusCode);
      }
      throw e;
    }
  }

  private build(n: PipelineNode, child: (i: number) => Rel): Rel {
    switch (n.type) {
      case 'dataset': return this.add(`SELECT * FROM ${this.dataset(n.uuid)}`);
      case 'inline_data': return this.add(this.columns(n.format === 'CSV' ? csvColumns(n.data) : jsonColumns(n.data)));
      case 'hexify': {
        const cells = hexifyCells(n.geojson, n.res);
        return this.add(`SELECT unnest(CAST(${this.params.add(cells)} AS ${this.d.typeName('varchar')}[])) AS ${this.q(n.columnName ?? 'hex')}`);
      }
      case 'filter': {
        const prev = child(0);
        const e = parseExpression(n.expression);
        if (containsAggregate(e)) throw badInput('filter node: aggregate functions are not allowed in a filter (use a group node)');
        return this.add(`SELECT * FROM ${prev.cte} WHERE ${this.expr(e)}`, prev.order);
      }
      case 'select': return this.select(n, child(0));
      case 'group': return this.group(n, child(0));
      case 'sort': {
        const prev = child(0);
        const order = n.by
          .map((s) => parseSortKey(s))
          .map((k) => (this.d.orderKey ? this.d.orderKey(this.expr(k.expr), k.desc) : `${this.expr(k.expr)} ${k.desc ? 'DESC' : 'ASC'} NULLS LAST`))
          .join(', ');
        return this.add(`SELECT * FROM ${prev.cte}`, order);
      }
      case 'limit': {
        const prev = child(0);
        const lim = `LIMIT ${this.params.add(n.length)}${n.offset ? ` OFFSET ${this.params.add(n.offset)}` : ''}`;
        return this.add(`SELECT * FROM ${prev.cte}${prev.order ? ` ORDER BY ${prev.order}` : ''} ${lim}`, prev.order);
      }
      case 'join': {
        const l = child(0);
        const r = child(1);
        const keys = [...new Set(n.on.flatMap((o) => o.columns))];
        const kind = n.join === 'FULL' ? 'FULL OUTER' : n.join === 'LEFT' ? 'LEFT OUTER' : 'INNER';
        // USING: equal keys, one key column in the output, coalesced in a FULL join, NULL never matches.
        return this.add(`SELECT * FROM ${l.cte} ${kind} JOIN ${r.cte} USING (${keys.map(this.q).join(', ')})`);
      }
      case 'enrich': return this.enrich(n, child(0));
      case 'databaseQuery':
        if (!this.resolveQuery) throw conflict('The databaseQuery node needs a data connection', `connectionId ${n.connectionId} is not available to the pipeline engine`);
        return this.add(`SELECT * FROM ${this.resolveQuery(n).relationSql}`);
      case 'hexTile': return this.tiles.hexTile(n);
      case 'tileExtract': return this.tiles.tileExtract(n);
      case 'tileQuantiles': return this.tiles.tileQuantiles(n);
      case 'tileJoin': return this.tiles.tileJoin(n.input.map((_, i) => child(i)));
      case 'spatialJoin': return this.spatial.join(n, child(0), child(1));
      case 'aggregateInPolygons': return this.spatial.aggregateInPolygons(n, child(0), child(1));
      case 'nearest': return this.spatial.nearest(n, child(0), child(1));
      case 'buffer': return this.spatial.buffer(n, child(0));
      case 'centroid': return this.spatial.centroid(n, child(0));
      case 'measure': return this.spatial.measure(n, child(0));
      case 'dissolve': return this.spatial.dissolve(n, child(0));
      case 'clip': return this.spatial.clip(n, child(0), child(1));
    }
  }

  private columns(cols: Columns): string {
    const list = cols.map((c) => `unnest(CAST(${this.params.add(c.values)} AS ${this.d.typeName(c.type)}[])) AS ${this.q(c.name)}`);
    return `SELECT ${list.join(', ')}`;
  }

  private items(exprs: string[], offset = 0) {
    return exprs.map((text, i) => {
      const item = parseItem(text);
      return { ...item, name: item.alias ?? defaultName(item.expr, text, i + offset) };
    });
  }

  private select(n: NodeOf<'select'>, prev: Rel): Rel {
    if (n.expressions.length === 1 && n.expressions[0]!.trim() === '*') return this.add(`SELECT * FROM ${prev.cte}`, prev.order);
    const items = this.items(n.expressions);
    for (const it of items) {
      if (containsAggregate(it.expr)) throw badInput(`select node: aggregate functions belong in a group node ('${it.text}')`);
    }
    const list = items.map((it) => `${this.expr(it.expr)} AS ${this.q(it.name)}`).join(', ');
    // The previous sort still orders this projection (ORDER BY may read input columns), but not beyond it.
    return this.add(`SELECT ${list} FROM ${prev.cte}${prev.order ? ` ORDER BY ${prev.order}` : ''}`);
  }

  private group(n: NodeOf<'group'>, prev: Rel): Rel {
    const by = this.items(n.by);
    const aggs = this.items(n.expressions, by.length);
    const byCols = new Set(by.filter((b) => b.expr.kind === 'column').map((b) => (b.expr as { name: string }).name));
    for (const b of by) {
      if (containsAggregate(b.expr)) throw badInput(`group node: 'by' cannot hold an aggregate ('${b.text}')`);
    }
    for (const a of aggs) {
      for (const c of bareColumns(a.expr)) {
        if (!byCols.has(c)) throw badInput(`group node: column ${c} must be in 'by' or inside an aggregate ('${a.text}')`);
      }
    }
    const list = [...by, ...aggs].map((it) => `${this.expr(it.expr)} AS ${this.q(it.name)}`).join(', ');
    const groupBy = by.length ? ` GROUP BY ${by.map((_, i) => i + 1).join(', ')}` : '';
    return this.add(`SELECT ${list} FROM ${prev.cte}${groupBy}`);
  }

  private enrich(n: NodeOf<'enrich'>, prev: Rel): Rel {
    const src = this.dataset((n.sourceId ?? n.source)!);
    const cell = this.q(n.sourceCellColumn ?? 'hex');
    const add = (Array.isArray(n.sourceColumn) ? n.sourceColumn : [n.sourceColumn!]).map((c) => `s.${this.q(c)}`);
    let on: string;
    if (n.targetType === 'H3') on = `i.${this.q(n.column!)} = s.${cell}`;
    else {
      if (!this.d.h3) throw h3Unavailable(this.d.name);
      // The input's points are indexed at the source's resolution (read from its first cell).
      const res = `(SELECT h3_get_resolution(${cell}) FROM ${src} WHERE ${cell} IS NOT NULL LIMIT 1)`;
      on = `h3_latlng_to_cell(i.${this.q(n.latColumn!)}, i.${this.q(n.lngColumn!)}, ${res}) = s.${cell}`;
    }
    if (n.timeColumn && n.timeInterval) {
      const unit = `'${n.timeInterval.toLowerCase()}'`;
      const st = this.q(n.sourceTimeColumn ?? n.timeColumn);
      on += ` AND ${this.d.call('date_trunc', [unit, `i.${this.q(n.timeColumn)}`])} = ${this.d.call('date_trunc', [unit, `s.${st}`])}`;
    }
    return this.add(`SELECT i.*, ${add.join(', ')} FROM ${prev.cte} AS i LEFT OUTER JOIN ${src} AS s ON ${on}`);
  }
}

/**
 * Validates and compiles a pipeline to one SQL statement (a chain of CTEs) plus its bound parameters.
 * Throws StudioError: 422 for bad input, 409 when a node needs something this engine lacks.
 */
export function compilePipeline(node: unknown, ctx: CompileContext): CompiledQuery {
  const valid = validatePipeline(node);
  const dialect = typeof ctx.dialect === 'string' ? DIALECTS[ctx.dialect] : ctx.dialect;
  if (!dialect) throw badInput(`Unknown SQL dialect: ${String(ctx.dialect)}`);
  const c = new Compiler(dialect, ctx.resolveDataset, ctx.resolveTiles, ctx.resolveQuery);
  const root = c.node(valid);
  return { sql: c.finish(root), params: c.params.values, ...(c.spatial.joins && { spatialJoins: true }) };
}

export { StudioError };
