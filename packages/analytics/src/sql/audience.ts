import { AGE_COHORTS, GENDER_COHORTS, periodBounds, type TemplateParameters } from '../params';
import { Binder, baseCtes, placePredicate, withClause, type BuiltQuery, type PanelTables } from './common';

/**
 * Audience Insight by age or gender: the selected place values pooled into one audience (a visit counts
 * once even when it matches several values), against the baseline of all places in the geography.
 */
export function audienceSql(tables: PanelTables, p: TemplateParameters, dim: 'age' | 'gender'): BuiltQuery {
  const b = new Binder();
  const { from, until } = periodBounds(p.period);
  const cohorts = dim === 'age' ? AGE_COHORTS : GENDER_COHORTS;
  const ctes = [
    ...baseCtes(b, tables, p),
    `cohorts(ord, cohort) AS (VALUES ${cohorts.map((c, i) => `(${b.int(i)}, ${b.str(c)})`).join(', ')})`,
    `gv AS (SELECT dev.${dim} AS cohort, dev.weight, ${placePredicate(b, p, 'pl', 'tax')} AS selected
      FROM vis v JOIN pl ON pl.place_id = v.place_id JOIN dev ON dev.device_id = v.device_id
      WHERE ${placePredicate(b, p, 'pl', 'geo')}
        AND v.visit_start >= CAST(${b.date(from)} AS TIMESTAMP) AND v.visit_start < CAST(${b.date(until)} AS TIMESTAMP))`,
    `by_cohort AS (SELECT cohort, sum(weight) FILTER (WHERE selected) AS w_sel, sum(weight) AS w_all FROM gv GROUP BY cohort)`,
    `tot AS (SELECT sum(weight) FILTER (WHERE selected) AS w_sel, sum(weight) AS w_all FROM gv)`,
    `shares AS (SELECT c.ord, c.cohort,
        CASE WHEN coalesce(tot.w_sel, 0) = 0 THEN NULL ELSE 100 * coalesce(bc.w_sel, 0) / tot.w_sel END AS share,
        CASE WHEN coalesce(tot.w_all, 0) = 0 THEN NULL ELSE 100 * coalesce(bc.w_all, 0) / tot.w_all END AS base
      FROM cohorts c CROSS JOIN tot LEFT JOIN by_cohort bc ON bc.cohort = c.cohort)`,
  ];
  const sql = `${withClause(ctes)}
    SELECT g.geography_type, g.geography_value, g.geography_id, s.cohort AS ${dim},
      s.share AS norm_visit_share,
      CASE WHEN s.share IS NULL OR coalesce(s.base, 0) = 0 THEN NULL ELSE 100 * s.share / s.base END AS fair_share_index
    FROM shares s CROSS JOIN geo_names g ORDER BY s.ord`;
  return { sql, values: b.values };
}
