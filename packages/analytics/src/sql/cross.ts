import { periodBounds, type TemplateParameters } from '../params';
import { Binder, baseCtes, placePredicate, withClause, type BuiltQuery, type PanelTables } from './common';

/** Cross-Visitation: overlap of chain A's visitors with chain B's, each device weighed once. */
export function crossVisitationSql(tables: PanelTables, p: TemplateParameters): BuiltQuery {
  const b = new Binder();
  const { from, until } = periodBounds(p.period);
  const ctes = [
    ...baseCtes(b, tables, p),
    `visitors AS (SELECT DISTINCT tp.pidx, v.device_id
      FROM vis v JOIN pl ON pl.place_id = v.place_id JOIN tax_places tp ON tp.place_id = v.place_id
      WHERE ${placePredicate(b, p, 'pl', 'both')} AND v.visit_start >= CAST(${b.date(from)} AS TIMESTAMP) AND v.visit_start < CAST(${b.date(until)} AS TIMESTAMP))`,
    `vw AS (SELECT visitors.pidx, visitors.device_id, dev.weight FROM visitors JOIN dev ON dev.device_id = visitors.device_id)`,
    `tot AS (SELECT pidx, sum(weight) AS w FROM vw GROUP BY pidx)`,
    `pairs AS (SELECT a.pidx AS a, bb.pidx AS b, sum(a.weight) AS w FROM vw a JOIN vw bb ON a.device_id = bb.device_id
      WHERE a.pidx <> bb.pidx GROUP BY a.pidx, bb.pidx)`,
  ];
  const sql = `${withClause(ctes)}
    SELECT g.geography_type, g.geography_value, g.geography_id,
      na.place_taxonomy_type, na.place_taxonomy_value, na.place_taxonomy_id,
      nb.place_taxonomy_value AS secondary_place_taxonomy_value, nb.place_taxonomy_id AS secondary_place_taxonomy_id,
      CASE WHEN coalesce(tot.w, 0) = 0 THEN NULL
           WHEN sa.pidx = sb.pidx THEN 100
           ELSE 100 * coalesce(pairs.w, 0) / tot.w END AS overlap
    FROM tax_sel sa CROSS JOIN tax_sel sb CROSS JOIN geo_names g
      JOIN tax_names na ON na.pidx = sa.pidx JOIN tax_names nb ON nb.pidx = sb.pidx
      LEFT JOIN tot ON tot.pidx = sa.pidx
      LEFT JOIN pairs ON pairs.a = sa.pidx AND pairs.b = sb.pidx
    ORDER BY sa.pidx, sb.pidx`;
  return { sql, values: b.values };
}
