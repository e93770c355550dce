// Map first frame (Maps issue): time from page.goto(`/${mapId}`) to `window.__studioMapReady` (the first
// frame drawn with the layer; data loaded as Arrow) against the baseline, the same map's data loaded the
// way stock kepler.gl loads a file (CSV text through kepler's own processCsvData, same addDataToMap and
// config, same basemap) on the app's `/bench/kepler-csv/{mapId}` page, in the same Chromium.
// BENCH_MAP_POINTS (default 1,000,000) points (lat, lng, value). Runs the built app on the real server,
// started as the browser tests start it (e2e/global-setup.ts, which also rebuilds a stale app).
// Two more figures, each against a measurement of the same run:
// - map.add_data_first_frame: /new, kepler's "Add Data" (the studio's catalog picker), the same dataset picked
//   and added, to the frame that draws it; against the stock kepler.gl CSV baseline (target <= 0.5).
// - map.tile_first_frame: a vector-tile dataset of BENCH_MAP_TILE_POINTS (default 10,000,000) points, tiled
//   by the studio from a query on the embedded engine, opened in /new until its tiles are drawn; against the
//   N-point Arrow map above (target <= 1.0: with tiles, size stops mattering). BENCH_MAP_TILE_POINTS=0 skips it.
// - map.cold_tile_first_frame (#50): a dataset of BENCH_MAP_COLD_POINTS (default 20,000,000) points with no tiles
//   yet, added to a new map ("Add Data"): the map cuts its tiles on the spot and draws zooms 0–6 first; from the
//   click on "Add to map" to that frame (bench/cold-tiles.ts), against the same N-point Arrow map (target <= 1.0).
//   BENCH_MAP_COLD_POINTS=0 skips it.
// Standalone: `npx tsx packages/web/bench/map.bench.ts`. Each page's steps (user-timing marks the app sets,
// src/map/timing.ts) are printed after the figure; BENCH_MAP_TRACE=1 also traces the browser and prints
// how much of each page's time the GPU process spent running WebGL commands (SwiftShader, software).
import http from 'node:http';
import os from 'node:os';
import type { CDPSession, Page } from 'playwright-core';
import { ADMIN } from '../e2e/global-setup';
import { openStudio, signInThroughUi } from '../e2e/browser';
import { uploadReady, withBenchStudio } from './bench-studio';
import { coldDataset, coldTileFirstFrame } from './cold-tiles';

const N = Number(process.env.BENCH_MAP_POINTS ?? 1_000_000);
const TILE_POINTS = Number(process.env.BENCH_MAP_TILE_POINTS ?? 10_000_000);
const COLD_POINTS = Number(process.env.BENCH_MAP_COLD_POINTS ?? 20_000_000);
/** BENCH_MAP_CSV=0: no stock kepler.gl page (nor the figures against it), only the tile figures against the Arrow map. */
const CSV = process.env.BENCH_MAP_CSV !== '0';
const READY_TIMEOUT_MS = 300_000;
const TRACE = process.env.BENCH_MAP_TRACE === '1';


// window.__studioMapReady / __studioMap are declared by the app (src/map/kepler).

const loadLine = () => `${os.loadavg().map((l) => l.toFixed(2)).join(' ')} on ${os.cpus().length} cores`;

/** N points around San Francisco from a fixed-seed generator, as CSV. */
function pointsCsv(n: number): string {
  let seed = 42;
  const rand = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const lines = ['lat,lng,value'];
  for (let i = 0; i < n; i++) lines.push(`${(37.6 + rand() * 0.3).toFixed(6)},${(-122.6 + rand() * 0.3).toFixed(6)},${(rand() * 100).toFixed(3)}`);
  return lines.join('\n');
}

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  ts: number;
  dur?: number;
  args?: { name?: string };
}

/**
 * The GPU process's time running WebGL command buffers and its longest runs: a frame that draws the
 * point layer is one run of seconds (software WebGL), so the runs count the layer's frames.
 */
function webglWork(events: TraceEvent[]): string {
  const gpu = new Set(events.filter((e) => e.ph === 'M' && e.name === 'process_name' && e.args?.name === 'GPU Process').map((e) => e.pid));
  const start = events.reduce((min, e) => (e.ts > 0 && e.ts < min ? e.ts : min), Infinity);
  const runs = events.filter((e) => gpu.has(e.pid) && e.ph === 'X' && e.name === 'CommandBufferService:PutChanged').map((e) => ({ at: (e.ts - start) / 1000, ms: (e.dur ?? 0) / 1000 }));
  const longest = [...runs].sort((a, b) => b.ms - a.ms).slice(0, 6);
  const total = runs.reduce((sum, r) => sum + r.ms, 0);
  return `WebGL commands ${Math.round(total)} ms, longest runs ${longest.map((r) => `${Math.round(r.ms)} ms at ${Math.round(r.at)}`).join(', ')}`;
}

