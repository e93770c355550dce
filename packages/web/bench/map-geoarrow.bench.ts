// Polygons in the map builder as GeoArrow against GeoJSON text (#46 acceptance), in Chromium: BENCH_MAP_POLYGONS
// (default 100,000) small squares uploaded as GeoJSON, opened on a new map (`/new?datasetUuid=…`, kepler creates the
// GeoJSON layer), timed from navigation to the app's `layer-data-ready` mark (src/map/timing.ts: kepler's dataset
// built and its layer's data computed, every polygon decoded). A second figure leaves out what does not depend on how
// the geometry is sent: the page's start before its data request, and the wait for the basemap (the data is added
// after it), i.e. the data request's start to `data-decoded` plus `data-added` to `layer-data-ready`.
// - ours: the map builder as it is: its data request asks for `application/vnd.apache.arrow.stream; geoarrow=1` and
//   gets the geometry as `geoarrow.multipolygon`, which kepler triangulates from its buffers;
// - baseline: the same page with `; geoarrow=1` taken off that request's Accept header (Playwright's page.route), so
//   the server answers the geometry as GeoJSON text, a string a row that kepler parses: what the studio sent before.
// Both pages' data requests go through the same route handler (ours unchanged), so neither pays for interception
// alone. Runs alternate, baseline first, BENCH_MAP_POLYGON_RUNS (default 3) each after one warm-up of each; medians;
// the load is printed. Each page's marks follow its time, then how long its first frame took after the mark (deck.gl
// still tessellates GeoJSON features there; GeoArrow's triangles are made before the mark). The server is started as
// the browser tests start it (e2e/global-setup.ts, which also rebuilds a stale app).
// Standalone: `npx tsx packages/web/bench/map-geoarrow.bench.ts`. BENCH_MAP_POLYGON_PROFILE=1 also profiles the page's
// JavaScript in the last run of each kind and prints the functions that took most of it until the mark.
import os from 'node:os';
import { tableFromIPC } from 'apache-arrow';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { ADMIN } from '../e2e/global-setup';
import { openStudio, signInThroughUi } from '../e2e/browser';
import { uploadReady, withBenchStudio } from './bench-studio';
import { line } from '../../engine/bench/util';

const N = Number(process.env.BENCH_MAP_POLYGONS ?? 100_000);
const RUNS = Number(process.env.BENCH_MAP_POLYGON_RUNS ?? 3);
const TIMEOUT_MS = 180_000;
const MARK = 'studio:map-layer-data-ready';
const PROFILE = process.env.BENCH_MAP_POLYGON_PROFILE === '1';

type Kind = 'text' | 'geoarrow';

const loadLine = () => `${os.loadavg().map((l) => l.toFixed(2)).join(' ')} on ${os.cpus().length} cores`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** N squares of about 1 km on a grid over the contiguous United States, as a GeoJSON FeatureCollection. */
function squares(n: number): string {
  const side = Math.ceil(Math.sqrt(n));
  const d = 0.01;
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    const x = (-125 + ((i % side) / side) * 59).toFixed(5);
    const y = (24 + (Math.floor(i / side) / side) * 26).toFixed(5);
    const [x1, y1] = [(Number(x) + d).toFixed(5), (Number(y) + d).toFixed(5)];
    parts.push(`{"type":"Feature","properties":{"n":${i}},"geometry":{"type":"Polygon","coordinates":[[[${x},${y}],[${x1},${y}],[${x1},${y1}],[${x},${y1}],[${x},${y}]]]}}`);
  }
  return `{"type":"FeatureCollection","features":[${parts.join(',')}]}`;
}

/** Resolves when the page has drawn three quiet frame pairs in a row: a frame of 100k polygons holds them for seconds. */
async function settle(page: Page): Promise<void> {
  const t0 = performance.now();
  for (let quiet = 0; quiet < 3 && performance.now() - t0 < TIMEOUT_MS; ) {
    const ms = await page.evaluate(() => new Promise<number>((resolve) => {
      const start = performance.now();
      requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - start)));
    }));
    quiet = ms < 150 ? quiet + 1 : 0;
    await page.waitForTimeout(200);
  }
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The functions with the most self time in `profile` until `untilMs` after its start, as `name (file) N ms`. */
function topFunctions(profile: Profile, untilMs: number, n = 15): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let at = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i]! / 1000;
    at += dt;
    if (at > untilMs) return;
    const f = byId.get(id)!.callFrame;
    const key = `${f.functionName || '(anonymous)'} (${f.url.split('/').pop()}:${f.lineNumber})`;
    self.set(key, (self.get(key) ?? 0) + dt);
  });
  return [...self].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, ms]) => `    ${Math.round(ms)} ms ${k}`).join('\n');
}

