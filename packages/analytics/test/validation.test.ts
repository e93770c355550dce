import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { StudioError } from '@studio/schema';
import {
  assertCanExport, defaultParameters, footTrafficGroup, footTrafficTemplates, labelsOf, runTemplate, validateBoundData, validateTemplate,
  viewsOfGroup, TEMPLATE_IDS, type PanelTables,
} from '../src';
import { panel } from './fixture';
import { loadPanel, openDuck } from './helpers';

let conn: DuckDBConnection;
let close: () => void;
let tables: PanelTables;
beforeAll(async () => {
  ({ conn, close } = await openDuck());
  tables = await loadPanel(conn, panel);
});
afterAll(() => close());

const period = { periodType: 'MONTHLY', start: '2025-01', end: '2025-03' };
const geos = (n: number) => Array.from({ length: n }, (_, i) => (i === 0 ? 'country:US' : `dma:m${i}`));
const chains = (n: number) => Array.from({ length: n }, (_, i) => `chain:c${i}`);

async function failure(templateId: string, parameters: unknown): Promise<StudioError> {
  try {
    await runTemplate(conn, templateId, { parameters }, tables);
  } catch (e) {
    if (e instanceof StudioError) return e;
    throw e;
  }
  throw new Error('expected a failure');
}

describe('selection limits (analytics-and-admin §5)', () => {
  it.each([
    ['change-in-visits', geos(8), chains(1), 'Change in Visits takes at most 7 geographies (got 8)'],
    ['change-in-visits', geos(1), chains(8), 'Change in Visits takes at most 7 chains or categories (got 8)'],
    ['cross-visitation', geos(1), chains(8), 'Cross-Visitation takes at most 7 chains (got 8)'],
    ['cross-visitation', geos(2), chains(2), 'Cross-Visitation takes at most 1 geography (got 2)'],
    ['cross-visitation', geos(1), ['chain:a', 'category:b'], 'Cross-Visitation compares chains only'],
    ['customer-journey', geos(1), chains(2), 'Customer Journey takes at most 1 chain or category (got 2)'],
    ['customer-journey', geos(2), chains(1), 'Customer Journey takes at most 1 geography (got 2)'],
    ['indexed-foot-traffic', geos(1), chains(8), 'Indexed Foot Traffic takes at most 7 chains or categories (got 8)'],
    ['indexed-foot-traffic', geos(2), chains(2), 'Indexed Foot Traffic takes either one geography with up to 7 chains or categories, or one chain or category with up to 7 geographies'],
    ['movement-pivot', [], chains(1), 'Movement Pivot needs at least one geography'],
    ['movement-pivot', geos(1), [], 'Movement Pivot needs at least one chain or category'],
    ['audience-age', geos(2), chains(1), 'Visit Share and Fair Share Index by Age takes at most 1 geography (got 2)'],
  ])('%s with %j / %j fails with "%s"', async (id, geographies, places, message) => {
    const e = await failure(id, { geographies, places, period });
    expect(e.status).toBe(422);
    expect(e.message).toBe(message);
  });

  it('accepts the limits themselves', async () => {
    await expect(runTemplate(conn, 'change-in-visits', { geographies: geos(7), places: chains(7), period }, tables)).resolves.toHaveLength(49);
    await expect(runTemplate(conn, 'indexed-foot-traffic', { geographies: geos(7), places: chains(1), period }, tables)).resolves.toHaveLength(21);
  });

  it('movement pivot needs a period', async () => {
    const e = await failure('movement-pivot', { geographies: geos(1), places: chains(1) });
    expect(e.message).toBe('Invalid parameters at period: Invalid input: expected object, received undefined');
  });
});

describe('parameter validation', () => {
  it.each([
    [{ geographies: ['US'], places: ['chain:a'], period }, 'Invalid parameters at geographies.0: must be country:<code> or dma:<id>'],
    [{ geographies: ['country:US'], places: ['brand:a'], period }, 'Invalid parameters at places.0: must be chain:<id> or category:<id>'],
    [{ geographies: ['country:US'], places: ['chain:a'], period: { periodType: 'MONTHLY', start: '2025-1', end: '2025-03' } }, 'A MONTHLY period is written YYYY-MM'],
    [{ geographies: ['country:US'], places: ['chain:a'], period: { periodType: 'QUARTERLY', start: '2025-Q3', end: '2025-Q1' } }, 'The period starts after it ends'],
    [{ geographies: ['country:US'], places: ['chain:a'], period: { periodType: 'DAILY', start: '2025-02-30', end: '2025-03-01' } }, '2025-02-30 is not a calendar day'],
    [{ geographies: ['country:US'], places: ['chain:a'], period: { periodType: 'WEEKLY', start: '2025-01', end: '2025-02' } }, 'Invalid parameters at period.periodType: Invalid option: expected one of "MONTHLY"|"QUARTERLY"|"DAILY"'],
  ])('%j -> %s', async (parameters, message) => {
    const e = await failure('indexed-foot-traffic', parameters);
    expect(e.status).toBe(422);
    expect(e.message).toBe(message);
  });

  it('unknown template ids are 422', async () => {
    expect((await failure('nope', { geographies: geos(1), places: chains(1), period })).message).toBe('Unknown template nope');
  });

  it('user text never reaches the SQL text', async () => {
    const rows = await runTemplate(conn, 'indexed-foot-traffic', { geographies: ["dma:x'); DROP TABLE visits; --"], places: ['chain:sbux'], period }, tables);
    expect(rows[0]!.geography_value).toBe("x'); DROP TABLE visits; --");
    await expect(validateBoundData(conn, tables)).resolves.toMatchObject({ visits: panel.visits.length });
  });
});

