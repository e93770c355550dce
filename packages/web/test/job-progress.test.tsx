// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JobProgress } from '../src/jobs/JobProgress';
import { client } from '../src/app/api';
import { render, waitFor } from './dom';
import { useRealStudio } from './real-studio';

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

/**
 * JobProgress against a real studio: a page that starts a job (a live dataset's "Refresh now") reloads its
 * record when that job ends, even when it ended before the first look (a query that fails at once).
 * The browser test refresh.e2e.ts met exactly that: the failed refresh's reason never showed.
 */
describe('JobProgress', () => {
  const { ctx, serve, tokenOf } = useRealStudio();

  /** A failed job of a dataset, as the owner started it. */
  const endedJob = async () => {
    const owner = { authorization: ctx.cast.tokens.owner };
    const up = await ctx.s.app.inject({ method: 'POST', url: '/v1/datasets/data?name=places', headers: { ...owner, 'content-type': 'text/csv' }, payload: 'a\n1\n' });
    const datasetId = up.json().item.id as string;
    const caller = (await ctx.s.services.auth.authenticate(ctx.cast.tokens.owner))!;
    const jobId = await ctx.s.services.jobs.create(caller, 'dataset-refresh', datasetId);
    await ctx.s.services.db.updateTable('jobs').set({ status: 'failed', message: 'relation "stores" does not exist' }).where('id', '=', jobId).execute();
    return { datasetId, jobId };
  };
  /** Mounts JobProgress and answers how many times it called onEnded once it has looked at the job. */
  const endsSeen = async (datasetId: string, startedJobId?: string) => {
    client.token = tokenOf('owner');
    const calls = serve();
    const onEnded = vi.fn();
    await render(<JobProgress resourceId={datasetId} onEnded={onEnded} startedJobId={startedJobId} />);
    await waitFor(() => calls.some((u) => u.startsWith(`/v1/jobs?resourceId=${datasetId}`)));
    // Long enough for a second poll, had the component kept asking.
    await new Promise((r) => setTimeout(r, 1_500));
    await waitFor(() => true);
    return onEnded.mock.calls.length;
  };

  it('reloads the record once when the job it started had already ended at the first look', async () => {
    const { datasetId, jobId } = await endedJob();
    expect(await endsSeen(datasetId, jobId)).toBe(1);
  });

  it('leaves the record alone for a job that ended before the page opened', async () => {
    const { datasetId } = await endedJob();
    expect(await endsSeen(datasetId)).toBe(0);
  });
});