interface Run {
  /** Navigation to the layer-data-ready mark. */
  ms: number;
  /** Every studio:map-* mark, and the data request's start and end, in ms from navigation. */
  steps: string;
  /** The layer-data-ready mark to the first frame. */
  drawMs: number;
  /**
   * The layer's data's own time: its request's start to data-decoded, plus data-added to layer-data-ready; not the
   * page's start before the request (the same on both paths) nor the wait for the basemap between the two.
   */
  ownMs: number;
}

/**
 * Opens the dataset on a new map in a tab of its own and times it to the mark. `check`: also reads the data answer
 * and fails unless its geometry column is what `kind` asks for (left out of the timed runs: reading a 40 MB body
 * through the DevTools protocol competes with the page for the two cores).
 */
async function open(context: BrowserContext, baseUrl: string, datasetId: string, kind: Kind, check: boolean, profile = false): Promise<Run> {
  const page = await context.newPage();
  let cdp: CDPSession | null = null;
  // The profile's clock is its own: the wall time just after it starts is the anchor the mark is placed against.
  let profiledFrom = 0;
  if (profile) {
    cdp = await context.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
    await cdp.send('Profiler.start');
    profiledFrom = await page.evaluate(() => performance.timeOrigin + performance.now());
  }
  page.setDefaultTimeout(TIMEOUT_MS);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    const dataPath = `/v1/datasets/${datasetId}/data`;
    let sentAccept = '';
    let body: Buffer | null = null;
    await page.route((url) => url.pathname === dataPath, async (route) => {
      const headers = route.request().headers();
      if (kind === 'text') headers.accept = headers.accept!.replace(/;\s*geoarrow=1/, '');
      sentAccept = headers.accept!;
      if (!check) return route.continue({ headers });
      // Fetched here to be read: the browser's copy of a body this size is gone from the DevTools cache.
      const response = await route.fetch({ headers });
      body = await response.body();
      return route.fulfill({ response, body });
    });
    await page.goto(`${baseUrl}/new?datasetUuid=${datasetId}`);
    await page.waitForFunction((mark) => performance.getEntriesByName(mark).length > 0 || document.querySelector('[role=alert]') !== null, MARK, { timeout: TIMEOUT_MS, polling: 50 }).catch(async (e: unknown) => {
      await page.screenshot({ path: '/tmp/studio-map-geoarrow-bench.png' });
      const marks = await page.evaluate(() => performance.getEntriesByType('mark').map((m) => `${m.name} ${Math.round(m.startTime)}`).join(', '));
      throw new Error(`${kind}: no ${MARK} (marks: ${marks}; page errors: ${errors.join('; ') || 'none'}; screenshot /tmp/studio-map-geoarrow-bench.png)`, { cause: e });
    });
    const alert = await page.locator('[role=alert]').allTextContents();
    if (alert.length) throw new Error(`${kind}: ${alert.join('; ')}`);
    const ms = await page.evaluate((mark) => performance.getEntriesByName(mark)[0]!.startTime, MARK);
    if (kind === 'geoarrow' ? !sentAccept.includes('geoarrow=1') : sentAccept.includes('geoarrow')) throw new Error(`${kind}: the data request's Accept was ${sentAccept}`);
    const layers = await page.evaluate(() => window.__studioMap?.layers() ?? []);
    if (layers.length !== 1 || layers[0]!.type !== 'geojson' || layers[0]!.dataId !== datasetId) throw new Error(`${kind}: unexpected layers ${JSON.stringify(layers)}`);
    if (check) {
      if (!body) throw new Error(`${kind}: no data request`);
      const table = tableFromIPC(body);
      const extensions = table.schema.fields.map((f) => f.metadata.get('ARROW:extension:name')).filter(Boolean);
      if (table.numRows !== N) throw new Error(`${kind}: ${table.numRows} rows sent, not ${N}`);
      if (kind === 'geoarrow' ? extensions.join() !== 'geoarrow.multipolygon' : extensions.length > 0) throw new Error(`${kind}: the answer's geometry was ${extensions.join() || 'text'}`);
    }
    await page.waitForFunction(() => window.__studioMapReady === true, undefined, { timeout: TIMEOUT_MS, polling: 50 });
    // Read once drawn: the marks are the moments they were set, whenever they are read.
    const { frame, steps, ownMs } = await page.evaluate(({ mark, dataPath }) => {
      // No function declared in here: tsx wraps a named one in a helper the page does not have.
      const at = Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name.slice('studio:map-'.length), m.startTime]));
      const marks = performance.getEntriesByType('mark').filter((m) => m.name.startsWith('studio:map-')).map((m) => `${m.name.slice('studio:map-'.length)} ${Math.round(m.startTime)}`);
      const data = performance.getEntriesByType('resource').find((r) => new URL(r.name).pathname === dataPath) as PerformanceResourceTiming | undefined;
      const request = data ? [`data request ${Math.round(data.startTime)}-${Math.round(data.responseEnd)} (${(data.transferSize / 1e6).toFixed(1)} MB)`] : [];
      const ownMs = at['data-decoded']! - (data?.startTime ?? NaN) + (at['layer-data-ready']! - at['data-added']!);
      return { frame: performance.getEntriesByName(mark)[0]?.startTime ?? NaN, steps: [...request, ...marks].join(', '), ownMs };
    }, { mark: 'studio:map-first-frame', dataPath });
    if (cdp) {
      const { profile: p } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
      const untilMs = (await page.evaluate(() => performance.timeOrigin)) + ms - profiledFrom;
      console.log(`  ${kind}: most self time until the mark:\n${topFunctions(p, untilMs)}`);
      await cdp.detach();
    }
    await settle(page);
    if (errors.length) throw new Error(`${kind}: page errors ${errors.join('; ')}`);
    return { ms, steps, drawMs: frame - ms, ownMs };
  } finally {
    await page.close();
  }
}

