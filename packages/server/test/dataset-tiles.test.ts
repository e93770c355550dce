import { gunzipSync } from 'node:zlib';
import { VectorTile } from '@mapbox/vector-tile';
import Pbf from 'pbf';
import { describe, expect, it, vi } from 'vitest';
import { STORES, jobEnded, useStudio } from './harness';
import { datasetTiles } from '../src/services/vector-tiles';

/**
 * A table dataset's own tiles (#50, "Build tiles" on the dataset page), on both catalogs: POST /v1/datasets/{id}/tiles
 * answers 202 with a job at once; the job's progress rises to 100 and the dataset (no new record) serves tiles of
 * its rows; a cancelled build leaves no tiles; tiles of replaced data are not served; refusals queue nothing.
 */
const POINTS = (n: number) =>
  ['name,lat,lng,visits', ...Array.from({ length: n }, (_, i) => `p${i},${(37.70 + (i % 100) * 0.002).toFixed(4)},${(-122.50 + Math.floor(i / 100) * 0.002).toFixed(4)},${i}`)].join('\n') + '\n';

/** The tile containing lng/lat at zoom z. */
function tileOf(lng: number, lat: number, z: number): [number, number] {
  const n = 2 ** z;
  const r = (lat * Math.PI) / 180;
  return [Math.floor(((lng + 180) / 360) * n), Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n)];
}

