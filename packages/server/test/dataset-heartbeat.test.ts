import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildStudio } from '../src/app';
import { configFromEnv } from '../src/config';
import { createUser } from '../src/services/users';
import { DatasetService, STALE_PENDING_MS, datasetAttrs } from '../src/services/datasets';
import { PASSWORD, STORES, useStudio } from './harness';

describe.each(STORES)('pending datasets across nodes on %s', (kind) => {
  const { ctx, create, rowOf } = useStudio(kind);
  const newDataset = async (name: string) => rowOf((await create('/v1/datasets', { name, contentType: 'text/csv' })).id);
  const status = async (id: string) => datasetAttrs(await rowOf(id)).status;

  it('an ingestion that runs long stays pending while another node sweeps, then ends ready', async () => {
    // This node beats every 100 ms; the sweep below runs as another node's would.
    const datasets = new DatasetService(ctx.s.services.db, ctx.s.services.engine, ctx.s.services.records, { heartbeatMs: 100 });
    const row = await newDataset('Long upload');
    const updatedAt = async () => (await rowOf(row.id)).updated_at.getTime();
    let swept = -1;
    const ready = datasets.ingestWith(row, { source: 'upload', pipelineType: 'managed', contentType: 'text/csv', query: null }, async (file) => {
      // The upload is still arriving: wait for the event the sweep depends on, a heartbeat after going pending.
      const pendingAt = await updatedAt();
      await expect.poll(updatedAt, { timeout: 30_000, interval: 20 }).toBeGreaterThan(pendingAt);
      const beatAt = await updatedAt();
      expect(await status(row.id)).toBe('pending');
      // A sweep whose stale limit falls between the two: without the beat, this dataset would be failed.
      swept = await datasets.failStalePending((pendingAt + beatAt) / 2 + STALE_PENDING_MS);
      await fs.writeFile(file, 'a,b\n1,2\n');
      return { contentType: 'text/csv', contentEncoding: undefined };
    });
    const done = await ready;
    expect(swept).toBe(0);
    expect(datasetAttrs(done)).toMatchObject({ status: 'ready', metadata: { rowCount: 1 } });
  });

  it('a dataset left pending by a crashed node ends in error at the next sweep, with no restart', async () => {
    const row = await newDataset('Crashed upload');
    await ctx.s.services.db
      .updateTable('resources')
      .set({ attrs: JSON.stringify({ ...row.attrs, status: 'pending' }), updated_at: new Date(Date.now() - STALE_PENDING_MS - 1000) })
      .where('id', '=', row.id)
      .execute();
    const stop = ctx.s.services.datasets.startSweeping(50);
    try {
      await expect.poll(() => status(row.id), { timeout: 30_000 }).toBe('error');
    } finally {
      stop();
    }
    expect(datasetAttrs(await rowOf(row.id)).metadata.errorMessage).toBe('Ingestion was interrupted; upload the file again');
  });
});

describe('a node restarting after a crash', () => {
  it("fails its own interrupted ingestion at once, and the dataset takes a new upload; another node's stays until stale", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-node-'));
    const config = { ...configFromEnv({ STUDIO_DATA_DIR: dataDir, STUDIO_SECRET: 'test-secret', STUDIO_SAMPLES: 'off' }), webDir: null };
    try {
      let studio = await buildStudio(config);
      const owner = await createUser(studio.services.db, { email: 'o@acme.test', password: PASSWORD, isAdmin: true });
      const nodeId = (await fs.readFile(path.join(dataDir, 'node-id'), 'utf8')).trim();
      // Two uploads in progress when the process dies: one ingested by this node, one by another.
      const pendingOf = async (name: string, node: string) => {
        const row = await studio.services.db.insertInto('resources').values({ id: randomUUID(), type: 'dataset', owner_id: owner.id, name, attrs: JSON.stringify({ status: 'pending', metadata: {}, ingestNode: node }) } as never).returning('id').executeTakeFirstOrThrow();
        return row.id;
      };
      const own = await pendingOf('Mine', nodeId);
      const other = await pendingOf('Theirs', 'node-b');
      await studio.close();
      studio = await buildStudio(config);
      const statusOf = async (id: string) => datasetAttrs(await studio.services.db.selectFrom('resources').selectAll().where('id', '=', id).executeTakeFirstOrThrow()).status;
      expect(await statusOf(own)).toBe('error');
      expect(await statusOf(other)).toBe('pending');
      const token = (await studio.app.inject({ method: 'POST', url: '/v1/auth/sign-in', payload: { email: 'o@acme.test', password: PASSWORD } })).json().item.accessToken;
      const upload = await studio.app.inject({ method: 'PUT', url: `/v1/datasets/${own}/data`, payload: 'a,b\n1,2\n', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' } });
      expect(upload.statusCode).toBeLessThan(300);
      expect(await statusOf(own)).toBe('ready');
      await studio.close();
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