async function startTrace(cdp: CDPSession): Promise<void> {
  await cdp.send('Tracing.start', { categories: 'toplevel,gpu', transferMode: 'ReturnAsStream' });
}

async function stopTrace(cdp: CDPSession): Promise<TraceEvent[]> {
  const done = new Promise<string>((resolve) => cdp.once('Tracing.tracingComplete', (e) => resolve(e.stream!)));
  await cdp.send('Tracing.end');
  const handle = await done;
  let text = '';
  for (;;) {
    const chunk = await cdp.send('IO.read', { handle, size: 1 << 22 });
    text += chunk.base64Encoded ? Buffer.from(chunk.data, 'base64').toString() : chunk.data;
    if (chunk.eof) break;
  }
  await cdp.send('IO.close', { handle });
  const parsed = JSON.parse(text) as { traceEvents: TraceEvent[] } | TraceEvent[];
  return Array.isArray(parsed) ? parsed : parsed.traceEvents;
}

/** The app's `studio:map-*` marks, as `step at N ms` from navigation. */
async function steps(page: Page): Promise<string> {
  const marks = await page.evaluate(() => performance.getEntriesByType('mark').filter((m) => m.name.startsWith('studio:map-')).map((m) => [m.name, m.startTime] as const));
  const last = new Map(marks);
  return [...last].map(([name, at]) => `${name.slice('studio:map-'.length)} at ${Math.round(at)} ms`).join(', ');
}

/**
 * Waits until the page draws no more (three checks in a row where two animation frames come quickly: a
 * frame drawing the layer holds them for seconds), so that work left over from one page cannot slow the
 * next measurement. Returns how long that took.
 */
async function settle(page: Page): Promise<number> {
  const t0 = performance.now();
  for (let quiet = 0; quiet < 3 && performance.now() - t0 < READY_TIMEOUT_MS; ) {
    const ms = await page.evaluate(() => new Promise<number>((resolve) => {
      const start = performance.now();
      requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - start)));
    }));
    quiet = ms < 150 ? quiet + 1 : 0;
    await page.waitForTimeout(300);
  }
  return performance.now() - t0;
}

/** Milliseconds from navigation to the first frame with layers; also checks the layer is the point layer. */
async function firstFrame(page: Page, url: string, datasetId: string, label: string): Promise<number> {
  const cdp = TRACE ? await page.context().newCDPSession(page) : null;
  if (cdp) await startTrace(cdp);
  const t0 = performance.now();
  await page.goto(url);
  try {
    // The app's error (role=alert) ends the wait too, instead of the whole timeout.
    await page.waitForFunction(() => window.__studioMapReady === true || document.querySelector('[role=alert]') !== null, undefined, { timeout: READY_TIMEOUT_MS, polling: 50 });
    const alert = await page.locator('[role=alert]').allTextContents();
    if (alert.length) throw new Error(alert.join('; '));
  } catch (e) {
    await page.screenshot({ path: '/tmp/studio-map-bench-not-ready.png' });
    throw new Error(`${url}: no first frame after ${Math.round(performance.now() - t0)} ms (screenshot /tmp/studio-map-bench-not-ready.png)`, { cause: e });
  }
  const ms = performance.now() - t0;
  const layers = await page.evaluate(() => window.__studioMap?.layers() ?? []);
  if (layers.length !== 1 || layers[0]!.type !== 'point' || layers[0]!.dataId !== datasetId) throw new Error(`${url}: unexpected layers ${JSON.stringify(layers)}`);
  const marks = await steps(page);
  const after = await settle(page);
  console.log(`  ${label}: ${Math.round(ms)} ms; ${marks}; settled ${Math.round(after)} ms after${cdp ? `; ${webglWork(await stopTrace(cdp))}` : ''}`);
  if (cdp) await cdp.detach();
  return ms;
}

/**
 * /new, then "Add Data" → the catalog picker → the dataset found by name → "Add to map", until the frame
 * that draws it: milliseconds from navigation, as for the other pages.
 */
