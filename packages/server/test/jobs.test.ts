import { describe, expect, it } from 'vitest';
import { STORES, jobEnded, startStudio, useStudio } from './harness';

/**
 * Background jobs through the API, on both catalogs: the hex-tile build answers at once and a job builds the
 * tiles with progress; the Jobs panel's calls (list, one job, cancel) and who may make them. The takeover
 * after a node is killed is cluster.test.ts (two processes on PostgreSQL, Redis and S3).
 */
const points = (n: number) => {
  const lines = ['lat,lng,amount,ts'];
  for (let i = 0; i < n; i++) {
    const lat = 37.70 + ((i * 7919) % 10_000) / 50_000;
    const lng = -122.50 + ((i * 104_729) % 10_000) / 40_000;
    lines.push(`${lat.toFixed(6)},${lng.toFixed(6)},${i % 97},2026-0${1 + (i % 9)}-1${i % 10}T0${i % 10}:00:00`);
  }
  return `${lines.join('\n')}\n`;
};
const TILES = { sourceLatColumn: 'lat', sourceLngColumn: 'lng', sourceTimeColumn: 'ts', timeIntervals: ['D', 'M'], finestResolution: 10, coarsestResolution: 5, resolutionOffset: 4, outputColumns: [{ sourceColumn: 'amount', targetColumn: 'total', aggMethod: 'sum' }] };

