import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobEnded, seedCast, startStudio, type TestStudio } from './harness';

/**
 * A node that stops (SIGTERM: a deploy, a scale-down) hands its running jobs back: after a short grace it
 * fails them to the queue, and another node on the same catalog runs them again. Two studios in this process
 * on one PostgreSQL database and one object store (the second node's `objects` is the first's).
 */
function pointsCsv(n: number): string {
  const lines = ['lat,lng,ts'];
  for (let i = 0; i < n; i++) {
    lines.push(`${(37.70 + ((i * 7919) % 100_000) / 500_000).toFixed(6)},${(-122.50 + ((i * 104_729) % 100_000) / 400_000).toFixed(6)},2026-0${1 + (i % 9)}-${10 + (i % 19)}T${String(i % 24).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00`);
  }
  return lines.join('\n');
}

describe('a node stopping with a job running (PostgreSQL, two nodes in one process)', () => {
  it('hands the job back, and the other node finishes it', { timeout: 300_000 }, async () => {
    const first = await startStudio('postgres', { nodeId: 'first' });
    let second: TestStudio | null = null;
    const secondDir = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-second-'));
    try {
      const cast = await seedCast(first);
      const owner = { authorization: cast.tokens.owner };
      const up = await first.app.inject({ method: 'POST', url: '/v1/datasets/data?name=points', payload: pointsCsv(500_000), headers: { ...owner, 'content-type': 'text/csv' } });
      expect(up.statusCode).toBe(201);
      // Fine cells sliced by month: a build that outlasts the stopping node's 5 s grace (~31 s alone, 2026-11-27) and
      // that the other node still finishes well within the wait below on a loaded machine (sliced by day as well, it
      // took ~100 s alone and ran out of 240 s in a CI run beside the browser tests).
      const build = await first.app.inject({
        method: 'POST', url: '/v1/datasets/hextile', headers: owner,
        payload: { name: 'Tiles', source: up.json().item.id, sourceLatColumn: 'lat', sourceLngColumn: 'lng', sourceTimeColumn: 'ts', timeIntervals: ['M'], finestResolution: 12, coarsestResolution: 5, outputColumns: [{ targetColumn: 'n', aggMethod: 'count' }] },
      });
      expect(build.statusCode).toBe(201);
      const { job } = build.json();
      const row = () => first.services.db.selectFrom('jobs').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
      await expect.poll(async () => (await row()).status, { timeout: 60_000, interval: 100 }).toBe('running');

      await fs.symlink(path.join(first.dataDir, 'objects'), path.join(secondDir, 'objects'));
      second = await startStudio('postgres', { databaseUrl: first.services.config.databaseUrl, dataDir: secondDir, nodeId: 'second' });
      const asOwner = (url: string) => second!.app.inject({ method: 'GET', url, headers: owner });
      await first.close();

      const ended = await jobEnded(asOwner, job.id, 240_000);
      expect(ended).toMatchObject({ status: 'succeeded', percent: 100 });
      const done = await second.services.db.selectFrom('jobs').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
      expect([done.node_id, done.attempt]).toEqual(['second', 1]);
      expect((await asOwner(`/v1/datasets/${job.resourceId}`)).json().item.status).toBe('ready');
    } finally {
      await second?.dispose();
      await fs.rm(secondDir, { recursive: true, force: true });
      // The first studio is closed above (or here, when the test stopped before); its database goes with it.
      await first.dispose().catch(() => undefined);
    }
  });
});