async function addDataFirstFrame(page: Page, baseUrl: string, dataset: { id: string; name: string }): Promise<number> {
  const t0 = performance.now();
  await page.goto(`${baseUrl}/new`);
  await page.waitForFunction(() => window.__studioMapReady === true, undefined, { timeout: READY_TIMEOUT_MS, polling: 50 });
  await page.getByText('Add Data', { exact: true }).first().click();
  const picker = page.locator('.add-data');
  await picker.getByLabel('Search datasets').fill(dataset.name);
  await picker.getByRole('checkbox', { name: dataset.name, exact: true }).check();
  await picker.getByRole('button', { name: 'Add to map' }).click();
  // The pointer leaves for the page header: left over the map when the picker closes, Chromium's synthetic
  // mousemove makes deck render its hover-picking pass of every point right after the first frame (as
  // any hover does, on both paths), and the two frames below would count it too.
  await page.mouse.move(2, 2);
  await page.waitForFunction((id) => window.__studioMap?.layers().some((l) => l.dataId === id) === true, dataset.id, { timeout: READY_TIMEOUT_MS, polling: 50 });
  // The layer exists; the next two animation frames come after the frame that draws it.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const ms = performance.now() - t0;
  const layers = await page.evaluate(() => window.__studioMap?.layers() ?? []);
  if (layers.length !== 1 || layers[0]!.type !== 'point') throw new Error(`Add Data: unexpected layers ${JSON.stringify(layers)}`);
  console.log(`  studio (/new, Add Data): ${Math.round(ms)} ms; settled ${Math.round(await settle(page))} ms after`);
  return ms;
}

/**
 * A vector-tile dataset opened in /new until its tiles are drawn: the map's first frame, then no tile
 * request left unanswered, then two animation frames.
 */
async function tileFirstFrame(page: Page, baseUrl: string, datasetId: string): Promise<number> {
  const pending = new Set<string>();
  let tiles = 0;
  page.on('request', (r) => r.url().includes(`/v1/vector-tiles/${datasetId}/`) && pending.add(r.url()));
  const done = (url: string) => {
    if (pending.delete(url) && /\/\d+\/\d+\/\d+/.test(new URL(url).pathname)) tiles++;
  };
  page.on('requestfinished', (r) => done(r.url()));
  page.on('requestfailed', (r) => done(r.url()));
  const t0 = performance.now();
  await page.goto(`${baseUrl}/new?datasetUuid=${datasetId}`);
  await page.waitForFunction(() => window.__studioMapReady === true, undefined, { timeout: READY_TIMEOUT_MS, polling: 50 });
  while (tiles === 0 || pending.size > 0) {
    if (performance.now() - t0 > READY_TIMEOUT_MS) throw new Error('tile layer: tiles still loading');
    await page.waitForTimeout(20);
  }
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const ms = performance.now() - t0;
  const layers = await page.evaluate(() => window.__studioMap?.layers() ?? []);
  if (layers.length !== 1 || layers[0]!.type !== 'vectorTile') throw new Error(`tile layer: unexpected layers ${JSON.stringify(layers)}`);
  console.log(`  studio (vector tiles): ${Math.round(ms)} ms, ${tiles} tiles; settled ${Math.round(await settle(page))} ms after`);
  return ms;
}

