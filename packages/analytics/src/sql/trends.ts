import { DAYPARTS, type TemplateParameters } from '../params';
import {
  Binder, baseCtes, epochMsSql, selectedVisitsCte, seriesCtes, seriesSpan, truncSql, withClause,
  type BuiltQuery, type PanelTables,
} from './common';

/** Visitation Trends, camelCase rows: the indexed series, daypart shares and median dwell per period. */
export function trendsSql(tables: PanelTables, p: TemplateParameters, kind: 'indexed' | 'daypart' | 'dwell'): BuiltQuery {
  const b = new Binder();
  const t = p.period.periodType;
  const { from, until, rangeFrom } = seriesSpan(p);
  const extra = `, hour(v.visit_start) AS hr, v.dwell_minutes AS dwell`;
  const ctes = [
    ...baseCtes(b, tables, p),
    selectedVisitsCte(b, p, from, until, extra),
    ...seriesCtes(b, t, from, until),
    `shown AS (SELECT *, first_value(nv) OVER (PARTITION BY gidx, pidx ORDER BY pstart) AS nv_first
      FROM series WHERE reported AND pstart >= ${b.date(rangeFrom)})`,
  ];
  const head = `n.place_taxonomy_value AS placeTaxonomyValue, g.geography_value AS geographyValue,
    ${epochMsSql('s.pstart')} AS periodEpochMs`;
  const joins = `JOIN geo_names g ON g.gidx = s.gidx JOIN tax_names n ON n.pidx = s.pidx`;
  let sql: string;
  if (kind === 'indexed') {
    sql = `${withClause(ctes)} SELECT ${head},
      CASE WHEN s.nv_first = 0 THEN NULL ELSE 100 * (s.nv / s.nv_first - 1) END AS norm_visits_pct_chg_vs_first
      FROM shown s ${joins} ORDER BY s.gidx, s.pidx, s.pstart`;
  } else if (kind === 'daypart') {
    ctes.push(
      `dayparts(ord, part) AS (VALUES ${DAYPARTS.map((d, i) => `(${b.int(i)}, ${b.str(d)})`).join(', ')})`,
      `pv AS (SELECT gidx, pidx, ${truncSql(t, 'day')} AS pstart, weight,
        CASE WHEN hr BETWEEN 5 AND 11 THEN 'Morning' WHEN hr BETWEEN 12 AND 16 THEN 'Afternoon' ELSE 'Evening' END AS part
        FROM sv)`,
      `pw AS (SELECT gidx, pidx, pstart, part, sum(weight) AS w FROM pv GROUP BY ALL)`,
      `pt AS (SELECT gidx, pidx, pstart, sum(weight) AS w FROM pv GROUP BY ALL)`,
    );
    sql = `${withClause(ctes)} SELECT ${head}, d.part AS cohortValue,
      CASE WHEN coalesce(pt.w, 0) = 0 THEN NULL ELSE 100 * coalesce(pw.w, 0) / pt.w END AS shareOfNormalizedVisits
      FROM shown s CROSS JOIN dayparts d ${joins}
        LEFT JOIN pt ON pt.gidx = s.gidx AND pt.pidx = s.pidx AND pt.pstart = s.pstart
        LEFT JOIN pw ON pw.gidx = s.gidx AND pw.pidx = s.pidx AND pw.pstart = s.pstart AND pw.part = d.part
      ORDER BY s.gidx, s.pidx, s.pstart, d.ord`;
  } else {
    ctes.push(`md AS (SELECT gidx, pidx, ${truncSql(t, 'day')} AS pstart, median(dwell) AS m FROM sv GROUP BY ALL)`);
    sql = `${withClause(ctes)} SELECT ${head}, CAST(md.m AS DOUBLE) AS medianDwellTimeMinutes
      FROM shown s ${joins} LEFT JOIN md ON md.gidx = s.gidx AND md.pidx = s.pidx AND md.pstart = s.pstart
      ORDER BY s.gidx, s.pidx, s.pstart`;
  }
  return { sql, values: b.values };
}
