import type { TemplateParameters } from '../params';
import {
  Binder, MONTH_FACTOR, QUARTER_FACTOR, baseCtes, placePredicate, epochMsSql, periodLabelSql, seriesSpan, stepSql, truncSql,
  withClause, type BuiltQuery, type PanelTables,
} from './common';

export const COHORT_DIMS = ['age', 'gender', 'income'] as const;

/** The cohort dimensions a pivot groups by: only those its rows or columns name. */
export function pivotCohorts(p: TemplateParameters): (typeof COHORT_DIMS)[number][] {
  const asked = new Set([...(p.pivot?.rows ?? []), ...(p.pivot?.columns ?? [])]);
  return COHORT_DIMS.filter((d) => asked.has(d));
}

/**
 * Movement Pivot: normalized and raw visits grouped by geography, period, place value and the asked
 * cohort dimensions; the cohort lists filter visits by their device. Only groups with visits get rows
 * (for DAILY: visits on that day, and the day's window inside the coverage).
 */
export function movementPivotSql(tables: PanelTables, p: TemplateParameters): BuiltQuery {
  const b = new Binder();
  const t = p.period.periodType;
  const { from, until, rangeFrom } = seriesSpan(p);
  const dims = pivotCohorts(p);
  const filters = COHORT_DIMS.filter((d) => (p[d]?.length ?? 0) > 0)
    .map((d) => `AND dev.${d} IN ${b.list(p[d] ?? [])}`)
    .join(' ');
  const dimCols = dims.map((d) => `, dev.${d}`).join('');
  const keys = ['gidx', 'pidx', ...dims];
  const ctes = [
    ...baseCtes(b, tables, p),
    `sv AS (SELECT sp.gidx, sp.pidx, ${truncSql(t, 'v.visit_start')} AS pstart, dev.weight${dimCols}
      FROM vis v JOIN pl ON pl.place_id = v.place_id JOIN sel_places sp ON v.place_id = sp.place_id
        JOIN dev ON dev.device_id = v.device_id
      WHERE ${placePredicate(b, p, 'pl', 'both')} AND v.visit_start >= CAST(${b.date(from)} AS TIMESTAMP) AND v.visit_start < CAST(${b.date(until)} AS TIMESTAMP) ${filters})`,
    `agg AS (SELECT ${keys.join(', ')}, pstart, sum(weight) AS w, count(*) AS n FROM sv GROUP BY ALL)`,
  ];
  if (t === 'DAILY') {
    ctes.push(
      `coverage AS (SELECT CAST(min(visit_start) AS DATE) AS cmin, CAST(max(visit_start) AS DATE) AS cmax FROM vis)`,
      `rows_ AS (SELECT *, sum(w) OVER (PARTITION BY ${keys.join(', ')} ORDER BY pstart
          RANGE BETWEEN INTERVAL 6 DAYS PRECEDING AND CURRENT ROW) / 7 AS nv FROM agg)`,
      `out AS (SELECT r.* FROM rows_ r CROSS JOIN coverage c
        WHERE r.pstart >= ${b.date(rangeFrom)} AND r.pstart - 6 >= c.cmin AND r.pstart <= c.cmax)`,
    );
  } else {
    const factor = t === 'MONTHLY' ? MONTH_FACTOR : QUARTER_FACTOR;
    ctes.push(
      `out AS (SELECT *, w * ${factor} / date_diff('day', pstart, CAST(pstart + ${stepSql(t)} AS DATE)) AS nv FROM agg)`,
    );
  }
  const sql = `${withClause(ctes)}
    SELECT g.geography_type, g.geography_value, g.geography_id,
      n.place_taxonomy_type, n.place_taxonomy_value, n.place_taxonomy_id,
      ${b.str(t)} AS period_type, ${periodLabelSql(t, 'o.pstart')} AS period_value, ${epochMsSql('o.pstart')} AS period_epoch_ms,
      ${dims.map((d) => `o.${d}, `).join('')}o.nv AS normalized_visits, o.n AS raw_visits
    FROM out o JOIN geo_names g ON g.gidx = o.gidx JOIN tax_names n ON n.pidx = o.pidx
    ORDER BY o.gidx, o.pidx, o.pstart${dims.map((d) => `, o.${d}`).join('')}`;
  return { sql, values: b.values };
}
