import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { STORES, jobEnded, seedCast, startStudio, useStudio, type TestStudio } from './harness';

/**
 * Uploads ingested in the background (#16: long work as jobs). With `Prefer: respond-async` the upload
 * calls store the file and answer at once, 202, with the dataset pending and its job; a worker ingests the
 * stored file, and the job's end leaves the dataset ready or in error with the reason. The file waits in
 * the object store, so any node's worker may ingest it.
 */
const CSV = 'name,lat,lng\nFerry Building,37.7955,-122.3937\nCoit Tower,37.8024,-122.4058\n';
const ASYNC = { prefer: 'respond-async', 'content-type': 'text/csv' };

describe.each(STORES)('background uploads on %s', (kind) => {
  const { ctx, as } = useStudio(kind);
  const ask = (url: string) => as('owner', 'GET', url);
  /** The upload objects still waiting in the store for a dataset. */
  const waiting = async (datasetId: string) => fs.readdir(path.join(ctx.s.dataDir, 'objects', 'uploads', datasetId)).catch(() => []);

  it('answers at once with the dataset pending and its job, which ingests the file and leaves it ready', async () => {
    const res = await as('owner', 'POST', '/v1/datasets/data?name=landmarks', CSV, ASYNC);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.headers['preference-applied']).toBe('respond-async');
    const { item, job } = res.json();
    expect(res.headers.location).toBe(`/v1/jobs/${job.id}`);
    expect([item.status, item.name, job.kind, job.resourceId]).toEqual(['pending', 'landmarks', 'dataset-ingest', item.id]);
    expect((await jobEnded(ask, job.id)).status).toBe('succeeded');
    const ready = (await ask(`/v1/datasets/${item.id}`)).json().item;
    expect(ready).toMatchObject({ status: 'ready', metadata: { rowCount: 2, contentType: 'text/csv', source: 'upload', errorMessage: null } });
    expect((await ask(`/v1/datasets/${item.id}/data`)).body).toContain('Coit Tower');
    expect(await waiting(item.id)).toEqual([]);
    const audit = await ctx.s.services.db.selectFrom('audit_log').select(['action', 'details']).where('resource_id', '=', item.id).where('action', '=', 'dataset.upload').execute();
    expect(audit).toHaveLength(1);
  });

  it('replaces the data of a dataset the same way, keeping the data it replaced as a snapshot', async () => {
    const first = (await as('owner', 'POST', '/v1/datasets/data?name=replaced', CSV, { 'content-type': 'text/csv' })).json().item;
    const oldKey = (await ctx.s.services.records.get(first.id))!.attrs.storageKey as string;
    const res = await as('owner', 'PUT', `/v1/datasets/${first.id}/data`, 'name,lat,lng\nAlcatraz,37.8267,-122.4230\n', ASYNC);
    expect(res.statusCode, res.body).toBe(202);
    expect((await jobEnded(ask, res.json().job.id)).status).toBe('succeeded');
    expect((await ask(`/v1/datasets/${first.id}`)).json().item.metadata.rowCount).toBe(1);
    expect(await ctx.s.services.engine.store.exists(oldKey)).toBe(true);
    expect((await as('owner', 'GET', `/v1/datasets/${first.id}/snapshots`)).json().items).toMatchObject([{ replacedAt: expect.any(String) }]);
  });

  it('ends a malformed file in error with the line and the reason, then takes a new upload', async () => {
    const res = await as('owner', 'POST', '/v1/datasets/data?name=broken', 'a,b\n1,2\n3,"unterminated\n', ASYNC);
    expect(res.statusCode, res.body).toBe(202);
    const { item, job } = res.json();
    const ended = await jobEnded(ask, job.id);
    expect(ended.status).toBe('failed');
    const failed = (await ask(`/v1/datasets/${item.id}`)).json().item;
    expect(failed.status).toBe('error');
    expect(failed.metadata.errorMessage).toBe(ended.message);
    expect(`${failed.metadata.errorMessage} ${failed.metadata.errorDetails}`).toMatch(/line 3/i);
    expect(JSON.stringify(failed)).not.toContain(ctx.s.dataDir);
    expect(await waiting(item.id)).toEqual([]);
    const again = await as('owner', 'PUT', `/v1/datasets/${item.id}/data`, CSV, { 'content-type': 'text/csv' });
    expect([again.statusCode, again.json().item.status]).toEqual([200, 'ready']);
  });

  it('refuses what it cannot store before creating anything: an encoding it does not read', async () => {
    const before = await ctx.s.services.db.selectFrom('resources').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const res = await as('owner', 'POST', '/v1/datasets/data?name=zstd', CSV, { ...ASYNC, 'content-encoding': 'zstd' });
    expect([res.statusCode, res.json().message]).toEqual([422, 'Unsupported content encoding zstd']);
    const after = await ctx.s.services.db.selectFrom('resources').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });
});

describe.each(STORES)('background uploads on a node without workers (%s)', (kind) => {
  const { as } = useStudio(kind, { role: 'api' });

  it('keeps the dataset pending with its job queued, and refuses a second upload until it is ingested', async () => {
    const res = await as('owner', 'POST', '/v1/datasets/data?name=queued', CSV, ASYNC);
    expect(res.statusCode, res.body).toBe(202);
    const { item, job } = res.json();
    expect((await as('owner', 'GET', `/v1/jobs/${job.id}`)).json().item.status).toBe('queued');
    for (const body of [{ headers: ASYNC }, { headers: { 'content-type': 'text/csv' } }]) {
      const second = await as('owner', 'PUT', `/v1/datasets/${item.id}/data`, CSV, body.headers);
      expect([second.statusCode, second.json().message]).toEqual([409, 'Record is not upload-ready']);
    }
    expect((await as('owner', 'GET', `/v1/datasets/${item.id}`)).json().item.status).toBe('pending');
  });
});

describe('a background upload received by one node and ingested by another (PostgreSQL, one object store)', () => {
  it('is ingested by the node that runs workers', { timeout: 120_000 }, async () => {
    const api = await startStudio('postgres', { role: 'api', nodeId: 'api-node' });
    let worker: TestStudio | null = null;
    const workerDir = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-worker-'));
    try {
      const cast = await seedCast(api);
      const owner = { authorization: cast.tokens.owner };
      await fs.symlink(path.join(api.dataDir, 'objects'), path.join(workerDir, 'objects'));
      worker = await startStudio('postgres', { databaseUrl: api.services.config.databaseUrl, dataDir: workerDir, nodeId: 'worker-node', role: 'worker' });
      const res = await api.app.inject({ method: 'POST', url: '/v1/datasets/data?name=handed', payload: CSV, headers: { ...owner, ...ASYNC } });
      expect(res.statusCode, res.body).toBe(202);
      const { item, job } = res.json();
      const ended = await jobEnded((url) => api.app.inject({ method: 'GET', url, headers: owner }), job.id);
      expect(ended.status).toBe('succeeded');
      const done = await api.services.db.selectFrom('jobs').select('node_id').where('id', '=', job.id).executeTakeFirstOrThrow();
      expect(done.node_id).toBe('worker-node');
      expect((await api.app.inject({ method: 'GET', url: `/v1/datasets/${item.id}/data`, headers: owner })).body).toContain('Ferry Building');
    } finally {
      await worker?.dispose();
      await fs.rm(workerDir, { recursive: true, force: true });
      await api.dispose();
    }
  });
});
