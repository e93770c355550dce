import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSamplePanel } from '@studio/analytics';
import { parseDashboardState, parseWorkbookState } from '@studio/schema';
import { upgradeMapState } from '../../web/src/map/state/versions';
import { ensureSamples } from '../src/samples';
import { SAMPLE_DATASETS } from '../src/samples/datasets';
import { STORES, useStudio } from './harness';

/** The two datasets the sample maps, dashboard and workbook need, instead of all five (the counties take long). */
const NEEDED = SAMPLE_DATASETS.filter((d) => d.name === 'World cities' || d.name === 'Earthquakes (one week)');

describe.each(STORES)('sample maps, dashboard and workbook on %s', (kind) => {
  const { ctx, as } = useStudio(kind);
  let dir: string;
  let placesFile: string;
  const run = async () => ensureSamples(ctx.s.services, await ctx.s.services.auth.callerOf(ctx.cast.users.admin.id, 'session', 'test'), { placesFile, datasets: NEEDED });
  const items = async (url: string) => (await as('outsider', 'GET', url)).json().items as { id: string; name: string; access: string; isSample: boolean }[];

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-sample-panel-'));
    placesFile = (await generateSamplePanel({ dir, visits: 2000 })).files.places;
  }, 120_000);
  afterAll(async () => dir && fs.rm(dir, { recursive: true, force: true }));

  it('are built once over the sample datasets, in the states their editors save, listed as samples for everyone', async () => {
    // 3 datasets (cities, earthquakes, places), 3 maps, a dashboard, a workbook.
    expect(await run()).toBe(8);
    expect(await run()).toBe(0);
    const maps = await items('/v1/maps/samples');
    expect(maps.map((m) => m.name).sort()).toEqual(['Earthquakes of one week', 'Foot-traffic places as hexagons', 'World cities by population']);
    expect(maps.every((m) => m.isSample && m.access === 'viewer')).toBe(true);
    const [dashboard] = await items('/v1/dashboards/samples');
    const [workbook] = await items('/v1/workbooks/samples');
    expect([dashboard?.name, workbook?.name]).toEqual(['World cities dashboard', 'Cities of a million, by country']);
    // Not in anyone's own or organization lists.
    expect((await items('/v1/maps/for-organization')).filter((m) => m.isSample)).toEqual([]);

    for (const m of maps) {
      const state = upgradeMapState((await as('outsider', 'GET', `/v1/maps/${m.id}`)).json().item.latestState);
      expect(state?.kepler.version).toBe('v1');
    }
    const board = parseDashboardState((await as('outsider', 'GET', `/v1/dashboards/${dashboard!.id}`)).json().item.latestState);
    expect(board.widgets.map((w) => w.kind)).toEqual(['kpi', 'bar', 'map']);
    expect(parseWorkbookState((await as('outsider', 'GET', `/v1/workbooks/${workbook!.id}`)).json().item.latestState).cells.map((c) => c.kind)).toEqual(['markdown', 'step', 'step', 'step', 'chart']);

    // The earthquakes' time is a timestamp (the map's time filter needs one); the places have a location.
    const datasets = Object.fromEntries((await items('/v1/datasets/sample')).map((d) => [d.name, d as unknown as { metadata: { columns: { name: string; type: string }[] } }]));
    const typeOf = (name: string, column: string) => datasets[name]!.metadata.columns.find((c) => c.name === column)?.type;
    expect(typeOf('Earthquakes (one week)', 'time')).toMatch(/^TIMESTAMP/);
    expect([typeOf('Foot-traffic places', 'latitude'), typeOf('Foot-traffic places', 'longitude')]).toEqual(['DOUBLE', 'DOUBLE']);
  }, 240_000);

  it('the dashboard answers for the world and for one country picked in its dropdown', async () => {
    const [dashboard] = await items('/v1/dashboards/samples');
    const kpi = async (parameters: Record<string, string>) => (await as('outsider', 'POST', `/v1/dashboards/${dashboard!.id}/widgets/people/query`, { parameters })).json().item;
    const answer = await kpi({});
    expect(answer.rows, JSON.stringify(answer)).toHaveLength(1);
    const world = answer.rows[0][0];
    const japan = (await kpi({ country: 'JP' })).rows[0][0];
    expect(world).toBeGreaterThan(japan);
    expect(japan).toBeGreaterThan(50_000_000);
  });

  it('are read-only for everyone, their owner and administrators in admin mode included, and duplicated on request', async () => {
    const [map] = await items('/v1/maps/samples');
    const readOnly = [403, 'Samples are read-only, for administrators too: duplicate this map to change a copy of your own'];
    const said = async (res: Promise<{ statusCode: number; json: () => { message: string } }>) => {
      const r = await res;
      return [r.statusCode, r.json().message];
    };
    expect(await said(as('admin', 'PUT', `/v1/maps/${map!.id}`, { name: 'Mine now' }))).toEqual(readOnly);
    expect(await said(as('admin', 'PUT', `/v1/maps/${map!.id}?isAdmin=true`, { name: 'Mine now' }))).toEqual(readOnly);
    expect(await said(as('admin', 'DELETE', `/v1/maps/${map!.id}?isAdmin=true`))).toEqual(readOnly);
    expect(await said(as('admin', 'POST', `/v1/maps/${map!.id}/share`, { emails: [{ email: 'owner@acme.test', role: 'editor' }] }))).toEqual(readOnly);
    expect(await said(as('outsider', 'PUT', `/v1/maps/${map!.id}`, { name: 'Mine now' }))).toEqual(readOnly);
    expect((await as('admin', 'GET', `/v1/maps/${map!.id}?isAdmin=true`)).json().item.access).toBe('viewer');
    const copy = await as('outsider', 'POST', `/v1/maps/${map!.id}/clone`);
    expect(copy.statusCode, copy.body).toBe(201);
    expect(copy.json().item).toMatchObject({ isSample: false, access: 'owner', name: `Copy of ${map!.name}` });
    expect((await as('outsider', 'PUT', `/v1/maps/${copy.json().item.id}`, { name: 'Mine now' })).statusCode).toBe(200);
  });

  it('a sample an installation lacks is added at its next start, and only that one', async () => {
    const [workbook] = await items('/v1/workbooks/samples');
    await ctx.s.services.db.deleteFrom('resources').where('id', '=', workbook!.id).execute();
    expect(await run()).toBe(1);
    expect((await items('/v1/workbooks/samples')).map((w) => w.name)).toEqual(['Cities of a million, by country']);
    expect(await items('/v1/maps/samples')).toHaveLength(3);
  });
});
