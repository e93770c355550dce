import { conflict } from '@studio/schema';
import type { NodeOf } from '../nodes';
import type { Dialect } from './dialect';
import type { Params } from './params';
import type { RowKeys, SpatialSql } from './spatial-sql';

export interface SpatialHost<R extends { cte: string }> {
  readonly d: Dialect;
  readonly params: Params;
  add(sql: string): R;
}

type SpatialStep = 'spatialJoin' | 'aggregateInPolygons' | 'nearest' | 'buffer' | 'centroid' | 'measure' | 'dissolve' | 'clip';

/** The id column of tagged rows; a name no dataset column is expected to have. */
const ROW_ID = '__studio_rid';

/**
 * The eight spatial steps as SQL for the host's dialect. Every join on a spatial predicate is written by
 * `spatialJoin` below, in the plain `JOIN … ON ST_…(…)` form: the one place the indexed spatial-join planner
 * (packages/spatial) is to be applied to a pipeline's SQL.
 */
export class SpatialCompiler<R extends { cte: string }> {
  /** Whether the SQL holds a join on a spatial predicate (so the DuckDB run plans it: execute.ts). */
  joins = false;
  constructor(private readonly host: SpatialHost<R>) {}

  private get d() { return this.host.d; }
  private q = (s: string) => this.host.d.quoteIdent(s);
  private metres = (v: number) => `CAST(${this.host.params.add(v)} AS ${this.d.typeName('double')})`;

  /** The dialect's spatial SQL, or the 409 naming the step when it has none (or lacks `what`). */
  private sql(step: SpatialStep): SpatialSql {
    const s = this.d.spatial;
    if (!s) throw this.unavailable(step);
    return s;
  }
  private need(step: SpatialStep, sql: string | undefined, what?: string): string {
    if (sql === undefined) throw this.unavailable(step, what);
    return sql;
  }
  private keys(step: SpatialStep): RowKeys {
    return this.sql(step).keyed ?? (() => { throw this.unavailable(step); })();
  }
  private unavailable(step: SpatialStep, what?: string) {
    return conflict(
      `The ${step} step${what ? ` (${what})` : ''} has no equivalent on ${this.d.name}`,
      "Run this pipeline on the studio's own engine (a snapshot of the dataset)",
    );
  }

  /** `FROM a JOIN b ON pred`: every spatial join of every step goes through here (the planner's place). */
  private spatialJoin(left: string, kind: 'INNER' | 'LEFT', right: string, on: string): string {
    this.joins = true;
    return `FROM ${left} ${kind === 'LEFT' ? 'LEFT OUTER' : 'INNER'} JOIN ${right} ON ${on}`;
  }

  private predicate(step: SpatialStep, p: NodeOf<'spatialJoin'>['predicate'], a: string, b: string, distance?: number): string {
    const s = this.sql(step);
    return p === 'dwithin' ? this.need(step, s.dwithin(a, b, this.metres(distance!)), 'dwithin') : this.need(step, s.predicate(p, a, b), p);
  }

  join(n: NodeOf<'spatialJoin'>, l: R, r: R): R {
    const on = this.predicate('spatialJoin', n.predicate, `l.${this.q(n.leftGeometry)}`, `r.${this.q(n.rightGeometry)}`, n.distance);
    const cols = ['l.*', ...n.columns.map((c) => `r.${this.q(c)}`)].join(', ');
    return this.host.add(`SELECT ${cols} ${this.spatialJoin(`${l.cte} AS l`, n.join, `${r.cte} AS r`, on)}`);
  }

  aggregateInPolygons(n: NodeOf<'aggregateInPolygons'>, polygons: R, features: R): R {
    const step = 'aggregateInPolygons';
    const keys = this.keys(step);
    const id = this.q(ROW_ID);
    const tagged = this.host.add(keys.tag(polygons.cte, id));
    const on = this.predicate(step, n.predicate, keys.column('p', this.q(n.polygonGeometry)), `f.${this.q(n.featureGeometry)}`);
    // count(column) and count of features both skip the NULLs a LEFT join would bring: aggregate over an inner join, then join back.
    const aggs = n.aggregates.map((a) => `${a.op}(f.${this.q(a.column ?? n.featureGeometry)}) AS ${this.q(a.as)}`);
    const grouped = this.host.add(`SELECT p.${id} AS ${id}, ${aggs.join(', ')} ${this.spatialJoin(`${tagged.cte} AS p`, 'INNER', `${features.cte} AS f`, on)} GROUP BY p.${id}`);
    const out = n.aggregates.map((a) => (a.op === 'count' ? `coalesce(g.${this.q(a.as)}, 0) AS ${this.q(a.as)}` : `g.${this.q(a.as)}`));
    return this.host.add(`SELECT ${keys.all('p', id)}, ${out.join(', ')} FROM ${tagged.cte} AS p LEFT OUTER JOIN ${grouped.cte} AS g ON p.${id} = g.${id}`);
  }