describe.each(STORES)('background jobs on %s', (kind) => {
  describe('with workers (the default)', () => {
    const { as } = useStudio(kind);

    // 60,000 points tiled at six resolutions by day and month: past a minute on a loaded 2-core machine.
    it('answers the build at once with the dataset pending and its job; the job reports progress and serves the tiles when done', async () => {
      const up = await as('owner', 'POST', '/v1/datasets/data?name=points', points(60_000), { 'content-type': 'text/csv' });
      expect(up.statusCode).toBe(201);
      const r = await as('owner', 'POST', '/v1/datasets/hextile', { name: 'Tiles', source: up.json().item.id, ...TILES });
      expect(r.statusCode).toBe(201);
      const { item, job } = r.json();
      expect(item).toMatchObject({ status: 'pending', type: 'hex-tile' });
      expect(job).toMatchObject({ kind: 'hex-tiles', resourceId: item.id, attempt: 0 });
      expect(['queued', 'running']).toContain(job.status);
      // Progress only rises, and ends at 100 with the rows that had a cell.
      const seen: number[] = [];
      let last = job;
      while (!['succeeded', 'failed', 'cancelled'].includes(last.status)) {
        last = (await as('owner', 'GET', `/v1/jobs/${job.id}`)).json().item;
        seen.push(last.percent);
        await new Promise((res) => setTimeout(res, 50));
      }
      expect(last).toMatchObject({ status: 'succeeded', percent: 100, rows: 60_000, message: null });
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      expect(seen.some((p) => p > 0 && p < 100), `progress seen: ${seen.join(', ')}`).toBe(true);
      expect(last.startedAt && last.finishedAt && last.finishedAt >= last.startedAt).toBe(true);
      const ready = (await as('owner', 'GET', `/v1/datasets/${item.id}`)).json().item;
      expect(ready.status).toBe('ready');
      const index = await as('owner', 'GET', `/v1/tileset/${item.id}/tileset-index`);
      expect(index.statusCode).toBe(200);
      // The Jobs panel's lists: the owner's finished jobs, and the record's jobs.
      const finished = (await as('owner', 'GET', '/v1/jobs?status=finished')).json().items;
      expect(finished.map((j: { id: string }) => j.id)).toContain(job.id);
      expect((await as('owner', 'GET', '/v1/jobs?status=active')).json().items).toEqual([]);
      expect((await as('owner', 'GET', `/v1/jobs?resourceId=${item.id}`)).json().items.map((j: { id: string }) => j.id)).toEqual([job.id]);
      // A finished job cannot be cancelled.
      const late = await as('owner', 'POST', `/v1/jobs/${job.id}/cancel`);
      expect([late.statusCode, late.json().message]).toEqual([409, 'The job has already ended (succeeded)']);
    }, 180_000);

    // Queued behind the build above when that one is slow.
    it('ends a job whose source went away before or while it ran in failed, and its dataset in error with the reason', async () => {
      const up = await as('owner', 'POST', '/v1/datasets/data?name=gone', points(500), { 'content-type': 'text/csv' });
      const source = up.json().item.id;
      const r = await as('owner', 'POST', '/v1/datasets/hextile', { name: 'Orphan', source, ...TILES, timeIntervals: [], sourceTimeColumn: undefined });
      // The source is deleted at once; whether the build read it first or not, the dataset never ends pending.
      await as('owner', 'DELETE', `/v1/datasets/${source}`);
      const { item, job } = r.json();
      const ended = await jobEnded((url) => as('owner', 'GET', url), job.id);
      const dataset = (await as('owner', 'GET', `/v1/datasets/${item.id}`)).json().item;
      if (ended.status === 'failed') {
        // Deleted before the build read it, or while it did (the job starts at once on this node).
        expect(ended.message).toMatch(/^The source dataset was deleted or replaced (before|while) the build ran$/);
        expect(dataset).toMatchObject({ status: 'error', metadata: { errorMessage: ended.message } });
      } else {
        expect([ended.status, dataset.status]).toEqual(['succeeded', 'ready']);
      }
    }, 180_000);
  });

  describe('with workers that poll the queue only every 5 minutes (STUDIO_JOB_POLL_SECONDS=300)', () => {
    const { as } = useStudio(kind, { jobPollSeconds: 300 });

    it('starts a job asked for on this node at once, not at the next poll', async () => {
      const up = await as('owner', 'POST', '/v1/datasets/data?name=points', points(200), { 'content-type': 'text/csv' });
      // The workers' first poll (at start) has passed; the job is queued after it.
      const r = await as('owner', 'POST', '/v1/datasets/hextile', { name: 'Tiles', source: up.json().item.id, ...TILES, timeIntervals: [] });
      expect(r.statusCode, r.body).toBe(201);
      expect((await jobEnded((url) => as('owner', 'GET', url), r.json().job.id, 30_000)).status).toBe('succeeded');
    });
  });

  describe('on a node started without workers (STUDIO_ROLE=api)', () => {
    const { ctx, as } = useStudio(kind, { role: 'api' });

    it('queues the job, shows it to its creator and administrators only, and cancels it: the dataset says it was cancelled', async () => {
      const up = await as('owner', 'POST', '/v1/datasets/data?name=points', points(200), { 'content-type': 'text/csv' });
      const r = await as('owner', 'POST', '/v1/datasets/hextile', { name: 'Queued', source: up.json().item.id, ...TILES });
      const { item, job } = r.json();
      expect(job.status).toBe('queued');
      // Nobody runs it here: it stays queued, and the dataset pending.
      await new Promise((res) => setTimeout(res, 1_500));
      expect((await as('owner', 'GET', `/v1/jobs/${job.id}`)).json().item).toMatchObject({ status: 'queued', percent: 0, startedAt: null });
      expect((await as('owner', 'GET', '/v1/jobs?status=active')).json().items.map((j: { id: string }) => j.id)).toEqual([job.id]);
      // Another user, even one the dataset is shared with, neither sees nor cancels it; an administrator does.
      await as('owner', 'POST', '/v1/permissions', { resourceType: 'dataset', resourceId: item.id, email: ctx.cast.users.viewer.email, role: 'viewer' });
      for (const who of ['viewer', 'outsider'] as const) {
        for (const [method, url] of [['GET', `/v1/jobs/${job.id}`], ['POST', `/v1/jobs/${job.id}/cancel`]] as const) {
          const res = await as(who, method, url);
          expect([res.statusCode, res.json().message]).toEqual([404, 'Job not found']);
        }
        expect((await as(who, 'GET', '/v1/jobs')).json().items).toEqual([]);
      }
      expect((await as('admin', 'GET', `/v1/jobs/${job.id}`)).statusCode).toBe(200);
      expect((await as('admin', 'GET', `/v1/jobs?resourceId=${item.id}`)).json().items).toHaveLength(1);
      const cancelled = await as('owner', 'POST', `/v1/jobs/${job.id}/cancel`);
      expect(cancelled.statusCode).toBe(200);
      expect(cancelled.json().item).toMatchObject({ status: 'cancelled', message: `Cancelled by ${ctx.cast.users.owner.name || ctx.cast.users.owner.email}` });
      expect((await as('owner', 'GET', `/v1/datasets/${item.id}`)).json().item).toMatchObject({ status: 'error', metadata: { errorMessage: 'The hex tile build was cancelled' } });
      expect((await ctx.s.services.db.selectFrom('audit_log').select('action').where('resource_id', '=', job.id).execute()).map((a) => a.action)).toEqual(['job.cancel']);
    });

    it('refuses unknown ids and bad queries with 404 and 422', async () => {
      expect((await as('owner', 'GET', '/v1/jobs/00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
      expect((await as('owner', 'GET', '/v1/jobs/not-a-uuid')).statusCode).toBe(422);
      expect((await as('owner', 'GET', '/v1/jobs?status=sleeping')).statusCode).toBe(422);
      expect((await as('owner', 'GET', '/v1/jobs?limit=0')).statusCode).toBe(422);
    });
  });
});

describe('a worker-only node (STUDIO_ROLE=worker)', () => {
  it('answers health and readiness, and nothing else of the API', async () => {
    const s = await startStudio('pglite', { role: 'worker' });
    try {
      expect((await s.app.inject({ method: 'GET', url: '/v1/health' })).statusCode).toBe(200);
      const r = await s.app.inject({ method: 'POST', url: '/v1/auth/sign-in', payload: { email: 'a@b.test', password: 'x' } });
      expect([r.statusCode, r.json().message]).toEqual([503, 'This node only runs background jobs (STUDIO_ROLE=worker)']);
    } finally {
      await s.dispose();
    }
  });
});
