import type { TemplateParameters } from '../params';
import {
  Binder, baseCtes, epochMsSql, periodLabelSql, selectedVisitsCte, seriesCtes, seriesSpan, withClause,
  type BuiltQuery, type PanelTables,
} from './common';

/** Indexed Foot Traffic: one row per (geography, place value, reported period). */
export function indexedFootTrafficSql(tables: PanelTables, p: TemplateParameters): BuiltQuery {
  const b = new Binder();
  const t = p.period.periodType;
  const { from, until, rangeFrom } = seriesSpan(p);
  const ctes = [
    ...baseCtes(b, tables, p),
    selectedVisitsCte(b, p, from, until),
    ...seriesCtes(b, t, from, until),
    `shown AS (SELECT *, first_value(nv) OVER (PARTITION BY gidx, pidx ORDER BY pstart) AS nv_first
      FROM series WHERE reported AND pstart >= ${b.date(rangeFrom)})`,
  ];
  const sql = `${withClause(ctes)}
    SELECT g.geography_type, g.geography_value, g.geography_id,
      n.place_taxonomy_type, n.place_taxonomy_value, n.place_taxonomy_id,
      ${b.str(t)} AS period_type, ${periodLabelSql(t, 's.pstart')} AS period_value,
      ${epochMsSql('s.pstart')} AS period_epoch_ms,
      s.nv AS normalized_visits, s.raw AS raw_visits,
      CASE WHEN s.nv_first = 0 THEN NULL ELSE 100 * (s.nv / s.nv_first - 1) END AS norm_visits_pct_chg_vs_first
    FROM shown s JOIN geo_names g USING (gidx) JOIN tax_names n USING (pidx)
    ORDER BY s.gidx, s.pidx, s.pstart`;
  return { sql, values: b.values };
}

/** Change in Visits: one row per (geography, place value), range against the same labels a year earlier. */
export function changeInVisitsSql(tables: PanelTables, p: TemplateParameters): BuiltQuery {
  const b = new Binder();
  const t = p.period.periodType;
  const { from, until, rangeFrom } = seriesSpan(p, 1);
  const ctes = [
    ...baseCtes(b, tables, p),
    selectedVisitsCte(b, p, from, until),
    ...seriesCtes(b, t, from, until),
    // DuckDB's `- INTERVAL 1 YEAR` keeps the label and turns 29 February into 28 February.
    `cur AS (SELECT gidx, pidx, pstart, nv, CAST(pstart - INTERVAL 1 YEAR AS DATE) AS prior_start
      FROM series WHERE reported AND pstart >= ${b.date(rangeFrom)})`,
    `totals AS (SELECT c.gidx, c.pidx, sum(c.nv) AS nv_now, sum(coalesce(pr.nv, 0)) AS nv_before
      FROM cur c LEFT JOIN series pr ON pr.gidx = c.gidx AND pr.pidx = c.pidx AND pr.pstart = c.prior_start AND pr.reported
      GROUP BY c.gidx, c.pidx)`,
  ];
  const sql = `${withClause(ctes)}
    SELECT g.geography_type, g.geography_value, g.geography_id,
      n.place_taxonomy_type, n.place_taxonomy_value, n.place_taxonomy_id,
      ${b.str(t)} AS period_type,
      CASE WHEN coalesce(tt.nv_before, 0) = 0 THEN NULL ELSE 100 * (tt.nv_now / tt.nv_before - 1) END AS percent_change
    FROM geo_sel gs CROSS JOIN tax_sel ts
      JOIN geo_names g ON g.gidx = gs.gidx JOIN tax_names n ON n.pidx = ts.pidx
      LEFT JOIN totals tt ON tt.gidx = gs.gidx AND tt.pidx = ts.pidx
    ORDER BY gs.gidx, ts.pidx`;
  return { sql, values: b.values };
}