describe.each(STORES)('a dataset\'s own tiles (%s)', (store) => {
  const { ctx, as } = useStudio(store);
  const upload = async (csv: string, name = 'visits') => {
    const res = await as('owner', 'POST', `/v1/datasets/data?name=${name}`, csv, { 'content-type': 'text/csv' });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().item.id as string;
  };
  /** A tile's features (none for a 204), read as a renderer does. */
  const featuresAt = async (id: string, z: number) => {
    const [x, y] = tileOf(-122.45, 37.75, z);
    const tile = await as('owner', 'GET', `/v1/datasets/${id}/tiles/${z}/${x}/${y}`, undefined, { 'accept-encoding': 'identity' });
    expect([200, 204], tile.body).toContain(tile.statusCode);
    return tile.statusCode === 204 ? 0 : new VectorTile(new Pbf(tile.rawPayload)).layers.features!.length;
  };
  const tileJsonOf = async (id: string) => (await as('owner', 'GET', `/v1/datasets/${id}/tiles.json`)).json() as { minzoom: number; maxzoom: number };
  const metadataOf = async (id: string) => (await as('owner', 'GET', `/v1/datasets/${id}`)).json().item.metadata;
  /** The next cut of `id`, held where its low zooms are served (the job's own hook) until `release`. */
  const holdAtLowZooms = (id: string) => {
    let reached!: (jobId: string) => void;
    let release!: () => void;
    const atLowZooms = new Promise<string>((r) => (reached = r));
    const released = new Promise<void>((r) => (release = r));
    const off = datasetTiles(ctx.s.services).onLowZooms(async (e) => {
      if (e.datasetId !== id) return;
      reached(e.jobId);
      await released;
    });
    return { atLowZooms, release: () => (off(), release()) };
  };
  const datasetCount = async () => Number((await ctx.s.services.db.selectFrom('resources').select((eb) => eb.fn.countAll().as('n')).where('type', '=', 'dataset').executeTakeFirstOrThrow()).n);

  it('builds them in the background with progress: the same dataset, still ready, serves tiles of its rows', async () => {
    const id = await upload(POINTS(20_000));
    const before = await datasetCount();
    const res = await as('owner', 'POST', `/v1/datasets/${id}/tiles`, { minZoom: 0, maxZoom: 9 });
    expect(res.statusCode, res.body).toBe(202);
    const job = res.json().job;
    expect(job).toMatchObject({ kind: 'dataset-tiles', resourceId: id });
    const seen: number[] = [];
    for (let last = job; !['succeeded', 'failed', 'cancelled'].includes(last.status); ) {
      last = (await as('owner', 'GET', `/v1/jobs/${job.id}`)).json().item;
      seen.push(last.percent);
      if (last.status === 'failed') throw new Error(last.message);
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(seen.at(-1)).toBe(100);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(await datasetCount()).toBe(before);
    const item = (await as('owner', 'GET', `/v1/datasets/${id}`)).json().item;
    expect(item.status).toBe('ready');
    expect(item.metadata.vectorTile).toMatchObject({ minZoom: 0, maxZoom: 9, featureCount: 20_000, geometryType: 'Point' });
    expect(item.metadata.vectorTileBuild).toMatchObject({ datasetId: id, minZoom: 0, maxZoom: 9 });
    const tj = await as('owner', 'GET', `/v1/datasets/${id}/tiles.json`);
    expect(tj.statusCode, tj.body).toBe(200);
    expect(tj.json()).toMatchObject({ minzoom: 0, maxzoom: 9, featureCount: 20_000 });
    const [x, y] = tileOf(-122.45, 37.75, 9);
    const tile = await as('owner', 'GET', `/v1/datasets/${id}/tiles/9/${x}/${y}`, undefined, { 'accept-encoding': 'identity' });
    expect(tile.statusCode).toBe(200);
    const bytes = tile.headers['content-encoding'] === 'gzip' ? gunzipSync(tile.rawPayload) : tile.rawPayload;
    const layer = new VectorTile(new Pbf(bytes)).layers.features!;
    expect(layer.length).toBeGreaterThan(100);
    expect(Object.keys(layer.feature(0).properties)).toEqual(expect.arrayContaining(['name', 'visits']));
    // The data replaced: those tiles show rows it no longer has and are not served.
    expect((await as('owner', 'PUT', `/v1/datasets/${id}/data`, POINTS(50), { 'content-type': 'text/csv' })).statusCode).toBe(200);
    const stale = await as('owner', 'GET', `/v1/datasets/${id}/tiles.json`);
    expect([stale.statusCode, stale.json().message]).toEqual([409, "This dataset's data was replaced since its tiles were cut: build them again"]);
  }, 180_000);

  it('a cancelled build leaves the dataset as it was, without tiles', async () => {
    const id = await upload(POINTS(20_000), 'cancelled');
    const { job } = (await as('owner', 'POST', `/v1/datasets/${id}/tiles`, { maxZoom: 12 })).json();
    const cancel = await as('owner', 'POST', `/v1/jobs/${job.id}/cancel`);
    expect(cancel.statusCode, cancel.body).toBe(200);
    expect((await jobEnded((url) => as('owner', 'GET', url), job.id)).status).toBe('cancelled');
    const item = (await as('owner', 'GET', `/v1/datasets/${id}`)).json().item;
    expect([item.status, item.metadata.vectorTile ?? null]).toEqual(['ready', null]);
    expect((await as('owner', 'GET', `/v1/datasets/${id}/tiles.json`)).statusCode).toBe(422);
  }, 120_000);

  it.each([
    ['a viewer', 'viewer', { maxZoom: 5 }, 403, undefined],
    ['an outsider', 'outsider', { maxZoom: 5 }, 404, undefined],
    ['zooms out of order', 'owner', { minZoom: 6, maxZoom: 3 }, 422, 'minZoom must not be above maxZoom'],
    ['an unknown column', 'owner', { latColumn: 'nope', lngColumn: 'lng' }, 422, undefined],
  ] as const)('refuses %s and queues nothing', async (_what, who, body, status, message) => {
    const id = await upload(POINTS(10), 'refused');
    await as('owner', 'POST', '/v1/permissions', { resourceType: 'dataset', resourceId: id, role: 'viewer', email: 'viewer@globex.test' });
    const res = await as(who, 'POST', `/v1/datasets/${id}/tiles`, body);
    expect(res.statusCode, res.body).toBe(status);
    if (message) expect(res.json().message).toContain(message);
    expect((await as('owner', 'GET', `/v1/jobs?resourceId=${id}`)).json().items).toEqual([]);
  });

  it('refuses a dataset with no location (422)', async () => {
    const id = await upload('a,b\n1,2\n', 'flat');
    const res = await as('owner', 'POST', `/v1/datasets/${id}/tiles`, {});
    expect(res.statusCode, res.body).toBe(422);
  });

  it('serves the low zooms while the rest is cut (the job still running), then the whole pyramid, and drops the low archive', async () => {
    const id = await upload(POINTS(20_000), 'early');
    const hold = holdAtLowZooms(id);
    const { job } = (await as('owner', 'POST', `/v1/datasets/${id}/tiles`, { minZoom: 0, maxZoom: 10 })).json();
    expect(await hold.atLowZooms).toBe(job.id);
    let lowKey = '';
    try {
      // The job waits on the hook: whatever is served now was served before it ended.
      expect((await as('owner', 'GET', `/v1/jobs/${job.id}`)).json().item.status).toBe('running');
      const during = await metadataOf(id);
      expect(during.vectorTile).toMatchObject({ minZoom: 0, maxZoom: 10, cutMaxZoom: 6, featureCount: 20_000 });
      expect(await tileJsonOf(id)).toMatchObject({ minzoom: 0, maxzoom: 6 });
      expect(await featuresAt(id, 6)).toBeGreaterThan(0);
      // Not cut yet: answered as where there is no feature (a map enlarges zoom 6 meanwhile), not refused.
      expect(await featuresAt(id, 9)).toBe(0);
      lowKey = during.vectorTile.archiveKey;
    } finally {
      hold.release();
    }
    expect((await jobEnded((url) => as('owner', 'GET', url), job.id)).status).toBe('succeeded');
    const after = await metadataOf(id);
    expect(after.vectorTile).toMatchObject({ minZoom: 0, maxZoom: 10 });
    expect(after.vectorTile.cutMaxZoom).toBeUndefined();
    expect(after.vectorTile.archiveKey).not.toBe(lowKey);
    expect(await tileJsonOf(id)).toMatchObject({ maxzoom: 10 });
    // The job ends once no reused access check (and the row it read) can still lead a tile request to the low zooms.
    expect(await featuresAt(id, 9)).toBeGreaterThan(0);
    expect(await ctx.s.services.engine.store.exists(lowKey)).toBe(false);
  }, 120_000);

  it("an editor asking while the owner's cut runs follows that cut (one job, seen and cancellable by both); a viewer sees none of it", async () => {
    const id = await upload(POINTS(2_000), 'shared');
    const share = (role: string, email: string) => as('owner', 'POST', '/v1/permissions', { resourceType: 'dataset', resourceId: id, role, email });
    expect((await share('editor', 'editor@globex.test')).statusCode).toBe(201);
    expect((await share('viewer', 'viewer@globex.test')).statusCode).toBe(201);
    const hold = holdAtLowZooms(id);
    const { job } = (await as('owner', 'POST', `/v1/datasets/${id}/tiles`, { maxZoom: 9 })).json();
    await hold.atLowZooms;
    try {
      const again = await as('editor', 'POST', `/v1/datasets/${id}/tiles`, {});
      expect(again.statusCode, again.body).toBe(202);
      expect(again.json().job.id).toBe(job.id);
      expect((await as('editor', 'GET', `/v1/jobs/${job.id}`)).json().item).toMatchObject({ id: job.id, status: 'running' });
      expect((await as('editor', 'GET', `/v1/jobs?resourceId=${id}&status=active`)).json().items.map((j: { id: string }) => j.id)).toEqual([job.id]);
      // A reader of the dataset is not one of its editors: the owner's job stays the owner's.
      expect((await as('viewer', 'GET', `/v1/jobs/${job.id}`)).statusCode).toBe(404);
      expect((await as('viewer', 'GET', `/v1/jobs?resourceId=${id}`)).json().items).toEqual([]);
      expect((await as('outsider', 'POST', `/v1/jobs/${job.id}/cancel`)).statusCode).toBe(404);
      expect((await as('editor', 'POST', `/v1/jobs/${job.id}/cancel`)).statusCode).toBe(200);
    } finally {
      hold.release();
    }
    expect((await jobEnded((url) => as('owner', 'GET', url), job.id)).status).toBe('cancelled');
    // Once it ended, asking again starts a new cut.
    const next = (await as('editor', 'POST', `/v1/datasets/${id}/tiles`, { maxZoom: 5 })).json().job;
    expect(next.id).not.toBe(job.id);
    expect((await jobEnded((url) => as('editor', 'GET', url), next.id)).status).toBe('succeeded');
  }, 120_000);

  it('a build cancelled after its low zooms were served puts back the tiles the dataset had', async () => {
    const id = await upload(POINTS(20_000), 'putback');
    // A first cut to zoom 5: no deeper than the low zooms, so cut in one piece.
    const first = (await as('owner', 'POST', `/v1/datasets/${id}/tiles`, { maxZoom: 5 })).json().job;
    expect((await jobEnded((url) => as('owner', 'GET', url), first.id)).status).toBe('succeeded');
    const had = (await metadataOf(id)).vectorTile;
    expect(had).toMatchObject({ maxZoom: 5 });
    expect(had.cutMaxZoom).toBeUndefined();

    const hold = holdAtLowZooms(id);
    const { job } = (await as('owner', 'POST', `/v1/datasets/${id}/tiles`, { maxZoom: 11 })).json();
    await hold.atLowZooms;
    const low = (await metadataOf(id)).vectorTile;
    expect(low).toMatchObject({ maxZoom: 11, cutMaxZoom: 6 });
    expect((await as('owner', 'POST', `/v1/jobs/${job.id}/cancel`)).statusCode).toBe(200);
    hold.release();
    // The job sees its cancel before recording the whole pyramid, and puts the first cut back.
    await vi.waitFor(async () => expect((await metadataOf(id)).vectorTile).toEqual(had), { timeout: 30_000, interval: 50 });
    await vi.waitFor(async () => expect(await ctx.s.services.engine.store.exists(low.archiveKey)).toBe(false), { timeout: 30_000, interval: 50 });
    expect(await ctx.s.services.engine.store.exists(had.archiveKey)).toBe(true);
    expect(await tileJsonOf(id)).toMatchObject({ maxzoom: 5 });
    expect(await featuresAt(id, 5)).toBeGreaterThan(0);
    expect((await as('owner', 'GET', `/v1/jobs/${job.id}`)).json().item.status).toBe('cancelled');
  }, 120_000);
});
