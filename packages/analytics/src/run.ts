import type { DuckDBConnection } from '@duckdb/node-api';
import { badInput, forbidden } from '@studio/schema';
import { parseParameters, type TemplateParameters } from './params';
import type { BuiltQuery, PanelTables } from './sql/common';
import { audienceSql } from './sql/audience';
import { crossVisitationSql } from './sql/cross';
import { changeInVisitsSql, indexedFootTrafficSql } from './sql/indexed';
import { customerJourneySql } from './sql/journey';
import { movementPivotSql } from './sql/pivot';
import { trendsSql } from './sql/trends';
import { templateOf, type TemplateId } from './templates/foot-traffic';
import { checkLimits } from './templates/limits';

export type Row = Record<string, string | number | boolean | null>;

const BUILDERS: Record<TemplateId, (t: PanelTables, p: TemplateParameters) => BuiltQuery> = {
  'indexed-foot-traffic': indexedFootTrafficSql,
  'change-in-visits': changeInVisitsSql,
  'audience-age': (t, p) => audienceSql(t, p, 'age'),
  'audience-gender': (t, p) => audienceSql(t, p, 'gender'),
  'cross-visitation': crossVisitationSql,
  'customer-journey': customerJourneySql,
  'trends-indexed': (t, p) => trendsSql(t, p, 'indexed'),
  'trends-daypart': (t, p) => trendsSql(t, p, 'daypart'),
  'trends-dwell': (t, p) => trendsSql(t, p, 'dwell'),
  'movement-pivot': movementPivotSql,
};

/** Validates the parameters (shape and limits) and builds the template's SQL without running it. */
export function buildTemplateQuery(templateId: string, parameters: unknown, tables: PanelTables): BuiltQuery {
  const template = templateOf(templateId);
  const p = parseParameters(parameters);
  checkLimits(template, p);
  return BUILDERS[template.id as TemplateId](tables, p);
}

export async function runQuery(conn: DuckDBConnection, q: BuiltQuery): Promise<Row[]> {
  const reader = await conn.runAndReadAll(q.sql, q.values);
  return reader.getRowObjectsJS().map((r) => {
    const out: Row = {};
    for (const [k, v] of Object.entries(r)) {
      out[k] = typeof v === 'bigint' ? Number(v) : (v as Row[string]);
    }
    return out;
  });
}

/** Runs a template of the foot-traffic group. `parameters` may be the request body or its `parameters`. */
export async function runTemplate(
  conn: DuckDBConnection, templateId: string, parameters: unknown, tables: PanelTables,
): Promise<Row[]> {
  return runQuery(conn, buildTemplateQuery(templateId, parameters, tables));
}

export interface BoundDataSummary {
  places: number;
  devices: number;
  visits: number;
  firstVisitDate: string | null;
  lastVisitDate: string | null;
}