  nearest(n: NodeOf<'nearest'>, left: R, right: R): R {
    const step = 'nearest';
    const s = this.sql(step);
    const keys = this.keys(step);
    const id = this.q(ROW_ID);
    const rank = this.q('__studio_rank');
    const dist = this.q(n.distanceColumn ?? 'distance');
    const tagged = this.host.add(keys.tag(left.cte, id));
    const a = keys.column('p', this.q(n.leftGeometry));
    const b = `r.${this.q(n.rightGeometry)}`;
    const on = this.need(step, s.dwithin(a, b, this.metres(n.maxDistance)), 'dwithin');
    const cols = n.columns.map((c) => `r.${this.q(c)} AS ${this.q(c)}`);
    const pairs = this.host.add(`SELECT p.${id} AS ${id}, ${[...cols, `${this.need(step, s.distance(a, b))} AS ${dist}`].join(', ')} ${this.spatialJoin(`${tagged.cte} AS p`, 'INNER', `${right.cte} AS r`, on)}`);
    const ranked = this.host.add(`SELECT *, row_number() OVER (PARTITION BY ${id} ORDER BY ${dist}) AS ${rank} FROM ${pairs.cte}`);
    const k = `CAST(${this.host.params.add(n.k)} AS ${this.d.typeName('bigint')})`;
    const keep = [...n.columns.map((c) => `x.${this.q(c)}`), `x.${dist}`].join(', ');
    return this.host.add(
      `SELECT ${keys.all('p', id)}, ${keep} FROM ${tagged.cte} AS p ${n.join === 'LEFT' ? 'LEFT OUTER' : 'INNER'} JOIN ${ranked.cte} AS x ON p.${id} = x.${id} AND x.${rank} <= ${k}`,
    );
  }

  buffer(n: NodeOf<'buffer'>, prev: R): R {
    const s = this.sql('buffer');
    const g = this.need('buffer', s.buffer(this.q(n.geometry), this.metres(n.distance)));
    return this.host.add(`SELECT *, ${s.out(g)} AS ${this.q(n.as ?? 'buffer')} FROM ${prev.cte}`);
  }

  centroid(n: NodeOf<'centroid'>, prev: R): R {
    const s = this.sql('centroid');
    const g = this.need('centroid', s.centroid(this.q(n.geometry)));
    return this.host.add(`SELECT *, ${s.out(g)} AS ${this.q(n.as ?? 'centroid')} FROM ${prev.cte}`);
  }

  measure(n: NodeOf<'measure'>, prev: R): R {
    const s = this.sql('measure');
    const g = this.q(n.geometry);
    const v = this.need('measure', n.measure === 'area' ? s.area(g) : s.length(g), n.measure);
    return this.host.add(`SELECT *, ${v} AS ${this.q(n.as ?? n.measure)} FROM ${prev.cte}`);
  }

  dissolve(n: NodeOf<'dissolve'>, prev: R): R {
    const s = this.sql('dissolve');
    const u = this.need('dissolve', s.unionAgg(this.q(n.geometry)));
    const by = n.by.map(this.q);
    const list = [...by, `${s.out(u)} AS ${this.q(n.as ?? n.geometry)}`].join(', ');
    return this.host.add(`SELECT ${list} FROM ${prev.cte}${by.length ? ` GROUP BY ${by.map((_, i) => i + 1).join(', ')}` : ''}`);
  }

  clip(n: NodeOf<'clip'>, features: R, polygons: R): R {
    const step = 'clip';
    const s = this.sql(step);
    // The clip polygons are unioned once, so overlapping polygons are not counted twice in a row's share.
    const whole = this.host.add(`SELECT ${this.need(step, s.unionAgg(`c.${this.q(n.clipGeometry)}`))} AS ${this.q('__studio_clip')} FROM ${polygons.cte} AS c`);
    const g = `f.${this.q(n.geometry)}`;
    const u = `u.${this.q('__studio_clip')}`;
    const as = this.q(n.as ?? 'clipped');
    const cut = this.need(step, s.intersection(g, u));
    const clipped = this.host.add(`SELECT f.*, ${s.out(cut)} AS ${as} ${this.spatialJoin(`${features.cte} AS f`, 'INNER', `${whole.cte} AS u`, this.predicate(step, 'intersects', g, u))}`);
    const share = this.d.divide(this.need(step, s.area(as)), this.need(step, s.area(this.q(n.geometry))));
    return this.host.add(`SELECT *, ${share} AS ${this.q(n.shareColumn ?? 'area_share')} FROM ${clipped.cte}`);
  }
}
