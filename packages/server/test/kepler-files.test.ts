import { describe, expect, it } from 'vitest';
import { KeplerGlSchema } from '@kepler.gl/schemas';
import { processKeplerglJSON } from '@kepler.gl/processors';
import { bindKeplerDataIds, type KeplerFile } from '@studio/schema';
import { STORES, useStudio } from './harness';
import { v0File, v1File } from './kepler-fixtures';

/**
 * kepler.gl's export files (`{datasets, config, info}`), written here in kepler's documented format — configs v0
 * and v1 with point, arc, hexagon and geojson layers, range and time filters, split maps — imported, exported
 * and imported again; kepler's own loader (@kepler.gl/schemas, @kepler.gl/processors) reads what the studio keeps
 * and what it writes.
 */

type SavedLayer = { id: string; type: string; config: { dataId: string } };
const layersOf = (config: unknown) => (config as { config: { visState: { layers: SavedLayer[] } } }).config.visState.layers;

describe.each(STORES)('kepler.gl files (%s)', (store) => {
  const { ctx, as } = useStudio(store);
  const importFile = async (file: unknown) => {
    const res = await as('owner', 'POST', '/v1/maps/import/kepler', file);
    expect([res.statusCode, res.statusCode === 201 ? '' : res.body]).toEqual([201, '']);
    return res.json().item as { id: string; name: string; description: string; importSource: string; latestState: KeplerFile['config']; datasets: { id: string; name: string }[] };
  };
  const datasetCount = async () => Number((await ctx.s.services.db.selectFrom('resources').select((e) => e.fn.countAll().as('n')).where('type', '=', 'dataset').executeTakeFirstOrThrow()).n);

  it('imports a v1 file: a dataset per dataset with its rows, the config bound to them, the map named from its info', async () => {
    const map = await importFile(v1File());
    expect(map).toMatchObject({ name: 'NYC trips', description: 'Pickups, rides and zones', importSource: 'kepler.gl' });
    // A record's datasets come in no particular order: each is found by its name.
    expect(map.datasets.map((d) => d.name).sort()).toEqual(['Trips', 'Zones']);
    const [trips, zones] = ['Trips', 'Zones'].map((n) => map.datasets.find((d) => d.name === n)!.id);
    expect(layersOf(map.latestState).map((l) => [l.id, l.type, l.config.dataId])).toEqual([
      ['pickups', 'point', trips],
      ['rides', 'arc', trips],
      ['density', 'hexagon', trips],
      ['zones', 'geojson', zones],
    ]);
    expect(map.latestState).toEqual(bindKeplerDataIds(v1File().config, new Map([['trips-0', trips!], ['zones-0', zones!]])));

    const tripsData = await as('owner', 'GET', `/v1/datasets/${trips}/preview`);
    expect(tripsData.json().items.map((r: { trip_id: string; fare: number }) => [r.trip_id, r.fare])).toEqual([['007', 12.5], ['008', 7.25], ['009', 21]]);
    const zonesMeta = (await as('owner', 'GET', `/v1/datasets/${zones}`)).json().item;
    expect(zonesMeta.metadata.detected.geometry).toBe('_geojson');
    expect(zonesMeta.metadata.rowCount).toBe(2);
    const tripsMeta = (await as('owner', 'GET', `/v1/datasets/${trips}`)).json().item;
    expect(tripsMeta.metadata.columns.find((c: { name: string }) => c.name === 'tpep_pickup_datetime').type).toBe('TIMESTAMP');

    // kepler's own loader reads the state the builder opens: the four layers on the new datasets, both filters, the split.
    const parsed = KeplerGlSchema.parseSavedConfig(map.latestState as Parameters<typeof KeplerGlSchema.parseSavedConfig>[0]) as unknown as {
      visState: { layers: SavedLayer[]; filters: { dataId: string[]; type: string }[]; splitMaps: unknown[] };
      mapState: { isSplit: boolean };
    };
    expect(parsed.visState.layers.map((l) => [l.type, l.config.dataId])).toEqual([['point', trips], ['arc', trips], ['hexagon', trips], ['geojson', zones]]);
    expect(parsed.visState.filters.map((f) => [f.type, f.dataId])).toEqual([['range', [trips]], ['timeRange', [trips]]]);
    expect(parsed.visState.splitMaps).toHaveLength(2);
    expect(parsed.mapState.isSplit).toBe(true);
  });

  it('imports a v0 file as kepler.gl 1.x saved it; kepler migrates its config when the builder loads it', async () => {
    const map = await importFile(v0File());
    expect(map.name).toBe('Imported kepler.gl map');
    const [trips] = map.datasets.map((d) => d.id);
    expect(map.latestState.version).toBe('v0');
    const parsed = KeplerGlSchema.parseSavedConfig(map.latestState as Parameters<typeof KeplerGlSchema.parseSavedConfig>[0]) as unknown as {
      visState: { layers: SavedLayer[]; filters: { dataId: string | string[] }[]; interactionConfig: { tooltip: { fieldsToShow: Record<string, unknown> } } };
    };
    expect(parsed.visState.layers.map((l) => [l.type, l.config.dataId])).toEqual([['point', trips], ['arc', trips]]);
    // kepler keeps a v0 filter's one dataset as it was saved.
    expect(parsed.visState.filters.map((f) => f.dataId)).toEqual([trips]);
    // kepler turns v0's field names into v1's {name, format} under the new dataset's id.
    expect(parsed.visState.interactionConfig.tooltip.fieldsToShow).toEqual({ [trips!]: [{ name: 'trip_id', format: null }, { name: 'fare', format: null }] });
  });

  it('exports the format kepler.gl loads, and re-importing the export gives the first config back up to dataset ids', async () => {
    const first = await importFile(v1File());
    const exported = await as('owner', 'GET', `/v1/maps/${first.id}/export/kepler`);
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-disposition']).toBe('attachment; filename="NYC_trips.kepler.json"');
    const file = exported.json() as KeplerFile;
    expect(file.info).toMatchObject({ app: 'kepler.gl', title: 'NYC trips', description: 'Pickups, rides and zones' });
    const firstId = (name: string) => first.datasets.find((d) => d.name === name)!.id;
    // In the order the datasets were made.
    expect(file.datasets.map((d) => [d.data.id, d.data.label, d.data.allData.length])).toEqual([[firstId('Trips'), 'Trips', 3], [firstId('Zones'), 'Zones', 2]]);
    const zonesOut = file.datasets[1]!.data;
    expect(zonesOut.fields.map((f) => [f.name, f.type])).toEqual([['_geojson', 'geojson'], ['zone', 'string'], ['score', 'integer']]);
    expect((zonesOut.allData[0]![0] as { geometry: { type: string } }).geometry.type).toBe('Polygon');

    // kepler's own code reads the file: its schema loads config and datasets, its processors make tables of them.
    const loaded = KeplerGlSchema.load(file.datasets as Parameters<typeof KeplerGlSchema.load>[0], file.config as Parameters<typeof KeplerGlSchema.load>[1]) as { datasets: { info: { id: string } }[]; config: { visState: { layers: unknown[] } } };
    expect(loaded.datasets.map((d) => d.info.id)).toEqual([firstId('Trips'), firstId('Zones')]);
    expect(loaded.config.visState.layers).toHaveLength(4);
    const processed = processKeplerglJSON(file as Parameters<typeof processKeplerglJSON>[0]) as { datasets: { info: { id: string }; data: { fields: { name: string; type: string }[]; rows: unknown[][] } }[] };
    const tripsTable = processed.datasets[0]!.data;
    expect(tripsTable.rows).toHaveLength(3);
    expect(tripsTable.fields.find((f) => f.name === 'tpep_pickup_datetime')!.type).toBe('timestamp');

    const second = await importFile(file);
    const back = new Map(second.datasets.map((d) => [d.id, firstId(d.name)]));
    expect(bindKeplerDataIds(second.latestState, back)).toEqual(first.latestState);
  });

  it.each([
    ['a row shorter than its fields', (f: KeplerFile) => f.datasets[0]!.data.allData.push(['010', 40.7]), 422, /row 4 of trips-0 has 2 values for 7 fields/],
    ['two datasets with one id', (f: KeplerFile) => (f.datasets[1]!.data.id = 'trips-0'), 422, /dataset id trips-0 is used twice/],
    ['no config', (f: KeplerFile) => delete (f as Partial<KeplerFile>).config, 422, /config/],
    ['a value its field type cannot hold (the second dataset)', (f: KeplerFile) => (f.datasets[1]!.data.allData[1]![2] = 'eight'), 422, /./],
  ])('refuses %s and keeps nothing of it', async (_label, spoil, status, message) => {
    const before = await datasetCount();
    const maps = (await as('owner', 'GET', '/v1/maps?limit=1000')).json().total;
    const file = v1File();
    spoil(file);
    const res = await as('owner', 'POST', '/v1/maps/import/kepler', file);
    expect(res.statusCode).toBe(status);
    expect(res.json().message).toMatch(message);
    expect(await datasetCount()).toBe(before);
    expect((await as('owner', 'GET', '/v1/maps?limit=1000')).json().total).toBe(maps);
  });

  it("does not export another organization's map; a colleague it is shared with exports it with the datasets the map lets them read", async () => {
    const map = await importFile(v1File());
    expect((await as('outsider', 'GET', `/v1/maps/${map.id}/export/kepler`)).statusCode).toBe(404);
    const shared = await as('owner', 'POST', `/v1/maps/${map.id}/share`, { users: [{ userId: ctx.cast.users.colleague.id, role: 'viewer' }] });
    expect(shared.statusCode).toBe(200);
    const theirs = await as('colleague', 'GET', `/v1/maps/${map.id}/export/kepler`);
    expect(theirs.statusCode).toBe(200);
    const ids = theirs.json().datasets.map((d: { data: { id: string } }) => d.data.id);
    expect([...ids].sort()).toEqual(map.datasets.map((d) => d.id).sort());
    for (const id of ids) expect((await as('colleague', 'GET', `/v1/datasets/${id}`)).statusCode).toBe(200);
  });
});