/** Checks the three bound datasets; visits that reference unknown devices or places are a data error. */
export async function validateBoundData(conn: DuckDBConnection, tables: PanelTables): Promise<BoundDataSummary> {
  const [row] = await runQuery(conn, {
    sql: `SELECT
      (SELECT count(*) FROM ${tables.places}) AS places,
      (SELECT count(*) FROM ${tables.devices}) AS devices,
      (SELECT count(*) FROM ${tables.visits}) AS visits,
      (SELECT count(*) FROM ${tables.visits} v ANTI JOIN ${tables.devices} d
        ON CAST(d.device_id AS VARCHAR) = CAST(v.device_id AS VARCHAR)) AS unknown_devices,
      (SELECT count(*) FROM ${tables.visits} v ANTI JOIN ${tables.places} p
        ON CAST(p.place_id AS VARCHAR) = CAST(v.place_id AS VARCHAR)) AS unknown_places,
      (SELECT count(*) - count(DISTINCT place_id) FROM ${tables.places}) AS duplicate_places,
      (SELECT count(*) - count(DISTINCT device_id) FROM ${tables.devices}) AS duplicate_devices,
      (SELECT strftime(CAST(min(visit_start) AS DATE), '%Y-%m-%d') FROM ${tables.visits}) AS first_day,
      (SELECT strftime(CAST(max(visit_start) AS DATE), '%Y-%m-%d') FROM ${tables.visits}) AS last_day`,
    values: [],
  });
  const n = (k: string) => Number(row?.[k] ?? 0);
  if (n('unknown_devices') > 0 || n('unknown_places') > 0) {
    throw badInput(
      `Visits reference unknown devices or places: ${n('unknown_devices')} visits with an unknown device, ${n('unknown_places')} with an unknown place`,
      JSON.stringify({ unknownDevices: n('unknown_devices'), unknownPlaces: n('unknown_places') }),
    );
  }
  // A repeated id would count its visits twice in every join.
  if (n('duplicate_places') > 0 || n('duplicate_devices') > 0) {
    throw badInput(
      `Ids must be unique: ${n('duplicate_places')} repeated place_id, ${n('duplicate_devices')} repeated device_id`,
      JSON.stringify({ duplicatePlaces: n('duplicate_places'), duplicateDevices: n('duplicate_devices') }),
    );
  }
  return {
    places: n('places'), devices: n('devices'), visits: n('visits'),
    firstVisitDate: (row?.first_day as string | null) ?? null, lastVisitDate: (row?.last_day as string | null) ?? null,
  };
}

export interface LabelSet {
  availableValues: string[];
  labelValueMap: Record<string, string>;
}
export interface PanelLabels {
  geographies: LabelSet;
  places: LabelSet;
  firstVisitDate: string | null;
  lastVisitDate: string | null;
}

/** availableValues / labelValueMap for the geography and place parameters, from the bound data. */
export async function labelsOf(conn: DuckDBConnection, tables: PanelTables): Promise<PanelLabels> {
  const rows = await runQuery(conn, {
    sql: `WITH pl AS (SELECT CAST(country AS VARCHAR) AS country, CAST(dma_id AS VARCHAR) AS dma_id,
        CAST(dma_name AS VARCHAR) AS dma_name, CAST(chain_id AS VARCHAR) AS chain_id, CAST(chain AS VARCHAR) AS chain,
        CAST(category_id AS VARCHAR) AS category_id, CAST(category AS VARCHAR) AS category FROM ${tables.places})
      SELECT 'g' AS k, 0 AS o, 'country:' || country AS v, country AS label FROM pl WHERE country IS NOT NULL GROUP BY country
      UNION ALL SELECT 'g', 1, 'dma:' || dma_id, min(dma_name) FROM pl WHERE dma_id IS NOT NULL GROUP BY dma_id
      UNION ALL SELECT 'p', 0, 'chain:' || chain_id, min(chain) FROM pl WHERE chain_id IS NOT NULL GROUP BY chain_id
      UNION ALL SELECT 'p', 1, 'category:' || category_id, min(category) FROM pl WHERE category_id IS NOT NULL GROUP BY category_id
      ORDER BY k, o, label, v`,
    values: [],
  });
  const set = (k: string): LabelSet => {
    const mine = rows.filter((r) => r.k === k);
    return {
      availableValues: mine.map((r) => String(r.v)),
      labelValueMap: Object.fromEntries(mine.map((r) => [String(r.v), String(r.label ?? r.v)])),
    };
  };
  const [cov] = await runQuery(conn, {
    sql: `SELECT strftime(CAST(min(visit_start) AS DATE), '%Y-%m-%d') AS a, strftime(CAST(max(visit_start) AS DATE), '%Y-%m-%d') AS b FROM ${tables.visits}`,
    values: [],
  });
  return {
    geographies: set('g'), places: set('p'),
    firstVisitDate: (cov?.a as string | null) ?? null, lastVisitDate: (cov?.b as string | null) ?? null,
  };
}

/** Movement Pivot export (CSV) needs the set's template parameter movement_pivot_canExport. */
export function assertCanExport(templateParameters: Record<string, unknown> | undefined): void {
  if (templateParameters?.movement_pivot_canExport !== true) {
    throw forbidden('Export is not enabled for this analytic set', 'movement_pivot_canExport is false');
  }
}