describe('template setup', () => {
  it('a referenced parameter must be listed', () => {
    const [first] = footTrafficTemplates();
    const broken = { ...first!, references: [...first!.references, 'income'] };
    expect(() => validateTemplate(broken)).toThrow('Parameter income is not listed in queryParameters');
  });

  it('the group lists every template with labels from the bound data', async () => {
    const labels = await labelsOf(conn, tables);
    const group = footTrafficGroup(labels);
    expect(group.templates.map((t) => t.id)).toEqual([...TEMPLATE_IDS]);
    expect(labels.geographies.labelValueMap).toEqual({ 'country:US': 'US', 'dma:la': 'Los Angeles market area', 'dma:ny': 'New York market area' });
    expect(labels.places.labelValueMap['chain:sbux']).toBe('Starbucks');
    expect(labels.places.labelValueMap['category:fast_food']).toBe('Fast Food');
    const cross = group.templates.find((t) => t.id === 'cross-visitation')!;
    expect(cross.queryParameters.find((q) => q.id === 'places')!.availableValues.every((v) => v.startsWith('chain:'))).toBe(true);
    const pivot = group.templates.find((t) => t.id === 'movement-pivot')!;
    expect(pivot.templateParameters).toEqual([expect.objectContaining({ id: 'movement_pivot_canExport', type: 'BOOLEAN', defaultValue: false })]);
    expect(pivot.queryParameters.find((q) => q.id === 'period')).toMatchObject({ startDate: '2023-01-02', endDate: '2025-12-31' });
  });

  it.each([...TEMPLATE_IDS])('the default query of %s runs', async (id) => {
    const labels = await labelsOf(conn, tables);
    const p = defaultParameters(id, labels);
    expect(p.period).toEqual({ periodType: 'MONTHLY', start: '2025-01', end: '2025-12' });
    expect(p.geographies).toEqual(['country:US']);
    await expect(runTemplate(conn, id, p, tables)).resolves.toBeInstanceOf(Array);
  });

  it('views: grids of 14, 6 and 1 columns', () => {
    const grid = Object.fromEntries(viewsOfGroup.map((v) => [v.title, v.gridColumns]));
    expect(grid).toEqual({
      'Audience Insight': 14, 'Change in Visits': 1, 'Cross-Visitation': 6, 'Customer Journey': 1,
      'Indexed Foot Traffic': 1, 'Movement Pivot': 1, 'Visitation Trends': 1,
    });
    expect(viewsOfGroup.find((v) => v.id === 'audience-insight')!.charts).toHaveLength(4);
    expect(viewsOfGroup.find((v) => v.id === 'visitation-trends')!.templateIds).toEqual(['trends-indexed', 'trends-daypart', 'trends-dwell']);
  });

  it('movement pivot export needs movement_pivot_canExport', () => {
    expect(() => assertCanExport({ movement_pivot_canExport: false })).toThrow(expect.objectContaining({ status: 403 }));
    expect(() => assertCanExport({ movement_pivot_canExport: true })).not.toThrow();
  });
});

describe('bound data', () => {
  it('reports repeated place or device ids', async () => {
    const dup = await loadPanel(conn, { ...panel, places: [...panel.places, panel.places[0]!], devices: [...panel.devices, panel.devices[1]!, panel.devices[2]!] }, 'dup_');
    await expect(validateBoundData(conn, dup)).rejects.toMatchObject({
      status: 422, message: 'Ids must be unique: 1 repeated place_id, 2 repeated device_id',
    });
  });

  it('reports visits with unknown devices or places', async () => {
    const bad = await loadPanel(conn, {
      ...panel,
      visits: [...panel.visits, { visit_id: 'x0', device_id: null as unknown as string, place_id: 'p1', visit_start: '2025-01-01 09:00:00', dwell_minutes: 1 },
        { visit_id: 'x1', device_id: 'ghost', place_id: 'p1', visit_start: '2025-01-01 10:00:00', dwell_minutes: 1 },
        { visit_id: 'x2', device_id: 'd1', place_id: 'nowhere', visit_start: '2025-01-01 10:00:00', dwell_minutes: 1 },
        { visit_id: 'x3', device_id: 'd1', place_id: 'nowhere', visit_start: '2025-01-01 11:00:00', dwell_minutes: 1 }],
    }, 'bad_');
    await expect(validateBoundData(conn, bad)).rejects.toMatchObject({
      status: 422,
      message: 'Visits reference unknown devices or places: 2 visits with an unknown device, 2 with an unknown place',
    });
  });
});
