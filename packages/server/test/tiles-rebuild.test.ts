import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { STORES, jobEnded, seedCast, startStudio, useStudio, type TestStudio } from './harness';
import { archiveKeyOf, tilesKeyOf } from '@studio/tiles';

/**
 * Tiles built again in place (#16, the Data SDK's `target`): POST /v1/datasets/hextile and /vectortile with
 * `target` rebuild an existing tileset from its source as it is now. Same id (maps keep it), same name, the
 * tiles it had served until the new ones are ready, then the old files gone; refusals change nothing.
 */
const POINTS = (n: number) =>
  ['name,lat,lng,visits', ...Array.from({ length: n }, (_, i) => `p${i},${(37.75 + i * 0.004).toFixed(4)},${(-122.45 + i * 0.003).toFixed(4)},${i}`)].join('\n') + '\n';

type Kind = {
  type: 'hex-tile' | 'vector-tile';
  url: string;
  job: string;
  body: (source: string, target?: string) => Record<string, unknown>;
  /** What a map reads of the tileset: its tile metadata. */
  served: (id: string) => string;
  /** The versioned tile URL template that metadata hands out (#17: a rebuild must change it). */
  tileUrl: (served: any) => string; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** The stored files of one version of the tileset. */
  files: (key: string) => string[];
  /** How the tileset says it was built (what the page's Rebuild tiles sends again). */
  kept: (source: string) => Record<string, unknown>;
};

const KINDS: Kind[] = [
  {
    type: 'hex-tile',
    url: '/v1/datasets/hextile',
    job: 'hex-tiles',
    body: (source, target) => ({ name: 'Visits in cells', source, sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 9, outputColumns: [{ targetColumn: 'n', aggMethod: 'count' }], ...(target && { target }) }),
    served: (id) => `/v1/tileset/${id}/metadata`,
    tileUrl: (served) => served.item.tileUrl,
    files: (key) => [key, archiveKeyOf(key)],
    kept: (source) => ({ hexTile: { source, sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 9, outputColumns: [{ targetColumn: 'n', aggMethod: 'count' }] } }),
  },
  {
    type: 'vector-tile',
    url: '/v1/datasets/vectortile',
    job: 'vector-tiles',
    body: (source, target) => ({ name: 'Visits as tiles', datasetId: source, ...(target && { target }) }),
    served: (id) => `/v1/datasets/${id}/tiles.json`,
    tileUrl: (served) => served.tiles[0],
    files: (key) => [key, tilesKeyOf(key)],
    kept: (source) => ({ vectorTileBuild: { datasetId: source } }),
  },
];

type Ask = (method: string, url: string, payload?: unknown, headers?: Record<string, string>) => Promise<{ statusCode: number; body: string; json(): any }>;

/** A source of `n` points and a tileset of the kind built from it, ready. */
async function sourceAndTiles(ask: Ask, kind: Kind, n: number) {
  const up = await ask('POST', '/v1/datasets/data?name=visits', POINTS(n), { 'content-type': 'text/csv' });
  expect(up.statusCode, up.body).toBe(201);
  const source = up.json().item.id as string;
  const res = await ask('POST', kind.url, kind.body(source));
  expect(res.statusCode, res.body).toBe(201);
  expect((await jobEnded((url) => ask('GET', url), res.json().job.id)).status).toBe('succeeded');
  return { source, tiles: (await ask('GET', `/v1/datasets/${res.json().item.id}`)).json().item as { id: string; name: string; metadata: { rowCount: number } & Record<string, unknown> } };
}

const storageKeyOf = async (s: TestStudio, id: string) => (await s.services.records.get(id))!.attrs.storageKey as string;
const stored = async (s: TestStudio, keys: string[]) => Promise.all(keys.map((k) => s.services.engine.store.exists(k)));

