import type { DuckDBValue } from '@duckdb/node-api';
import { parseSelection, periodBounds, type PeriodType, type TemplateParameters } from '../params';

/** Trusted relation expressions (e.g. `read_parquet('/data/visits.parquet')`), chosen by the caller, never user text. */
export interface PanelTables {
  places: string;
  devices: string;
  visits: string;
}

export interface BuiltQuery {
  sql: string;
  values: DuckDBValue[];
}

/** Collects bound values and hands out numbered placeholders, so SQL text never contains user input. */
export class Binder {
  readonly values: DuckDBValue[] = [];
  bind(v: string | number): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
  str(v: string): string {
    return `CAST(${this.bind(v)} AS VARCHAR)`;
  }
  date(v: string): string {
    return `CAST(${this.bind(v)} AS DATE)`;
  }
  int(v: number): string {
    return `CAST(${this.bind(v)} AS INTEGER)`;
  }
  list(vs: readonly string[]): string {
    return `(${vs.map((v) => this.str(v)).join(', ')})`;
  }
}

/** Normalization constants of place-visits §3. */
export const MONTH_FACTOR = 30.4375;
export const QUARTER_FACTOR = 91.3125;

const addDays = (iso: string, n: number) => {
  const d = new Date(`${iso}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};
const minusYear = (iso: string) => `${Number(iso.slice(0, 4)) - 1}${iso.slice(4)}`.replace(/-02-29$/, '-02-28');

/**
 * The CTEs every template starts from: typed views of the three tables, the selections as bound VALUES
 * lists with their display names, and the places each selection matches.
 */
export function baseCtes(b: Binder, tables: PanelTables, p: TemplateParameters): string[] {
  const geos = p.geographies.map(parseSelection);
  const taxa = p.places.map(parseSelection);
  const values = (sels: { kind: string; id: string }[]) =>
    sels.length === 0
      ? `SELECT NULL::INTEGER, NULL::VARCHAR, NULL::VARCHAR WHERE false`
      : `VALUES ${sels.map((s, i) => `(${b.int(i)}, ${b.str(s.kind)}, ${b.str(s.id)})`).join(', ')}`;
  return [
    `pl AS NOT MATERIALIZED (SELECT CAST(place_id AS VARCHAR) AS place_id, CAST(chain_id AS VARCHAR) AS chain_id,
      CAST(chain AS VARCHAR) AS chain, CAST(category_id AS VARCHAR) AS category_id,
      CAST(category AS VARCHAR) AS category, CAST(country AS VARCHAR) AS country,
      CAST(dma_id AS VARCHAR) AS dma_id, CAST(dma_name AS VARCHAR) AS dma_name FROM ${tables.places})`,
    `dev AS NOT MATERIALIZED (SELECT CAST(device_id AS VARCHAR) AS device_id, CAST(age AS VARCHAR) AS age,
      CAST(gender AS VARCHAR) AS gender, CAST(income AS VARCHAR) AS income,
      CAST(weight AS DOUBLE) AS weight FROM ${tables.devices})`,
    `vis AS NOT MATERIALIZED (SELECT CAST(visit_id AS VARCHAR) AS visit_id, CAST(device_id AS VARCHAR) AS device_id,
      CAST(place_id AS VARCHAR) AS place_id, CAST(visit_start AS TIMESTAMP) AS visit_start,
      CAST(dwell_minutes AS DOUBLE) AS dwell_minutes FROM ${tables.visits})`,
    `geo_sel(gidx, gkind, gid) AS (${values(geos)})`,
    `tax_sel(pidx, pkind, pid) AS (${values(taxa)})`,
    // Display names by plain joins (correlated subqueries cost a delim join each).
    `geo_names AS (SELECT g.gidx, g.gkind AS geography_type, g.gid AS geography_id,
      CASE WHEN g.gkind = 'country' THEN g.gid ELSE coalesce(n.name, g.gid) END AS geography_value
      FROM geo_sel g LEFT JOIN (SELECT dma_id, min(dma_name) AS name FROM pl
        WHERE dma_id IN (SELECT gid FROM geo_sel WHERE gkind = 'dma') GROUP BY dma_id) n ON n.dma_id = g.gid AND g.gkind = 'dma')`,
    `tax_names AS (SELECT s.pidx, s.pkind AS place_taxonomy_type, s.pid AS place_taxonomy_id,
      coalesce(CASE WHEN s.pkind = 'chain' THEN c.name ELSE k.name END, s.pid) AS place_taxonomy_value
      FROM tax_sel s
        LEFT JOIN (SELECT chain_id, min(chain) AS name FROM pl WHERE chain_id IN (SELECT pid FROM tax_sel WHERE pkind = 'chain')
          GROUP BY chain_id) c ON c.chain_id = s.pid AND s.pkind = 'chain'
        LEFT JOIN (SELECT category_id, min(category) AS name FROM pl WHERE category_id IN (SELECT pid FROM tax_sel WHERE pkind = 'category')
          GROUP BY category_id) k ON k.category_id = s.pid AND s.pkind = 'category')`,
    `geo_places AS (SELECT g.gidx, pl.place_id FROM geo_sel g JOIN pl
      ON (g.gkind = 'country' AND pl.country = g.gid) OR (g.gkind = 'dma' AND pl.dma_id = g.gid))`,
    `tax_places AS (SELECT s.pidx, pl.place_id FROM tax_sel s JOIN pl
      ON (s.pkind = 'chain' AND pl.chain_id = s.pid) OR (s.pkind = 'category' AND pl.category_id = s.pid))`,
    `sel_places AS (SELECT gp.gidx, tp.pidx, gp.place_id FROM geo_places gp JOIN tax_places tp ON gp.place_id = tp.place_id)`,
  ];
}

/** SQL giving a period's label from its first day `col`. */
export function periodLabelSql(t: PeriodType, col: string): string {
  if (t === 'MONTHLY') return `strftime(${col}, '%Y-%m')`;
  if (t === 'QUARTERLY') return `strftime(${col}, '%Y') || '-Q' || CAST(quarter(${col}) AS VARCHAR)`;
  return `strftime(${col}, '%Y-%m-%d')`;
}
export const epochMsSql = (col: string) => `epoch_ms(CAST(${col} AS TIMESTAMP))`;
export const truncSql = (t: PeriodType, col: string) =>
  t === 'DAILY' ? `CAST(${col} AS DATE)` : `CAST(date_trunc('${t === 'MONTHLY' ? 'month' : 'quarter'}', ${col}) AS DATE)`;
export const stepSql = (t: PeriodType) =>
  t === 'DAILY' ? 'INTERVAL 1 DAY' : t === 'MONTHLY' ? 'INTERVAL 1 MONTH' : 'INTERVAL 3 MONTH';

/** The visits span a series over [from, until) needs: DAILY windows reach 6 days back. */
export function seriesSpan(p: TemplateParameters, yearsBack = 0): { from: string; until: string; rangeFrom: string } {
  const { from, until } = periodBounds(p.period);
  let lo = from;
  for (let i = 0; i < yearsBack; i++) lo = minusYear(lo);
  if (p.period.periodType === 'DAILY') lo = addDays(lo, -6);
  return { from: lo, until, rangeFrom: from };
}

/**
 * CTE `series(gidx, pidx, pstart, nv, raw, reported)`: one row per selected (geography, place value) and
 * every period whose first day lies in [from, until), with place-visits §3's normalized visits.
 * Needs the CTE `sv(gidx, pidx, day, weight)` of selected visits dated in [from, until).
 */
export function seriesCtes(b: Binder, t: PeriodType, from: string, until: string): string[] {
  const periods = `periods AS (SELECT CAST(range AS DATE) AS pstart FROM range(CAST(${b.date(from)} AS TIMESTAMP),
      CAST(${b.date(until)} AS TIMESTAMP), ${stepSql(t)}))`;
  const grid = `grid AS (SELECT g.gidx, s.pidx, periods.pstart FROM geo_sel g, tax_sel s, periods)`;
  const agg = `agg AS (SELECT gidx, pidx, ${truncSql(t, 'day')} AS pstart, sum(weight) AS w, count(*) AS n FROM sv GROUP BY ALL)`;
  if (t === 'DAILY') {
    return [
      periods,
      grid,
      agg,
      `coverage AS (SELECT CAST(min(visit_start) AS DATE) AS cmin, CAST(max(visit_start) AS DATE) AS cmax FROM vis)`,
      `series AS (SELECT grid.gidx, grid.pidx, grid.pstart,
        sum(coalesce(agg.w, 0)) OVER (PARTITION BY grid.gidx, grid.pidx ORDER BY grid.pstart
          ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) / 7 AS nv,
        coalesce(agg.n, 0) AS raw,
        coalesce(grid.pstart - 6 >= coverage.cmin AND grid.pstart <= coverage.cmax, false) AS reported
        FROM grid CROSS JOIN coverage LEFT JOIN agg USING (gidx, pidx, pstart))`,
    ];
  }
  const factor = t === 'MONTHLY' ? MONTH_FACTOR : QUARTER_FACTOR;
  return [
    periods,
    grid,
    agg,
    `series AS (SELECT grid.gidx, grid.pidx, grid.pstart,
      coalesce(agg.w, 0) * ${factor} / date_diff('day', grid.pstart, CAST(grid.pstart + ${stepSql(t)} AS DATE)) AS nv,
      coalesce(agg.n, 0) AS raw, true AS reported
      FROM grid LEFT JOIN agg USING (gidx, pidx, pstart))`,
  ];
}

/**
 * A predicate on the places alias `a` for the selected geographies and/or place values, with the ids as
 * bound lists. Filtering visits through it (rather than joining the selection CTEs) lets DuckDB see how
 * few places match and push them into the visits scan, as it does for a hand-written query.
 */
export function placePredicate(b: Binder, p: TemplateParameters, a: string, which: 'geo' | 'tax' | 'both'): string {
  const ids = (sels: string[], kind: string) => sels.map(parseSelection).filter((s) => s.kind === kind).map((s) => s.id);
  const anyOf = (parts: [string, string[]][]) =>
    parts.filter(([, v]) => v.length > 0).map(([col, v]) => `${a}.${col} IN ${b.list(v)}`).join(' OR ') || 'false';
  // Only bind what the predicate uses: an unreferenced $n fails the statement.
  const geo = () => anyOf([['country', ids(p.geographies, 'country')], ['dma_id', ids(p.geographies, 'dma')]]);
  const tax = () => anyOf([['chain_id', ids(p.places, 'chain')], ['category_id', ids(p.places, 'category')]]);
  if (which === 'geo') return `(${geo()})`;
  if (which === 'tax') return `coalesce(${tax()}, false)`;
  return `(${geo()}) AND (${tax()})`;
}

/** Selected visits (matching a geography and a place value) in [from, until), one row per match. */
export function selectedVisitsCte(b: Binder, p: TemplateParameters, from: string, until: string, extra = ''): string {
  return `fv AS (SELECT v.* FROM vis v JOIN pl ON pl.place_id = v.place_id WHERE ${placePredicate(b, p, 'pl', 'both')}
      AND v.visit_start >= CAST(${b.date(from)} AS TIMESTAMP) AND v.visit_start < CAST(${b.date(until)} AS TIMESTAMP)),
    sv AS (SELECT sp.gidx, sp.pidx, CAST(v.visit_start AS DATE) AS day, dev.weight${extra}
      FROM fv v JOIN sel_places sp ON v.place_id = sp.place_id JOIN dev ON dev.device_id = v.device_id)`;
}

export const withClause = (ctes: string[]) => `WITH ${ctes.join(',\n')}`;
