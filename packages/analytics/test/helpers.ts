import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { PanelTables } from '../src';
import type { RPanel, RRow } from './reference';

export async function openDuck(): Promise<{ conn: DuckDBConnection; close: () => void }> {
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  return { conn, close: () => { conn.closeSync(); inst.closeSync(); } };
}

export function tempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'analytics-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Loads a JS panel into DuckDB tables through bound parameters (JSON), so values stay exact. */
export async function loadPanel(conn: DuckDBConnection, panel: RPanel, prefix = ''): Promise<PanelTables> {
  const load = async (name: string, rows: unknown[], cols: string) => {
    await conn.run(`CREATE TABLE ${prefix}${name} AS SELECT ${cols} FROM (SELECT unnest(CAST(json($1) AS JSON[])) AS j)`, [JSON.stringify(rows)]);
  };
  await load('places', panel.places, `j->>'place_id' AS place_id, j->>'name' AS name, j->>'chain_id' AS chain_id, j->>'chain' AS chain,
    j->>'category_id' AS category_id, j->>'category' AS category, CAST(j->>'latitude' AS DOUBLE) AS latitude,
    CAST(j->>'longitude' AS DOUBLE) AS longitude, j->>'country' AS country, j->>'dma_id' AS dma_id, j->>'dma_name' AS dma_name`);
  await load('devices', panel.devices, `j->>'device_id' AS device_id, j->>'age' AS age, j->>'gender' AS gender, j->>'income' AS income, CAST(j->>'weight' AS DOUBLE) AS weight`);
  await load('visits', panel.visits, `j->>'visit_id' AS visit_id, j->>'device_id' AS device_id, j->>'place_id' AS place_id,
    CAST(j->>'visit_start' AS TIMESTAMP) AS visit_start, CAST(j->>'dwell_minutes' AS DOUBLE) AS dwell_minutes`);
  return { places: `${prefix}places`, devices: `${prefix}devices`, visits: `${prefix}visits` };
}

/** Reads a panel back from DuckDB relations into JS for the reference implementation. */
export async function readPanel(conn: DuckDBConnection, t: PanelTables): Promise<RPanel> {
  const q = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
  const places = (await q(`SELECT place_id, name, chain_id, chain, category_id, category, latitude, longitude, country, dma_id, dma_name FROM ${t.places}`)) as never;
  const devices = (await q(`SELECT device_id, age, gender, income, weight FROM ${t.devices}`)) as never;
  const visits = (await q(`SELECT visit_id, device_id, place_id, strftime(visit_start, '%Y-%m-%d %H:%M:%S') AS visit_start, dwell_minutes FROM ${t.visits}`)) as never;
  return { places, devices, visits };
}

const close = (a: unknown, b: unknown) => {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  return a === b;
};

/** Rows equal as multisets: same keys, strings exact, numbers to a relative 1e-9. Returns a diff or ''. */
export function diffRows(actual: RRow[], expected: RRow[]): string {
  const key = (r: RRow) => JSON.stringify(Object.keys(r).sort().map((k) => (typeof r[k] === 'number' ? '#' : [k, r[k]])));
  const sortRows = (rs: RRow[]) => [...rs].sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
  if (actual.length !== expected.length) return `row count ${actual.length} vs expected ${expected.length}`;
  const a = sortRows(actual), e = sortRows(expected);
  for (let i = 0; i < a.length; i++) {
    const ka = Object.keys(a[i]!).sort(), ke = Object.keys(e[i]!).sort();
    if (ka.join() !== ke.join()) return `row ${i} fields ${ka.join()} vs ${ke.join()}`;
    for (const k of ka) {
      if (!close(a[i]![k], e[i]![k])) return `row ${i} ${k}: ${a[i]![k]} vs expected ${e[i]![k]} in ${JSON.stringify(e[i])}`;
    }
  }
  return '';
}