/** PUT /v1/data-queries/vector-tiling: answers at once with the pending dataset; a background job cuts the pyramid. */
function tileQuery(baseUrl: string, token: string, body: unknown): Promise<{ id: string }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = http.request(`${baseUrl}/v1/data-queries/vector-tiling`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => (res.statusCode === 201 ? resolve((JSON.parse(text) as { item: { id: string } }).item) : reject(new Error(`vector tiling: ${res.statusCode} ${text}`))));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function main() {
  // The server's sample data (generated in the background on a first start) would compete for the two
  // cores with the measured pages.
  process.env.STUDIO_SAMPLES ??= 'off';
  await withBenchStudio(async ({ baseUrl, browser, admin }) => {

    const tUp = performance.now();
    const dataset = await uploadReady(admin, pointsCsv(N), { contentType: 'text/csv', name: `Bench points ${N}` });
    console.log(`(setup: ${N} points uploaded and ingested in ${Math.round(performance.now() - tUp)} ms)`);
    const cold = COLD_POINTS > 0 ? await coldDataset(admin, COLD_POINTS) : null;

    // A saved point layer on lat/lng, as the map view saves it: both pages apply this config.
    const latestState = {
      studioVersion: 1,
      kepler: {
        version: 'v1',
        config: {
          visState: {
            layers: [
              {
                id: 'bench-points',
                type: 'point',
                config: { dataId: dataset.id, label: 'Points', color: [18, 147, 154], columns: { lat: 'lat', lng: 'lng' }, isVisible: true, visConfig: { radius: 2, opacity: 0.8 } },
                visualChannels: { colorField: null, colorScale: 'quantile', sizeField: null, sizeScale: 'linear' },
              },
            ],
          },
          mapState: { latitude: 37.75, longitude: -122.45, zoom: 10, bearing: 0, pitch: 0 },
          mapStyle: { styleType: 'light' },
        },
      },
    };
    const map = await admin.records('maps').save({ name: `Bench map ${N}`, datasets: [dataset.id], latestState });

    const { context, page } = await openStudio(browser, baseUrl);
    await signInThroughUi(page, baseUrl, ADMIN.email, ADMIN.password);
    // Warm-up: kepler's chunk (3 MB gzipped) in the cache for both measurements.
    await page.goto(`${baseUrl}/new`);
    await page.waitForFunction(() => window.__studioMapReady === true, undefined, { timeout: READY_TIMEOUT_MS });
    await page.close();

    // Each page in a tab of its own, closed once it has settled: a page navigated away from could still
    // be drawing while the next one loads (same renderer). The baseline goes first, so anything left over
    // would slow our page, not the baseline.
    const inTab = async <T>(fn: (tab: Page) => Promise<T>) => {
      const tab = await context.newPage();
      tab.on('pageerror', (e) => console.error('pageerror', e.message));
      tab.setDefaultTimeout(READY_TIMEOUT_MS);
      try {
        return await fn(tab);
      } finally {
        await tab.close();
      }
    };
    const measure = (url: string, label: string) => inTab((tab) => firstFrame(tab, url, dataset.id, label));
    let studio: number;
    if (CSV) {
      const baseline = await measure(`${baseUrl}/bench/kepler-csv/${map.id}`, 'baseline (CSV)');
      studio = await measure(`${baseUrl}/${map.id}`, 'studio (Arrow)');
      console.log(`map.first_frame ${N} points: ${Math.round(studio)} ms (ratio ${(studio / baseline).toFixed(2)} vs baseline stock kepler.gl CSV ${Math.round(baseline)} ms; target <= 0.5)`);
      const added = await inTab((tab) => addDataFirstFrame(tab, baseUrl, { id: dataset.id, name: dataset.name }));
      console.log(`map.add_data_first_frame ${N} points: ${Math.round(added)} ms (ratio ${(added / baseline).toFixed(2)} vs baseline stock kepler.gl CSV ${Math.round(baseline)} ms; target <= 0.5; load ${loadLine()})`);
    } else studio = await measure(`${baseUrl}/${map.id}`, 'studio (Arrow)'); // the tile figures' baseline alone

    if (cold) {
      const coldMs = await inTab((tab) => coldTileFirstFrame(tab, baseUrl, admin, cold));
      console.log(`map.cold_tile_first_frame ${COLD_POINTS} points, no tiles yet: ${Math.round(coldMs)} ms (ratio ${(coldMs / studio).toFixed(2)} vs the ${N}-point Arrow map ${Math.round(studio)} ms; target <= 1.0; load ${loadLine()})`);
    }

    if (TILE_POINTS > 0) {
      const tTile = performance.now();
      // The Arrow map's points, TILE_POINTS / N times over, each copy shifted by a metre or so (user SQL may
      // not call table functions such as range(); a VALUES list may be joined).
      const copies = Math.max(1, Math.round(TILE_POINTS / N));
      const offsets = Array.from({ length: copies }, (_, k) => `(${k})`).join(', ');
      const query = `select lat + k * 0.00001 as lat, lng - k * 0.00001 as lng, value from "${dataset.id}" cross join (values ${offsets}) as copies(k)`;
      const tiled = await tileQuery(baseUrl, admin.token, { query, name: `Bench tiles ${copies * N}`, latColumn: 'lat', lngColumn: 'lng', maxZoom: 12 });
      for (let d = await admin.datasets.get(tiled.id); d.status !== 'ready'; d = await admin.datasets.get(tiled.id)) {
        if (d.status === 'error') throw new Error(`vector tiling failed: ${JSON.stringify(d.metadata.errorMessage)}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
      console.log(`(setup: ${copies * N} points tiled to z12 in ${Math.round(performance.now() - tTile)} ms)`);
      const tileMs = await inTab((tab) => tileFirstFrame(tab, baseUrl, tiled.id));
      console.log(`map.tile_first_frame ${copies * N} points: ${Math.round(tileMs)} ms (ratio ${(tileMs / studio).toFixed(2)} vs the ${N}-point Arrow map ${Math.round(studio)} ms; target <= 1.0; load ${loadLine()})`);
    }
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
