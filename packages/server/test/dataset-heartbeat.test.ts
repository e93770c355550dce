import fs from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { DatasetService, STALE_PENDING_MS, datasetAttrs } from '../src/services/datasets';
import { STORES, useStudio } from './harness';

describe.each(STORES)('pending datasets across nodes on %s', (kind) => {
  const { ctx, create, rowOf } = useStudio(kind);
  const newDataset = async (name: string) => rowOf((await create('/v1/datasets', { name, contentType: 'text/csv' })).id);
  const status = async (id: string) => datasetAttrs(await rowOf(id)).status;

  it('an ingestion that runs long stays pending while another node sweeps, then ends ready', async () => {
    // This node beats every 100 ms; the sweep below runs as another node's would, near the stale limit.
    const datasets = new DatasetService(ctx.s.services.db, ctx.s.services.engine, ctx.s.services.records, { heartbeatMs: 100 });
    const row = await newDataset('Long upload');
    let swept = -1;
    const ready = datasets.ingestWith(row, { source: 'upload', pipelineType: 'managed', contentType: 'text/csv', query: null }, async (file) => {
      // The upload is still arriving 700 ms after the dataset went pending.
      await new Promise((r) => setTimeout(r, 700));
      expect(await status(row.id)).toBe('pending');
      // Without the heartbeat, updated_at would be 700 ms old: past a threshold 400 ms before now.
      swept = await datasets.failStalePending(Date.now() + STALE_PENDING_MS - 400);
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
      await expect.poll(() => status(row.id), { timeout: 5000 }).toBe('error');
    } finally {
      stop();
    }
    expect(datasetAttrs(await rowOf(row.id)).metadata.errorMessage).toBe('Ingestion was interrupted; upload the file again');
  });
});
