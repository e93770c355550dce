import { beforeAll, describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { waitMapReady } from './pixels';
import { gridParquet } from './grid-parquet';

const browser = useBrowser();

/** The figure: five million points, past the studio's default 2,000,000-row threshold (the e2e server keeps it). */
const POINTS = 5_000_000;

/** Sixty points in the city: well within the threshold. */
const FEW = ['name,lat,lng', ...Array.from({ length: 60 }, (_, i) => `p${i},${(37.70 + (i % 10) * 0.015).toFixed(4)},${(-122.50 + Math.floor(i / 10) * 0.03).toFixed(4)}`)].join('\n');

type Maker = Awaited<ReturnType<typeof createUser>>;

describe('a large dataset added to a map is drawn from its own tiles (#50)', () => {
  let maker: Maker;
  let big: { id: string; name: string };
  let grid: Uint8Array<ArrayBuffer>;
  let teamId: string;
  beforeAll(async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Tile threshold team ${unique()}`);
    teamId = team.id;
    maker = await createUser(admin, team.id, 'Tess Threshold', `tess.${unique()}@e2e.studio.test`);
    grid = await gridParquet(POINTS);
    big = await maker.client.datasets.upload(grid, { contentType: 'application/vnd.apache.parquet', name: `Grid ${unique()}` });
  }, 120_000);

  it('cuts its tiles on the spot with the progress in the layer panel, draws from them, says why, and never downloads its rows', async () => {
    const meta = await maker.client.datasets.get(big.id);
    expect([meta.metadata.rowCount, meta.metadata.vectorTile ?? null]).toEqual([POINTS, null]);
    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    const requests: string[] = [];
    page.on('request', (r) => requests.push(`${r.method()} ${new URL(r.url()).pathname}`));
    // Whatever its address, no answer the page gets is an Arrow stream (the way the map downloads rows).
    const arrows: string[] = [];
    page.on('response', (r) => void r.headerValue('content-type').then((t) => t?.includes('apache.arrow') && arrows.push(r.url()), () => undefined));
    await signInThroughUi(page, baseUrl(), maker.email, maker.password);
    await page.goto(`${baseUrl()}/new`);
    await waitMapReady(page);

    // Added through kepler's "Add Data" (the studio's catalog picker): the window closes while the tiles are cut.
    await page.getByText('Add Data', { exact: true }).first().click();
    const picker = page.locator('.add-data');
    await picker.getByLabel('Search datasets').fill(big.name);
    await picker.getByRole('checkbox', { name: big.name }).check();
    await picker.getByRole('button', { name: 'Add to map' }).click();
    await picker.waitFor({ state: 'detached' });

    // The layer panel: the dataset, the choice with this studio's threshold, and the cut's progress.
    const cutting = page.getByRole('status', { name: `Tiles of ${big.name}` });
    await cutting.waitFor({ timeout: 30_000 });
    expect(await cutting.textContent()).toContain("Drawn from tiles: 5,000,000 rows is past this studio's 2,000,000-row threshold");
    await cutting.getByText(/(Cutting its tiles|cutting the rest): (Queued|Running: \d+%)/).waitFor();

    // Then the layer: a vector tile layer of the dataset, drawn from tiles the browser asks for.
    await expect.poll(() => page.evaluate(() => window.__studioMap!.layers().map((l) => [l.type, l.dataId])), { timeout: 60_000 }).toEqual([['vectorTile', big.id]]);
    const note = page.getByTestId('layer-draw-note');
    await note.waitFor();
    expect(await note.textContent()).toContain("Drawn from tiles: 5,000,000 rows is past this studio's 2,000,000-row threshold");
    await note.getByRole('button', { name: 'Draw all rows' }).waitFor();
    await page.screenshot({ path: '/tmp/studio-map-tiles-threshold.png' });
    await expect.poll(() => requests.filter((r) => /^GET \/v1\/vector-tiles\/[^/]+\/\d+\/\d+\/\d+$/.test(r)).length, { timeout: 30_000 }).toBeGreaterThan(0);
    // The layer may show its low zooms (0–6) while the rest is cut; once the cut ends it draws from all of them.
    await cutting.waitFor({ state: 'detached', timeout: 60_000 });
    await page.evaluate(() => window.__studioMap!.setView({ latitude: 37.8, longitude: -122.35, zoom: 11 }));
    const deep = (r: string) => new RegExp(`^GET /v1/vector-tiles/${big.id}/(\\d+)/`).exec(r)?.[1];
    await expect.poll(() => requests.some((r) => Number(deep(r) ?? 0) >= 10), { timeout: 30_000 }).toBe(true);
    expect(requests).toContain(`POST /v1/datasets/${big.id}/tiles`);

    // The tiles are the dataset's own (no new dataset), cut by one job, and its rows were never asked for.
    const jobs = (await maker.client.jobs.list({ resourceId: big.id })).items;
    expect(jobs.map((j) => [j.kind, j.status])).toEqual([['dataset-tiles', 'succeeded']]);
    expect((await maker.client.datasets.get(big.id)).metadata.vectorTile).toMatchObject({ featureCount: POINTS });
    expect(requests.filter((r) => r.endsWith(`/v1/datasets/${big.id}/data`))).toEqual([]);
    expect(arrows).toEqual([]);
    const allowed = [`^GET /v1/datasets/${big.id}(/tiles/link)?$`, `^POST /v1/datasets/${big.id}/tiles$`, `^GET /v1/vector-tiles/${big.id}/(tiles\\.json|\\d+/\\d+/\\d+)$`].map((p) => new RegExp(p));
    expect(requests.filter((r) => r.includes(big.id) && !allowed.some((a) => a.test(r)))).toEqual([]);
    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 120_000);

  it("a layer's override: a small dataset set to tiles is cut and drawn from them, and the saved map opens it so", async () => {
    const small = await maker.client.datasets.upload(FEW, { contentType: 'text/csv', name: `Few points ${unique()}` });
    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    const requests: string[] = [];
    page.on('request', (r) => requests.push(`${r.method()} ${new URL(r.url()).pathname}`));
    await signInThroughUi(page, baseUrl(), maker.email, maker.password);
    await page.goto(`${baseUrl()}/new?datasetUuid=${small.id}`);
    await waitMapReady(page);
    const layers = () => page.evaluate(() => window.__studioMap!.layers().map((l) => l.type));
    await expect.poll(layers, { timeout: 30_000 }).toEqual(['point']);
    const note = page.getByTestId('layer-draw-note');
    await note.getByText("All 60 rows drawn: within this studio's threshold: 2,000,000 rows or 250 MB").waitFor();

    await note.getByRole('button', { name: 'Use tiles' }).click();
    await expect.poll(layers, { timeout: 60_000 }).toEqual(['vectorTile']);
    await note.getByText("Drawn from tiles, as set for this layer (60 rows; this studio's threshold: 2,000,000 rows or 250 MB)").waitFor();
    await page.getByLabel('Map name').fill(`Few points ${unique()}`);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const mapId = new URL(page.url()).pathname.slice(1);
    expect(((await maker.client.records('maps').get(mapId)).latestState as { draw?: unknown }).draw).toEqual({ [small.id]: 'tiles' });

    // Opened again: drawn from its tiles as the layer was set, without asking for its rows.
    requests.length = 0;
    await page.reload();
    await waitMapReady(page);
    await expect.poll(layers, { timeout: 30_000 }).toEqual(['vectorTile']);
    await note.getByText('Drawn from tiles, as set for this layer', { exact: false }).waitFor();
    expect(requests.filter((r) => r.endsWith(`/v1/datasets/${small.id}/data`))).toEqual([]);

    // Published, it draws as it was saved: from the dataset's own tiles, not its rows.
    await maker.client.maps.publish(mapId);
    requests.length = 0;
    await page.goto(`${baseUrl()}/public/${mapId}`);
    await expect.poll(layers, { timeout: 30_000 }).toEqual(['vectorTile']);
    expect(requests).toContain(`GET /v1/maps/${mapId}/published-map/datasets/${small.id}/tiles/link`);
    expect(requests.filter((r) => r.endsWith(`/published-map/datasets/${small.id}`))).toEqual([]);
    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 120_000);

  // Last: it replaces the large dataset's data, so the tiles the first test cut no longer show it.
  it('a viewer, who may not cut tiles, still sees the map\'s other layers, and the panel says why the large one is missing', async () => {
    const admin = await asAdmin();
    const viewer = await createUser(admin, teamId, 'Vic Viewer', `vic.${unique()}@e2e.studio.test`);
    const small = await maker.client.datasets.upload(FEW, { contentType: 'text/csv', name: `Few points ${unique()}` });
    const map = await maker.client.records('maps').save({ name: `Both ${unique()}`, datasets: [small.id, big.id] });
    await maker.client.permissions.grantMany([map.id, small.id, big.id].map((resourceId, i) => ({ resourceType: i ? 'dataset' : 'map', resourceId, role: 'viewer', email: viewer.email })));
    await maker.client.datasets.upload(grid, { contentType: 'application/vnd.apache.parquet' }, big.id);

    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    const requests: string[] = [];
    page.on('request', (r) => requests.push(`${r.method()} ${new URL(r.url()).pathname}`));
    await signInThroughUi(page, baseUrl(), viewer.email, viewer.password);
    await page.goto(`${baseUrl()}/${map.id}`);
    const missing = page.getByRole('status', { name: `Tiles of ${big.name}` });
    await missing.waitFor({ timeout: 30_000 });
    expect(await missing.textContent()).toContain("Drawn from tiles: 5,000,000 rows is past this studio's 2,000,000-row threshold");
    await missing.getByText('It has no tiles of its current data yet, and only its editors may cut them').waitFor();
    await missing.getByRole('button', { name: 'Draw all rows' }).waitFor();
    await expect.poll(() => page.evaluate(() => window.__studioMap?.layers().map((l) => [l.type, l.dataId])), { timeout: 30_000 }).toEqual([['point', small.id]]);
    await page.screenshot({ path: '/tmp/studio-map-tiles-viewer.png' });
    expect(requests).toContain(`POST /v1/datasets/${big.id}/tiles`);
    expect(requests.filter((r) => r.endsWith(`/v1/datasets/${big.id}/data`))).toEqual([]);
    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 120_000);
});
