import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { runTemplate, type PanelTables } from '../src';
import { panel } from './fixture';
import { Reference, type RParams } from './reference';
import { diffRows, loadPanel, openDuck } from './helpers';

let conn: DuckDBConnection;
let close: () => void;
let tables: PanelTables;
const ref = new Reference(panel);

beforeAll(async () => {
  ({ conn, close } = await openDuck());
  tables = await loadPanel(conn, panel);
});
afterAll(() => close());

const M = (start: string, end: string) => ({ periodType: 'MONTHLY' as const, start, end });
const Q = (start: string, end: string) => ({ periodType: 'QUARTERLY' as const, start, end });
const D = (start: string, end: string) => ({ periodType: 'DAILY' as const, start, end });
const LA = 'dma:la', NY = 'dma:ny', US = 'country:US';

const cases: [string, RParams][] = [
  ['indexed-foot-traffic', { geographies: [LA], places: ['chain:sbux', 'category:coffee', 'chain:tgt'], period: M('2024-01', '2024-06') }],
  ['indexed-foot-traffic', { geographies: [LA, NY, US], places: ['chain:sbux'], period: Q('2024-Q1', '2025-Q4') }],
  ['indexed-foot-traffic', { geographies: [LA], places: ['chain:sbux', 'chain:mcd'], period: D('2024-02-20', '2024-03-10') }],
  ['indexed-foot-traffic', { geographies: [US], places: ['chain:wmt'], period: D('2023-01-01', '2023-01-12') }],
  ['change-in-visits', { geographies: [LA, NY, US], places: ['chain:sbux', 'category:general'], period: M('2025-01', '2025-06') }],
  ['change-in-visits', { geographies: [LA], places: ['chain:sbux'], period: D('2024-02-27', '2024-03-01') }],
  ['change-in-visits', { geographies: [LA, US], places: ['chain:sbux', 'chain:tgt'], period: Q('2025-Q1', '2025-Q4') }],
  ['change-in-visits', { geographies: [LA], places: ['chain:sbux', 'chain:dunk'], period: D('2025-02-20', '2025-03-25') }],
  ['audience-age', { geographies: [LA], places: ['chain:sbux'], period: M('2025-01', '2025-12') }],
  ['audience-age', { geographies: [US], places: ['chain:sbux', 'category:coffee'], period: M('2024-01', '2025-12') }],
  ['audience-gender', { geographies: [NY], places: ['category:fast_food'], period: Q('2024-Q1', '2025-Q4') }],
  ['audience-gender', { geographies: [LA], places: ['chain:shell'], period: D('2023-01-01', '2023-01-31') }],
  ['cross-visitation', { geographies: [LA], places: ['chain:sbux', 'chain:tgt', 'chain:dunk', 'chain:shell'], period: M('2024-01', '2025-12') }],
  ['cross-visitation', { geographies: [US], places: ['chain:sbux', 'chain:wmt', 'chain:mcd'], period: M('2025-01', '2025-06') }],
  ['customer-journey', { geographies: [LA], places: ['chain:sbux'], period: M('2024-01', '2025-12') }],
  ['customer-journey', { geographies: [US], places: ['category:coffee'], period: M('2024-01', '2025-12') }],
  ['customer-journey', { geographies: [LA], places: ['chain:tgt'], period: D('2025-03-20', '2025-03-20') }],
  ['trends-indexed', { geographies: [LA], places: ['chain:sbux', 'category:coffee'], period: M('2025-01', '2025-12') }],
  ['trends-daypart', { geographies: [LA], places: ['chain:sbux', 'category:general'], period: M('2025-01', '2025-12') }],
  ['trends-daypart', { geographies: [US], places: ['chain:sbux'], period: D('2025-02-25', '2025-03-05') }],
  ['trends-dwell', { geographies: [US], places: ['chain:sbux', 'category:coffee'], period: Q('2024-Q1', '2025-Q4') }],
  ['trends-dwell', { geographies: [LA], places: ['chain:sbux'], period: D('2025-02-27', '2025-03-21') }],
  ['movement-pivot', { geographies: [LA, NY], places: ['chain:sbux', 'category:general'], period: M('2024-01', '2025-12'), pivot: { rows: ['geography', 'place', 'age'], columns: ['period'] } }],
  ['movement-pivot', { geographies: [US], places: ['category:coffee'], period: D('2025-02-20', '2025-03-25'), gender: ['Male'], pivot: { rows: ['income'], columns: ['gender'] } }],
  ['movement-pivot', { geographies: [US], places: ['chain:sbux'], period: Q('2024-Q1', '2025-Q4'), age: ['25-34', 'Over 65'] }],
];

describe('every template matches the reference implementation on the hand panel', () => {
  it.each(cases)('%s %j', async (id, params) => {
    const rows = await runTemplate(conn, id, { parameters: params }, tables);
    const expected = ref.run(id, params);
    expect(rows.length).toBeGreaterThan(0);
    expect(diffRows(rows, expected)).toBe('');
  });
});