async function main() {
  // The server's sample data (generated in the background on a first start) would compete for the two cores.
  process.env.STUDIO_SAMPLES ??= 'off';
  await withBenchStudio(async ({ baseUrl, browser, admin }) => {
    const tUp = performance.now();
    const geojson = squares(N);
    const dataset = await uploadReady(admin, geojson, { contentType: 'application/geo+json', name: `Bench squares ${N}` });
    console.log(`(setup: ${N} polygons, ${(geojson.length / 1e6).toFixed(1)} MB of GeoJSON, uploaded and ingested in ${Math.round(performance.now() - tUp)} ms)`);

    const { context, page } = await openStudio(browser, baseUrl);
    await signInThroughUi(page, baseUrl, ADMIN.email, ADMIN.password);
    await page.close();
    const times: Record<Kind, number[]> = { text: [], geoarrow: [] };
    const own: Record<Kind, number[]> = { text: [], geoarrow: [] };
    const report = (kind: Kind, r: Run, label: string) => console.log(`  ${label} ${kind === 'text' ? 'GeoJSON text' : 'GeoArrow'}: ${Math.round(r.ms)} ms to layer-data-ready, ${Math.round(r.ownMs)} ms of it the data's own (${r.steps}); first frame ${Math.round(r.drawMs)} ms after the mark`);
    // Warm-up, with the answers checked: kepler's chunk in the cache, the server's and the page's code paths run once.
    for (const kind of ['text', 'geoarrow'] as Kind[]) report(kind, await open(context, baseUrl, dataset.id, kind, true), 'warm-up');
    for (let i = 0; i < RUNS; i++) {
      for (const kind of ['text', 'geoarrow'] as Kind[]) {
        const r = await open(context, baseUrl, dataset.id, kind, false, PROFILE && i === RUNS - 1);
        times[kind].push(r.ms);
        own[kind].push(r.ownMs);
        report(kind, r, `run ${i + 1}`);
      }
    }
    const base = median(times.text);
    const ours = median(times.geoarrow);
    const [ownBase, ownOurs] = [median(own.text), median(own.geoarrow)];
    console.log(`  medians of ${RUNS}: from navigation GeoJSON text ${Math.round(base)} ms, GeoArrow ${Math.round(ours)} ms; the data's own GeoJSON text ${Math.round(ownBase)} ms, GeoArrow ${Math.round(ownOurs)} ms; load ${loadLine()}`);
    line('map.geoarrow_polygons_layer_data (from navigation)', ours, 'ms', ours / base, '<= 0.5');
    line('map.geoarrow_polygons_layer_data_own (request to decoded, no page start or basemap wait)', ownOurs, 'ms', ownOurs / ownBase, '<= 0.5');
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
