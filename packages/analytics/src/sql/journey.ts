import { periodBounds, type TemplateParameters } from '../params';
import { Binder, baseCtes, placePredicate, withClause, type BuiltQuery, type PanelTables } from './common';

export const JOURNEY_TOP = 40;

/**
 * Customer Journey: for each visit to T (in the geography and range) the same device's nearest visit
 * on the same date before / after it at a place outside T. Ties on visit_start are broken by visit_id
 * (the greatest for before, the smallest for after) so that results are deterministic.
 */
export function customerJourneySql(tables: PanelTables, p: TemplateParameters): BuiltQuery {
  const b = new Binder();
  const { from, until } = periodBounds(p.period);
  const byChain = p.places[0]?.startsWith('chain:') ?? false;
  const groupCols = byChain
    ? `CASE WHEN pl.chain_id IS NULL THEN 'category' ELSE 'chain' END AS gtype,
       coalesce(pl.chain_id, pl.category_id) AS gid, CASE WHEN pl.chain_id IS NULL THEN pl.category ELSE pl.chain END AS gname`
    : `'category' AS gtype, pl.category_id AS gid, pl.category AS gname`;
  const ctes = [
    ...baseCtes(b, tables, p),
    `tv AS (SELECT v.visit_id, v.device_id, v.visit_start, CAST(v.visit_start AS DATE) AS day, dev.weight
      FROM vis v JOIN pl ON pl.place_id = v.place_id JOIN dev ON dev.device_id = v.device_id
      WHERE ${placePredicate(b, p, 'pl', 'both')}
        AND v.visit_start >= CAST(${b.date(from)} AS TIMESTAMP) AND v.visit_start < CAST(${b.date(until)} AS TIMESTAMP))`,
    `ov AS (SELECT v.visit_id, v.device_id, v.visit_start, CAST(v.visit_start AS DATE) AS day, ${groupCols}
      FROM vis v JOIN pl ON pl.place_id = v.place_id
      WHERE NOT ${placePredicate(b, p, 'pl', 'tax')}
        AND v.device_id IN (SELECT device_id FROM tv)
        AND v.visit_start >= CAST(${b.date(from)} AS TIMESTAMP) AND v.visit_start < CAST(${b.date(until)} AS TIMESTAMP))`,
    `linked AS (
      SELECT 'before' AS relationship, tv.visit_id, any_value(tv.weight) AS weight,
        arg_max({'t': ov.gtype, 'id': ov.gid, 'name': ov.gname}, {'s': ov.visit_start, 'id': ov.visit_id}) AS grp
      FROM tv JOIN ov ON ov.device_id = tv.device_id AND ov.day = tv.day AND ov.visit_start < tv.visit_start
      GROUP BY tv.visit_id
      UNION ALL
      SELECT 'after' AS relationship, tv.visit_id, any_value(tv.weight) AS weight,
        arg_min({'t': ov.gtype, 'id': ov.gid, 'name': ov.gname}, {'s': ov.visit_start, 'id': ov.visit_id}) AS grp
      FROM tv JOIN ov ON ov.device_id = tv.device_id AND ov.day = tv.day AND ov.visit_start > tv.visit_start
      GROUP BY tv.visit_id)`,
    `tot AS (SELECT relationship, sum(weight) AS w FROM linked GROUP BY relationship)`,
    `groups AS (SELECT l.relationship, l.grp.t AS gtype, l.grp.id AS gid, min(l.grp.name) AS gname,
        100 * sum(l.weight) / any_value(tot.w) AS percentage
      FROM linked l JOIN tot USING (relationship) GROUP BY l.relationship, l.grp.t, l.grp.id)`,
    `ranked AS (SELECT *, row_number() OVER (PARTITION BY relationship ORDER BY percentage DESC, gtype, gid) AS rk FROM groups)`,
  ];
  const sql = `${withClause(ctes)}
    SELECT g.geography_type, g.geography_value, g.geography_id, r.relationship,
      r.gtype AS place_taxonomy_type, r.gname AS place_taxonomy_value, r.gid AS place_taxonomy_id, r.percentage
    FROM ranked r CROSS JOIN geo_names g
    WHERE r.rk <= ${b.int(JOURNEY_TOP)}
    ORDER BY r.relationship DESC, r.rk`;
  return { sql, values: b.values };
}