describe('hand-worked figures', () => {
  it('monthly normalization and the index against the first month', async () => {
    const rows = await runTemplate(conn, 'indexed-foot-traffic', { geographies: [LA], places: ['chain:sbux'], period: M('2024-01', '2024-04') }, tables);
    // Jan 2024: v01 (d1, w 1) + v03 (d2, w 2) = 3 -> 3 x 30.4375 / 31; Feb (29 days): v05 w 1 -> 30.4375 / 29;
    // Mar: nothing in LA (v08 is in New York) -> a 0 row; Apr: v12 (d4, w 1.5) -> 1.5 x 30.4375 / 30.
    expect(rows.map((r) => r.period_value)).toEqual(['2024-01', '2024-02', '2024-03', '2024-04']);
    expect(rows[0]!.normalized_visits).toBeCloseTo((3 * 30.4375) / 31, 12);
    expect(rows[1]!.normalized_visits).toBeCloseTo(30.4375 / 29, 12);
    expect(rows[2]!.normalized_visits).toBe(0);
    expect(rows[2]!.raw_visits).toBe(0);
    expect(rows[3]!.normalized_visits).toBeCloseTo(1.521875, 12);
    expect(rows[1]!.norm_visits_pct_chg_vs_first).toBeCloseTo(100 * (30.4375 / 29 / ((3 * 30.4375) / 31) - 1), 10);
    expect(rows[2]!.norm_visits_pct_chg_vs_first).toBe(-100);
    expect(rows[0]!.period_epoch_ms).toBe(Date.UTC(2024, 0, 1));
    expect(rows[0]!.geography_value).toBe('Los Angeles market area');
    expect(rows[0]!.geography_id).toBe('la');
    expect(rows[0]!.place_taxonomy_value).toBe('Starbucks');
  });

  it('DAILY change maps 29 Feb 2024 to 28 Feb 2023', async () => {
    // Current days 02-27..03-01 2024: only v05 (29 Feb, w 1) -> 0 + 0 + 1/7 + 1/7 = 2/7.
    // Earlier labels 2023-02-27, 02-28, 02-28 (from 29 Feb), 03-01: v53 (25 Feb, w 2), v54 (28 Feb, w 1)
    // -> 2/7 + 3/7 + 3/7 + 3/7 = 11/7. Percent change = 100 x (2/11 - 1) = -81.8181...
    const [row] = await runTemplate(conn, 'change-in-visits', { geographies: [LA], places: ['chain:sbux'], period: D('2024-02-27', '2024-03-01') }, tables);
    expect(row!.percent_change).toBeCloseTo(100 * (2 / 11 - 1), 10);
  });

  it('DAILY days are reported only when the 7-day window lies in the coverage', async () => {
    // The first visit is on 2023-01-02, so the first reported day is 2023-01-08.
    const rows = await runTemplate(conn, 'indexed-foot-traffic', { geographies: [US], places: ['chain:wmt'], period: D('2023-01-01', '2023-01-10') }, tables);
    expect(rows.map((r) => r.period_value)).toEqual(['2023-01-08', '2023-01-09', '2023-01-10']);
    // v00 (2023-01-02, w 1) is inside the window of the 8th only: 1/7, then 0; the index of the series is
    // against 1/7.
    expect(rows[0]!.normalized_visits).toBeCloseTo(1 / 7, 12);
    expect(rows[1]!.normalized_visits).toBe(0);
    expect(rows[1]!.norm_visits_pct_chg_vs_first).toBe(-100);
  });

  it('pooled audience shares and fair share index', async () => {
    // Starbucks LA 2025: d1 x2 (w 1), d2 x2 (w 2), d3 x2 (w .5), d4 x3 (w 1.5) -> W = 2 + 4 + 1 + 4.5 = 11.5.
    // 25-34 (d1): 100 x 2 / 11.5. LA 2025 baseline: d1 5 visits (5), d2 8 (16), d3 5 (2.5), d4 6 (9) = 32.5,
    // so the 25-34 baseline share is 100 x 5 / 32.5 and the index 100 x (200 / 11.5) / (500 / 32.5).
    const rows = await runTemplate(conn, 'audience-age', { geographies: [LA], places: ['chain:sbux'], period: M('2025-01', '2025-12') }, tables);
    const r = rows.find((x) => x.age === '25-34')!;
    expect(rows).toHaveLength(6);
    expect(r.fair_share_index).toBeCloseTo((100 * (200 / 11.5)) / (500 / 32.5), 10);
    expect(r.norm_visit_share).toBeCloseTo((100 * 2) / 11.5, 10);
    expect(rows.find((x) => x.age === '45-54')!.norm_visit_share).toBe(0);
    expect(rows.find((x) => x.age === '45-54')!.fair_share_index).toBeNull();
  });

  it('customer journey skips visits to T and breaks ties by visit_id', async () => {
    // T = Starbucks LA. v24 (d2 09:00): before = v52 Shell (08:00, ties v51 Dunkin, greater id wins);
    // v28 (d4 09:30): before skips v26 (Starbucks) and finds v27 Dunkin; v31 (d1) before = v30 Blue Cup,
    // an independent -> its category Coffee Shop; after v31 = v32 Corner Diner in New York (Fast Food).
    const rows = await runTemplate(conn, 'customer-journey', { geographies: [LA], places: ['chain:sbux'], period: M('2025-01', '2025-12') }, tables);
    const before = rows.filter((r) => r.relationship === 'before').map((r) => r.place_taxonomy_value);
    expect(before).toContain('Shell');
    expect(before).toContain('Coffee Shop');
    expect(rows.some((r) => r.relationship === 'after' && r.place_taxonomy_value === 'Fast Food')).toBe(true);
  });

  it('cross-visitation counts each device once and is not symmetric', async () => {
    const rows = await runTemplate(conn, 'cross-visitation', { geographies: [LA], places: ['chain:sbux', 'chain:shell'], period: M('2024-01', '2025-12') }, tables);
    const get = (a: string, b: string) => rows.find((r) => r.place_taxonomy_value === a && r.secondary_place_taxonomy_value === b)!.overlap;
    // Starbucks LA visitors: d1 d2 d3 d4 (W 5); Shell LA visitors: d4 d2 (W 3.5).
    expect(get('Starbucks', 'Starbucks')).toBe(100);
    expect(get('Starbucks', 'Shell')).toBeCloseTo((100 * 3.5) / 5, 10);
    expect(get('Shell', 'Starbucks')).toBeCloseTo(100, 10);
  });
});