describe.each(STORES)('tiles built again in place (%s)', (store) => {
  const { ctx, as } = useStudio(store);
  const owner: Ask = (method, url, payload, headers) => as('owner', method, url, payload, headers);
  const datasetCount = async () => Number((await ctx.s.services.db.selectFrom('resources').select((eb) => eb.fn.countAll().as('n')).where('type', '=', 'dataset').executeTakeFirstOrThrow()).n);

  it.each(KINDS)('$type: the same dataset answers pending with its job, then serves tiles of the source as it is now; the old files are removed', async (kind) => {
    const { source, tiles } = await sourceAndTiles(owner, kind, 5);
    expect(tiles.metadata).toMatchObject(kind.kept(source));
    const before = (await owner('GET', kind.served(tiles.id))).json();
    const oldKey = await storageKeyOf(ctx.s, tiles.id);
    // The source grows: the tileset rebuilt from it must show the new points.
    expect((await owner('PUT', `/v1/datasets/${source}/data`, POINTS(40), { 'content-type': 'text/csv' })).statusCode).toBe(200);
    const count = await datasetCount();

    const res = await owner('POST', kind.url, kind.body(source, tiles.id));
    expect(res.statusCode, res.body).toBe(201);
    const { item, job } = res.json();
    expect([item.id, item.name, item.status, job.kind, job.resourceId]).toEqual([tiles.id, tiles.name, 'pending', kind.job, tiles.id]);
    expect((await jobEnded((url) => owner('GET', url), job.id)).status).toBe('succeeded');

    const after = (await owner('GET', `/v1/datasets/${tiles.id}`)).json().item;
    expect([after.status, after.name, after.type]).toEqual(['ready', tiles.name, kind.type]);
    expect(after.metadata.rowCount).toBeGreaterThan(tiles.metadata.rowCount);
    const served = await owner('GET', kind.served(tiles.id));
    expect(served.statusCode).toBe(200);
    expect(served.json()).not.toEqual(before);
    // New bytes under a new version: the URLs maps hold from before name the old version, so no browser or shared
    // cache answers the rebuilt tileset with the tiles it kept as immutable.
    expect(kind.tileUrl(served.json())).toMatch(/[?&]v=/);
    expect(kind.tileUrl(served.json())).not.toBe(kind.tileUrl(before));
    expect(await datasetCount()).toBe(count);
    const newKey = await storageKeyOf(ctx.s, tiles.id);
    expect(newKey).not.toBe(oldKey);
    expect(await stored(ctx.s, kind.files(newKey))).toEqual([true, true]);
    expect(await stored(ctx.s, kind.files(oldKey))).toEqual([false, false]);
    const audited = await ctx.s.services.db.selectFrom('audit_log').select('action').where('resource_id', '=', tiles.id).execute();
    expect(audited.map((a) => a.action)).toContain('dataset.rebuild');
  });

  it.each(KINDS)('$type: a target of another kind, the source itself, one the caller cannot edit or that does not exist is refused and nothing changes', async (kind) => {
    const { source, tiles } = await sourceAndTiles(owner, kind, 5);
    const other = KINDS.find((k) => k !== kind)!;
    const { tiles: otherTiles } = await sourceAndTiles(owner, other, 5);
    const key = await storageKeyOf(ctx.s, tiles.id);
    const count = await datasetCount();
    const refusals: [string, Awaited<ReturnType<Ask>>, number, RegExp][] = [
      ['another kind of tileset', await owner('POST', kind.url, kind.body(source, otherTiles.id)), 422, new RegExp(`target must be a ${kind.type} dataset`)],
      ['a table dataset', await owner('POST', kind.url, kind.body(source, source)), 422, new RegExp(`target must be a ${kind.type} dataset, not the source`)],
      ['an outsider', await as('outsider', 'POST', kind.url, kind.body(source, tiles.id)), 404, /not found/],
      ['no such dataset', await owner('POST', kind.url, kind.body(source, '00000000-0000-4000-8000-000000000000')), 404, /Dataset not found/],
    ];
    for (const [what, res, status, message] of refusals) {
      expect(res.statusCode, `${what}: ${res.body}`).toBe(status);
      expect(JSON.stringify(res.json()), what).toMatch(message);
    }
    expect(await datasetCount()).toBe(count);
    expect((await owner('GET', `/v1/datasets/${tiles.id}`)).json().item.status).toBe('ready');
    expect(await storageKeyOf(ctx.s, tiles.id)).toBe(key);
  });
});

describe('tiles rebuilt while no worker is up: the current tiles are served until a worker builds the new ones (PostgreSQL, one object store)', () => {
  it('serves the old tiles while pending, refuses a second rebuild, and switches when a worker has built them', { timeout: 180_000 }, async () => {
    const api = await startStudio('postgres', { role: 'api', nodeId: 'api-node' });
    const workerDir = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-rebuild-'));
    await fs.symlink(path.join(api.dataDir, 'objects'), path.join(workerDir, 'objects'));
    const worker = () => startStudio('postgres', { databaseUrl: api.services.config.databaseUrl, dataDir: workerDir, nodeId: 'worker-node', role: 'worker' });
    let running: TestStudio | null = null;
    try {
      const cast = await seedCast(api);
      const owner: Ask = (method, url, payload, headers = {}) =>
        api.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: cast.tokens.owner, ...headers } });
      running = await worker();
      const built = [];
      for (const kind of KINDS) built.push({ kind, ...(await sourceAndTiles(owner, kind, 5)) });
      await running.dispose();
      running = null;

      const waiting = [];
      for (const { kind, source, tiles } of built) {
        const before = (await owner('GET', kind.served(tiles.id))).json();
        expect((await owner('PUT', `/v1/datasets/${source}/data`, POINTS(40), { 'content-type': 'text/csv' })).statusCode).toBe(200);
        const res = await owner('POST', kind.url, kind.body(source, tiles.id));
        expect(res.statusCode, res.body).toBe(201);
        expect((await owner('GET', `/v1/jobs/${res.json().job.id}`)).json().item.status).toBe('queued');
        // Pending, and a map reading it still gets the tiles it had.
        expect((await owner('GET', `/v1/datasets/${tiles.id}`)).json().item.status).toBe('pending');
        const meanwhile = await owner('GET', kind.served(tiles.id));
        expect(meanwhile.statusCode, meanwhile.body).toBe(200);
        expect(meanwhile.json()).toEqual(before);
        const second = await owner('POST', kind.url, kind.body(source, tiles.id));
        expect([second.statusCode, second.json().message]).toEqual([409, 'Record is not upload-ready']);
        waiting.push({ kind, tiles, before, job: res.json().job.id as string });
      }

      running = await worker();
      for (const { kind, tiles, before, job } of waiting) {
        expect((await jobEnded((url) => owner('GET', url), job)).status).toBe('succeeded');
        expect((await owner('GET', `/v1/datasets/${tiles.id}`)).json().item.status).toBe('ready');
        expect((await owner('GET', kind.served(tiles.id))).json()).not.toEqual(before);
      }
    } finally {
      await running?.dispose();
      await fs.rm(workerDir, { recursive: true, force: true });
      await api.dispose();
    }
  });
});
