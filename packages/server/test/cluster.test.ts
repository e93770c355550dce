import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GEOJSON_SEQ, GPX, KML, PLACES, arrowIpc, flatgeobuf, geoparquet, shapefileZip, xlsx } from '../../engine/test/format-files';
import { startCluster, type Cluster } from './cluster';

/**
 * #20: the studio as production runs it — two API nodes, each its own process running workers, on PostgreSQL,
 * Redis and an S3-compatible object store — driven over HTTP, each call to the next node in turn as a
 * round-robin load balancer sends them. Then the chaos cases: one node killed with SIGKILL during a map save, an
 * upload, a background ingestion and a hex-tile build. No write that was answered is lost, no half dataset is
 * readable, and a job finishes on the node that is left.
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let cluster: Cluster;
let auth: { authorization: string };
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-cluster-files-'));

const A = 'node-a';
const B = 'node-b';
const base = (name: string) => cluster.nodes.get(name)!.base;

/** A node that is up: a load balancer's health check takes a killed node out of the turn until it is back. */
const up = (name: string) => {
  const { child } = cluster.nodes.get(name)!;
  return child.exitCode === null && child.signalCode === null;
};

/** The next node in turn; `served` counts the calls each node answered. */
let turn = 0;
const served: Record<string, number> = {};
async function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}, on?: string): Promise<{ status: number; json: Json; text: string; node: string }> {
  const live = [A, B].filter(up);
  const node = on ?? live[turn++ % live.length]!;
  const isRaw = typeof body === 'string' || Buffer.isBuffer(body);
  const res = await fetch(`${base(node)}${url}`, {
    method,
    headers: { ...auth, ...(body !== undefined && !isRaw && { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : Buffer.isBuffer(body) ? new Uint8Array(body) : JSON.stringify(body),
  });
  served[node] = (served[node] ?? 0) + 1;
  const text = await res.text();
  let json: Json = {};
  try {
    json = JSON.parse(text) as Json;
  } catch {
    // Not JSON (a CSV download, a tile): the text is the answer.
  }
  return { status: res.status, json, text, node };
}

/** Polls through the round-robin until the job ends; its last state. */
async function jobEnded(jobId: string, timeoutMs: number): Promise<Json> {
  for (const began = Date.now(); ; ) {
    const job = (await call('GET', `/v1/jobs/${jobId}`)).json.item;
    if (['succeeded', 'failed', 'cancelled'].includes(job.status)) return job;
    if (Date.now() - began > timeoutMs) throw new Error(`Job ${jobId} still ${job.status} at ${job.percent}% after ${timeoutMs} ms\n${cluster.logs()}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Rows of a dataset's CSV download, header left out. */
const csvRows = (text: string) => text.trim().split('\n').slice(1);

/** A request whose body is only partly sent: it stays in flight until the node dies. */
function halfSent(node: string, method: string, url: string, contentType: string, firstPart: string): http.ClientRequest {
  const target = new URL(`${base(node)}${url}`);
  const req = http.request({ host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method, headers: { ...auth, 'content-type': contentType, 'content-length': String(firstPart.length * 10) } });
  req.on('error', () => undefined);
  req.write(firstPart);
  return req;
}

beforeAll(async () => {
  cluster = await startCluster('cluster');
  // The first node makes the catalog and the administrator; the second joins it.
  await cluster.start(A);
  await cluster.start(B);
  const signIn = await fetch(`${base(B)}/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(cluster.admin) });
  expect(signIn.status).toBe(200);
  auth = { authorization: `Bearer ${(await signIn.json()).item.accessToken}` };
}, 300_000);

afterAll(async () => {
  await cluster?.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

const CSV = `name,visits,lat,lng\n${PLACES.map((p) => `${p.name},${p.visits},${p.lat},${p.lng}`).join('\n')}\n`;
const UPLOADS: [family: string, contentType: string, body: () => Promise<Buffer>, rows: number][] = [
  ['CSV', 'text/csv', async () => Buffer.from(CSV), 3],
  ['GeoJSON', 'application/geo+json', async () => Buffer.from(JSON.stringify({ type: 'FeatureCollection', features: GEOJSON_SEQ.trim().split('\n').map((l) => JSON.parse(l)) })), 3],
  ['GeoParquet', 'application/vnd.apache.parquet', async () => {
    const file = path.join(work, 'in.parquet');
    await geoparquet(file);
    return fs.readFileSync(file);
  }, 4],
  ['Arrow IPC', 'application/vnd.apache.arrow.file', async () => arrowIpc('file'), 3],
  ['a zipped Shapefile', 'application/zip', async () => shapefileZip(), 3],
  ['KML', 'application/vnd.google-earth.kml+xml', async () => Buffer.from(KML), 3],
  ['GPX', 'application/gpx+xml', async () => Buffer.from(GPX), 2],
  ['FlatGeobuf', 'application/flatgeobuf', async () => flatgeobuf(), 3],
  ['Excel', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', xlsx, 3],
];

describe('two API nodes on PostgreSQL, Redis and S3, called round-robin', () => {
  let points: string;

  it('signs in on one node and is known on both', async () => {
    for (const node of [A, B]) expect((await call('GET', '/v1/users/me', undefined, {}, node)).status).toBe(200);
  });

  it.each(UPLOADS)('uploads %s on one node; the other serves it whole', async (_family, contentType, body, rows) => {
    const up = await call('POST', `/v1/datasets/data?name=${encodeURIComponent(_family)}`, await body(), { 'content-type': contentType });
    expect(up.status, up.text).toBe(201);
    const id = up.json.item.id as string;
    const other = up.node === A ? B : A;
    const read = await call('GET', `/v1/datasets/${id}`, undefined, {}, other);
    expect(read.json.item).toMatchObject({ status: 'ready', metadata: { rowCount: rows } });
    const data = await call('GET', `/v1/datasets/${id}/data`, undefined, {}, other);
    expect(data.status).toBe(200);
    expect(csvRows(data.text)).toHaveLength(rows);
  });

  it('saves a map on one node, reads it on the other, publishes it and opens it signed out on both', async () => {
    const lines = ['name,lat,lng,visits'];
    for (let i = 0; i < 2_000; i++) lines.push(`p${i},${(37.70 + (i % 50) / 1000).toFixed(4)},${(-122.45 + Math.floor(i / 50) / 1000).toFixed(4)},${i % 37}`);
    points = (await call('POST', '/v1/datasets/data?name=Points', lines.join('\n'), { 'content-type': 'text/csv' })).json.item.id;
    const state = { version: 'v1', config: { visState: { layers: [{ id: 'points', type: 'point' }] } } };
    const created = await call('POST', '/v1/maps', { name: 'Cluster map', datasets: [points], latestState: state });
    expect(created.status, created.text).toBe(201);
    const id = created.json.item.id as string;
    const saved = await call('PUT', `/v1/maps/${id}`, { name: 'Cluster map, saved again', latestState: { ...state, config: { ...state.config, mapState: { zoom: 11 } } } });
    expect(saved.status, saved.text).toBe(200);
    const read = await call('GET', `/v1/maps/${id}`, undefined, {}, saved.node === A ? B : A);
    expect(read.json.item).toMatchObject({ name: 'Cluster map, saved again', latestState: { config: { mapState: { zoom: 11 } } } });

    expect((await call('POST', `/v1/maps/${id}/publish/map`, {})).status).toBe(201);
    for (const node of [A, B]) {
      const open = await fetch(`${base(node)}/v1/maps/${id}/published-map`);
      expect(open.status).toBe(200);
      const data = await fetch(`${base(node)}/v1/maps/${id}/published-map/datasets/${points}`);
      expect(data.status).toBe(200);
    }
  });

  it('builds hex tiles as a job on whichever node takes it; both nodes serve the tiles', async () => {
    const build = await call('POST', '/v1/datasets/hextile', { name: 'Cells', source: points, sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 9, outputColumns: [{ targetColumn: 'n', aggMethod: 'count' }] });
    expect(build.status, build.text).toBe(201);
    expect((await jobEnded(build.json.job.id, 120_000)).status).toBe('succeeded');
    const tiles = build.json.item.id as string;
    const index = (await call('GET', `/v1/tileset/${tiles}/tileset-index`)).json.item as { tiles: Record<string, Record<string, number>> };
    const [z, byTile] = Object.entries(index.tiles).sort(([x], [y]) => Number(y) - Number(x))[0]!;
    const tile = `/v1/tileset/${tiles}/${z}/${Object.keys(byTile)[0]}`;
    for (const node of [A, B]) {
      const res = await fetch(`${base(node)}${tile}`, { headers: auth });
      expect(res.status).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
  });

  it('runs the same query on both nodes with the same answer', async () => {
    const answers = [];
    for (const node of [A, B]) {
      const res = await call('POST', '/v1/query?format=json', { type: 'filter', expression: 'visits > 35', input: [{ type: 'dataset', uuid: points }] }, {}, node);
      expect(res.status, res.text).toBe(200);
      answers.push(res.text);
    }
    expect(answers[0]).toBe(answers[1]);
    expect(answers[0]).toContain('p36');
  });

  it('creates a dashboard on one node and edits it on the other', async () => {
    const created = await call('POST', '/v1/dashboards', { name: 'Cluster dashboard' });
    expect(created.status, created.text).toBe(201);
    const id = created.json.item.id as string;
    const renamed = await call('PUT', `/v1/dashboards/${id}`, { name: 'Cluster dashboard, renamed' }, {}, created.node === A ? B : A);
    expect(renamed.status, renamed.text).toBe(200);
    expect((await call('GET', `/v1/dashboards/${id}`, undefined, {}, created.node)).json.item.name).toBe('Cluster dashboard, renamed');
    // Both nodes took their share of the calls.
    expect(served[A]).toBeGreaterThan(10);
    expect(served[B]).toBeGreaterThan(10);
  });
});

describe('one node killed with SIGKILL', () => {
  it('during a map save: every answered save is kept, the half-sent one changes nothing', async () => {
    const created = await call('POST', '/v1/maps', { name: 'Saved 0', latestState: { version: 'v1', config: { n: 0 } } });
    const id = created.json.item.id as string;
    for (let n = 1; n <= 5; n++) expect((await call('PUT', `/v1/maps/${id}`, { name: `Saved ${n}`, latestState: { version: 'v1', config: { n } } }, {}, A)).status).toBe(200);
    const body = JSON.stringify({ name: 'Saved 6', latestState: { version: 'v1', config: { n: 6 } } });
    const inFlight = halfSent(A, 'PUT', `/v1/maps/${id}`, 'application/json', body.slice(0, 20));
    await new Promise((r) => setTimeout(r, 200));
    await cluster.kill(A);
    inFlight.destroy();
    const read = await call('GET', `/v1/maps/${id}`, undefined, {}, B);
    expect(read.json.item).toMatchObject({ name: 'Saved 5', latestState: { config: { n: 5 } } });
    await cluster.start(A);
  });

  it('during an upload: the data it replaces stays whole on the other node, and the dataset takes a new upload', async () => {
    const up = await call('POST', '/v1/datasets/data?name=Replaced', CSV, { 'content-type': 'text/csv' });
    const id = up.json.item.id as string;
    const status = async () => (await call('GET', `/v1/datasets/${id}`, undefined, {}, B)).json.item.status as string;
    const inFlight = halfSent(A, 'PUT', `/v1/datasets/${id}/data`, 'text/csv', 'name,visits,lat,lng\nHalf,1,37.7,-122.4\n');
    await expect.poll(status, { timeout: 30_000, interval: 100 }).toBe('pending');
    await cluster.kill(A);
    inFlight.destroy();
    // Not a row of the half-sent file: the data before it, whole.
    const before = await call('GET', `/v1/datasets/${id}/data`, undefined, {}, B);
    expect(csvRows(before.text).map((r) => r.split(',')[0])).toEqual(PLACES.map((p) => p.name));
    // The killed node, started again (as its supervisor does), ends its interrupted ingestion at once.
    await cluster.start(A);
    expect(await status()).toBe('error');
    const again = await call('PUT', `/v1/datasets/${id}/data`, 'name,visits,lat,lng\nNew,1,37.7,-122.4\n', { 'content-type': 'text/csv' }, B);
    expect(again.status, again.text).toBe(200);
    expect(csvRows((await call('GET', `/v1/datasets/${id}/data`, undefined, {}, A)).text)).toEqual(['New,1,37.7,-122.4']);
  });

  /** 1M points over San Francisco on days of nine months, as CSV (about 45 MB). */
  const POINTS = 1_000_000;
  function pointsCsv(file: string): void {
    const out = fs.openSync(file, 'w');
    fs.writeSync(out, 'lat,lng,amount,ts\n');
    const chunk: string[] = [];
    for (let i = 0; i < POINTS; i++) {
      const lat = 37.70 + ((i * 7919) % 100_000) / 500_000;
      const lng = -122.50 + ((i * 104_729) % 100_000) / 400_000;
      chunk.push(`${lat.toFixed(6)},${lng.toFixed(6)},${i % 97},2026-0${1 + (i % 9)}-${10 + (i % 19)}T00:00:00\n`);
      if (chunk.length === 50_000) fs.writeSync(out, chunk.splice(0).join(''));
    }
    fs.writeSync(out, chunk.join(''));
    fs.closeSync(out);
  }
  let million: string;

  /** Waits for the job to run on a node with its progress past `percent`, kills that node; the one killed and the one left. */
  async function killWhileRunning(jobId: string, percent: number): Promise<{ victim: string; survivor: string; first: Json }> {
    const running = async () => (await cluster.catalog<Json>('select status, node_id, percent, attempt from jobs where id = $1', [jobId]))[0]!;
    await expect.poll(async () => { const r = await running(); return r.status === 'running' && Number(r.percent) > percent; }, { timeout: 120_000, interval: 100 }).toBe(true);
    const first = await running();
    const victim = first.node_id as string;
    await cluster.kill(victim);
    return { victim, survivor: victim === A ? B : A, first };
  }

  it('during a background ingestion: the node left ingests the file again, and nothing of the first try is readable', { timeout: 360_000 }, async () => {
    const file = path.join(work, 'points.csv');
    pointsCsv(file);
    const up = await call('POST', '/v1/datasets/data?name=Million', fs.readFileSync(file), { 'content-type': 'text/csv', prefer: 'respond-async' });
    expect(up.status, up.text).toBe(202);
    const { item, job } = up.json;
    million = item.id;
    const { victim, survivor } = await killWhileRunning(job.id, -1);
    // While the job is retried, the dataset is pending with no rows to read, never a part of them.
    const meanwhile = (await call('GET', `/v1/datasets/${item.id}`, undefined, {}, survivor)).json.item;
    if (meanwhile.status !== 'ready') expect([meanwhile.status, meanwhile.metadata.rowCount ?? null]).toEqual(['pending', null]);
    const ended = await jobEnded(job.id, 300_000);
    expect(ended, cluster.logs()).toMatchObject({ status: 'succeeded', percent: 100 });
    const [done] = await cluster.catalog<Json>('select node_id, attempt from jobs where id = $1', [job.id]);
    expect([done!.node_id, done!.attempt]).toEqual([survivor, 1]);
    expect((await call('GET', `/v1/datasets/${item.id}`, undefined, {}, survivor)).json.item).toMatchObject({ status: 'ready', metadata: { rowCount: POINTS } });
    await cluster.start(victim);
  });

  // #16's acceptance as it happens in production: hex tiles of 1M points built as a job, answered at once, the node
  // running it killed in the middle, the other node finishing it.
  it('during a hex-tile build: the call answered at once, the other node finishes the job and the tiles serve', { timeout: 480_000 }, async () => {
    const asked = Date.now();
    const build = await call('POST', '/v1/datasets/hextile', {
      name: 'Tiles', source: million, sourceLatColumn: 'lat', sourceLngColumn: 'lng', sourceTimeColumn: 'ts', timeIntervals: ['D', 'M'],
      finestResolution: 10, coarsestResolution: 5, resolutionOffset: 4, outputColumns: [{ sourceColumn: 'amount', targetColumn: 'total', aggMethod: 'sum' }, { targetColumn: 'n', aggMethod: 'count' }],
    });
    const answeredMs = Date.now() - asked;
    expect(build.status, build.text).toBe(201);
    const { item, job } = build.json;
    expect(item.status).toBe('pending');
    // At once: the checks and the records, not the build (which takes tens of seconds here).
    expect(answeredMs).toBeLessThan(10_000);
    // Progress rises past the first step before the kill.
    const { survivor, first } = await killWhileRunning(job.id, 0);
    expect(Number(first.percent)).toBeLessThan(100);
    const ended = await jobEnded(job.id, 300_000);
    expect(ended, cluster.logs()).toMatchObject({ status: 'succeeded', percent: 100 });
    const [done] = await cluster.catalog<Json>('select node_id, attempt from jobs where id = $1', [job.id]);
    expect(done!.node_id).toBe(survivor);
    expect(done!.attempt).toBeGreaterThanOrEqual(1);
    expect((await call('GET', `/v1/datasets/${item.id}`, undefined, {}, survivor)).json.item.status).toBe('ready');
    const index = (await call('GET', `/v1/tileset/${item.id}/tileset-index`, undefined, {}, survivor)).json.item;
    const tile = await fetch(`${base(survivor)}/v1/tileset/${item.id}/1/${Object.keys(index.tiles[1])[0]}`, { headers: auth });
    expect(tile.status).toBe(200);
    expect((await tile.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });
});
