// map.cold_tile_first_frame (#50): a dataset past the studio's tile threshold (STUDIO_MAP_TILE_ROWS, default
// 2,000,000 rows) with no tiles yet, added to a new map through kepler's "Add Data" as a user adds it: the map
// starts the cut (POST /v1/datasets/{id}/tiles), the background job serves zooms 0–6 first, the map draws them.
// Timed from the click on "Add to map" to the frame drawn once the first tiles are in; the steps on the way are
// printed after the figure (the bench polls the dataset's record itself to see when the low zooms are served).
import { isFinished, type Dataset } from '@studio/schema';
import type { StudioClient } from '@studio/client';
import type { Page } from 'playwright-core';
import { gridParquet } from '../e2e/grid-parquet';

const TIMEOUT_MS = 600_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `n` points on a 4,000-point-high grid 0.0001° apart over San Francisco, made as Parquet by DuckDB (20M in a few
 * seconds) and uploaded as Parquet: a CSV of 20M points would take minutes to make, send and parse.
 */
export async function coldDataset(admin: StudioClient, n: number): Promise<Dataset> {
  const t0 = performance.now();
  const bytes = await gridParquet(n, { columns: 4000, step: 0.0001 });
  let d = await admin.datasets.upload(bytes, { contentType: 'application/vnd.apache.parquet', name: `Bench cold tiles ${n}` });
  while (d.status !== 'ready') {
    if (d.status === 'error' || performance.now() - t0 > TIMEOUT_MS) throw new Error(`ingestion failed: ${JSON.stringify(d)}`);
    await sleep(500);
    d = await admin.datasets.get(d.id);
  }
  if (d.metadata.rowCount !== n || d.metadata.vectorTile) throw new Error(`cold dataset: ${d.metadata.rowCount} rows, tiles ${JSON.stringify(d.metadata.vectorTile)}`);
  console.log(`(setup: ${n} points made as Parquet (${(bytes.byteLength / 2 ** 20).toFixed(0)} MB), uploaded and ingested in ${Math.round(performance.now() - t0)} ms)`);
  return d;
}

/** Milliseconds since `t0`, rounded, or "-" for a step that did not happen. */
const since = (t0: number, t?: number) => (t === undefined ? '-' : `${Math.round(t - t0)}`);

/**
 * /new, "Add Data", the dataset picked and added; answers the milliseconds from the click on "Add to map" to the
 * frame after its first tiles (a vector tile layer of the dataset, no tile request left unanswered, two animation
 * frames), and prints where the time went. Waits for the whole cut to end before answering, so that it cannot
 * slow the measurements after it.
 */
export async function coldTileFirstFrame(page: Page, baseUrl: string, admin: StudioClient, dataset: Dataset): Promise<number> {
  await page.goto(`${baseUrl}/new`);
  await page.waitForFunction(() => window.__studioMapReady === true, undefined, { timeout: TIMEOUT_MS, polling: 50 });
  const seen: Record<string, number> = {};
  const first = (step: string) => (seen[step] ??= performance.now());
  const pending = new Set<string>();
  const zooms = new Set<number>();
  let tiles = 0;
  page.on('request', (r) => {
    const p = new URL(r.url()).pathname;
    if (r.method() === 'POST' && p === `/v1/datasets/${dataset.id}/tiles`) first('cut asked');
    if (!p.startsWith(`/v1/vector-tiles/${dataset.id}/`)) return;
    pending.add(r.url());
    first(p.endsWith('tiles.json') ? 'TileJSON asked' : 'first tile asked');
  });
  const done = (url: string) => {
    const m = /\/(\d+)\/\d+\/\d+$/.exec(new URL(url).pathname);
    if (pending.delete(url) && m) {
      tiles++;
      zooms.add(Number(m[1]));
      first('first tile in');
    }
  };
  page.on('requestfinished', (r) => done(r.url()));
  page.on('requestfailed', (r) => done(r.url()));

  await page.getByText('Add Data', { exact: true }).first().click();
  const picker = page.locator('.add-data');
  await picker.getByLabel('Search datasets').fill(dataset.name);
  await picker.getByRole('checkbox', { name: dataset.name, exact: true }).check();
  const t0 = performance.now();
  await picker.getByRole('button', { name: 'Add to map' }).click();
  await page.mouse.move(2, 2); // off the map: no hover-picking pass counted (see addDataFirstFrame)

  // The dataset's record as the server has it: when the low zooms are served, when the whole pyramid.
  let watching = true;
  const watch = (async () => {
    while (watching) {
      const vt = (await admin.datasets.get(dataset.id)).metadata.vectorTile;
      if (vt) first(vt.cutMaxZoom !== undefined ? 'low zooms served' : 'whole pyramid served');
      if (vt && vt.cutMaxZoom === undefined) return;
      await sleep(100);
    }
  })();
  try {
    await page.waitForFunction((id) => window.__studioMap?.layers().some((l) => l.dataId === id && l.type === 'vectorTile') === true, dataset.id, { timeout: TIMEOUT_MS, polling: 50 });
    first('layer added');
    while (tiles === 0 || pending.size > 0) {
      if (performance.now() - t0 > TIMEOUT_MS) throw new Error('cold tile layer: tiles still loading');
      await sleep(20);
    }
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  } catch (e) {
    await page.screenshot({ path: '/tmp/studio-map-bench-cold-tiles.png' });
    throw e;
  }
  const ms = performance.now() - t0;
  const layers = await page.evaluate(() => window.__studioMap?.layers() ?? []);
  if (layers.length !== 1 || layers[0]!.type !== 'vectorTile') throw new Error(`cold tile layer: unexpected layers ${JSON.stringify(layers)}`);
  const early = seen['whole pyramid served'] === undefined || seen['whole pyramid served'] > seen['layer added']!;

  const job = (await admin.jobs.list({ resourceId: dataset.id })).items.find((j) => j.kind === 'dataset-tiles');
  const pickup = job?.startedAt ? Date.parse(job.startedAt) - Date.parse(job.createdAt) : NaN;
  const steps = ['cut asked', 'low zooms served', 'layer added', 'TileJSON asked', 'first tile asked', 'first tile in'].map((s) => `${s} ${since(t0, seen[s])}`).join(', ');
  console.log(`  studio (/new, Add Data, no tiles yet): ${Math.round(ms)} ms, ${tiles} tiles of zooms ${[...zooms].sort((a, b) => a - b).join(',')} (${early ? 'its low zooms' : 'the whole pyramid'}); ms after "Add to map": ${steps}; job picked up ${pickup} ms after it was queued`);

  // The rest of the pyramid: its time is printed, and nothing of it is left running for the next measurement.
  for (let j = job; j && !isFinished(j.status); j = await admin.jobs.get(j.id)) {
    if (performance.now() - t0 > TIMEOUT_MS) throw new Error('cold tiles: the cut did not end');
    await sleep(500);
  }
  watching = false;
  await watch;
  console.log(`  (the whole pyramid served ${since(t0, seen['whole pyramid served'])} ms after "Add to map")`);
  return ms;
}
