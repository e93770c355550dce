import { describe, expect, inject, it } from 'vitest';
import pg from 'pg';
import { STORES, jobEnded, useStudio, useWarehouse, warehouseConnection, type Who } from './harness';

/** The warehouse the live datasets read: one table per test, so a test that drops its table leaves the others be. */
/** The warehouse the live datasets read; each test makes its own table (per store), so one that drops its table leaves the others be. */
const WAREHOUSE = useWarehouse('studio_refresh', 'create schema shop');

async function onWarehouse(statement: string) {
  const { adminUrl, user } = inject('warehouseServer');
  const c = new pg.Client({ connectionString: adminUrl.replace(/\/[^/]*$/, `/${WAREHOUSE}`) });
  await c.connect();
  try {
    await c.query(`set role ${user}`);
    await c.query(statement);
  } finally {
    await c.end();
  }
}

describe.each(STORES)('live dataset refresh on %s', (kind) => {
  const { ctx, as } = useStudio(kind);
  const ask = (who: Who) => (url: string) => as(who, 'GET', url);
  let connectionId: string | undefined;

  /** A warehouse table of its own for a test, with the rows given. */
  const table = async (name: string, rows: string) => {
    const qualified = `shop.${name}_${kind}`;
    await onWarehouse(`create table ${qualified} (id int, name text); insert into ${qualified} values ${rows}`);
    return qualified;
  };
  const liveDataset = async (query: string, name: string) => {
    connectionId ??= (await as('owner', 'POST', '/v1/data-connections', { ...warehouseConnection(WAREHOUSE), name: 'Shop', credentials: { password: 'unused-with-trust' } })).json().item.id;
    const res = await as('owner', 'POST', '/v1/datasets/query', { connectionId, query, name, live: true });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().item as { id: string; metadata: { rowCount: number; refresh: Record<string, unknown> } };
  };
  const dataset = async (id: string) => (await as('owner', 'GET', `/v1/datasets/${id}`)).json().item;
  const refreshJobs = async (id: string) => (await as('owner', 'GET', `/v1/jobs?resourceId=${id}`)).json().items.filter((j: { kind: string }) => j.kind === 'dataset-refresh');

  it('refreshes on request: answers at once with the job, keeps serving the old rows, then serves the new ones', async () => {
    const places = await table('on_request', `(1, 'Ferry Building'), (2, 'Coit Tower')`);
    const live = await liveDataset(`select id, name from ${places} order by id`, 'Places');
    expect(live.metadata.refresh).toEqual({ schedule: null, maxAgeSeconds: 2678400, nextRefreshAt: null, lastRefreshAt: null, lastOutcome: null, lastMessage: null, lastTrigger: null });
    await onWarehouse(`insert into ${places} values (3, 'Alcatraz')`);
    const res = await as('owner', 'POST', `/v1/datasets/${live.id}/refresh`);
    expect(res.statusCode, res.body).toBe(202);
    // At once: still ready on its old snapshot (maps keep drawing it), and the job that makes the new one.
    expect(res.json().item).toMatchObject({ id: live.id, status: 'ready', metadata: { rowCount: 2 } });
    expect(res.json().job).toMatchObject({ kind: 'dataset-refresh', resourceId: live.id });
    expect(await jobEnded(ask('owner'), res.json().job.id)).toMatchObject({ status: 'succeeded', percent: 100 });
    const after = await dataset(live.id);
    expect(after).toMatchObject({ status: 'ready', metadata: { rowCount: 3, refresh: { lastOutcome: 'succeeded', lastTrigger: 'manual', lastMessage: null } } });
    expect(Date.parse(after.metadata.refresh.lastRefreshAt)).toBeGreaterThan(Date.now() - 60_000);
    const csv = await as('owner', 'GET', `/v1/datasets/${live.id}/data`);
    expect(csv.body.trim().split('\n')).toEqual(['id,name', '1,Ferry Building', '2,Coit Tower', '3,Alcatraz']);
  });

  it('asking twice while a refresh runs answers the same job: the query runs once', async () => {
    const slow = await table('slow', `(1, 'Ferry Building'), (2, 'Coit Tower')`);
    const live = await liveDataset(`select id, name, pg_sleep(0.4) is null as slept from ${slow} order by id`, 'Slow places');
    const first = await as('owner', 'POST', `/v1/datasets/${live.id}/refresh`);
    const second = await as('owner', 'POST', `/v1/datasets/${live.id}/refresh`);
    expect([first.statusCode, second.statusCode]).toEqual([202, 202]);
    expect(second.json().job.id).toBe(first.json().job.id);
    expect((await jobEnded(ask('owner'), first.json().job.id)).status).toBe('succeeded');
    expect(await refreshJobs(live.id)).toHaveLength(1);
  });

  it('a refresh that fails keeps the data it had and says why on the dataset', async () => {
    const failing = await table('failing', `(1, 'Ferry Building')`);
    const live = await liveDataset(`select id, name from ${failing}`, 'Failing places');
    await onWarehouse(`drop table ${failing}`);
    const res = await as('owner', 'POST', `/v1/datasets/${live.id}/refresh`);
    const ended = await jobEnded(ask('owner'), res.json().job.id);
    expect(ended.status).toBe('failed');
    expect(ended.message).toMatch(/does not exist/);
    const after = await dataset(live.id);
    expect(after).toMatchObject({ status: 'ready', metadata: { rowCount: 1, refresh: { lastOutcome: 'failed', lastTrigger: 'manual' } } });
    expect(after.metadata.refresh.lastMessage).toMatch(/does not exist/);
    expect((await as('owner', 'GET', `/v1/datasets/${live.id}/data`)).body.trim().split('\n')).toEqual(['id,name', '1,Ferry Building']);
  });

  it('runs on its schedule: once per scheduled time, on whichever node sees it first, and moves on to the next', async () => {
    const scheduled = await table('scheduled', `(1, 'Ferry Building')`);
    const live = await liveDataset(`select id, name from ${scheduled}`, 'Scheduled places');
    const before = Date.now();
    const set = await as('owner', 'PUT', `/v1/datasets/${live.id}/refresh-schedule`, { schedule: 'hourly' });
    expect(set.statusCode, set.body).toBe(200);
    const next = Date.parse(set.json().item.metadata.refresh.nextRefreshAt);
    // The next top of the hour, UTC.
    expect(next).toBe(Math.floor(before / 3_600_000) * 3_600_000 + 3_600_000);
    await onWarehouse(`insert into ${scheduled} values (2, 'Coit Tower')`);
    const refresh = ctx.s.services.refresh;
    // Not due yet: nothing starts.
    expect(await refresh.runDue(new Date(next - 1000))).toBe(0);
    const due = new Date(next + 1000);
    expect(await Promise.all([refresh.runDue(due), refresh.runDue(due)]).then((n) => n[0]! + n[1]!)).toBe(1);
    expect(await refresh.runDue(due)).toBe(0);
    const [job] = await refreshJobs(live.id);
    expect((await jobEnded(ask('owner'), job.id)).status).toBe('succeeded');
    const after = await dataset(live.id);
    expect(after.metadata).toMatchObject({ rowCount: 2, refresh: { schedule: 'hourly', lastOutcome: 'succeeded', lastTrigger: 'schedule' } });
    expect(Date.parse(after.metadata.refresh.nextRefreshAt)).toBe(next + 3_600_000);
    // A cron expression of five fields works out its own next time; turning the schedule off clears it.
    const cron = await as('owner', 'PUT', `/v1/datasets/${live.id}/refresh-schedule`, { schedule: '30 6 * * 1' });
    expect(new Date(cron.json().item.metadata.refresh.nextRefreshAt).toISOString()).toMatch(/T06:30:00\.000Z$/);
    expect(new Date(cron.json().item.metadata.refresh.nextRefreshAt).getUTCDay()).toBe(1);
    const off = await as('owner', 'PUT', `/v1/datasets/${live.id}/refresh-schedule`, { schedule: null });
    expect(off.json().item.metadata.refresh).toMatchObject({ schedule: null, nextRefreshAt: null });
  });

  it.each([
    [{ schedule: '61 * * * *' }, 'Invalid schedule "61 * * * *": Constraint error, got value 61 expected range 0-59'],
    [{ schedule: '*/5 * * * * *' }, 'Invalid schedule "*/5 * * * * *": use hourly, daily or a cron expression of five fields (minute hour day-of-month month day-of-week, UTC) such as "0 6 * * *"'],
    [{ schedule: 'weekly' }, 'Invalid schedule "weekly": use hourly, daily or a cron expression of five fields (minute hour day-of-month month day-of-week, UTC) such as "0 6 * * *"'],
    [{ maxAgeSeconds: 10 }, 'Invalid request body: maxAgeSeconds: must be at least 60 seconds'],
    [{ schedule: '' }, 'Invalid request body: schedule: must not be empty: send null for no schedule'],
  ])('refuses the schedule %j with 422 and changes nothing', async (body, message) => {
    const live = await liveDataset('select 1 as one', `Refused ${JSON.stringify(body)}`);
    await as('owner', 'PUT', `/v1/datasets/${live.id}/refresh-schedule`, { schedule: 'daily', maxAgeSeconds: 3600 });
    const res = await as('owner', 'PUT', `/v1/datasets/${live.id}/refresh-schedule`, body);
    expect([res.statusCode, res.json().message]).toEqual([422, message]);
    expect((await dataset(live.id)).metadata.refresh).toMatchObject({ schedule: 'daily', maxAgeSeconds: 3600 });
  });

  it('opening a live dataset older than its max age refreshes it, once, and the reader gets the data as it is', async () => {
    const opened = await table('opened', `(1, 'Ferry Building')`);
    const live = await liveDataset(`select id, name from ${opened}`, 'Opened places');
    await as('owner', 'PUT', `/v1/datasets/${live.id}/refresh-schedule`, { maxAgeSeconds: 60 });
    // Younger than its max age: opening changes nothing.
    await dataset(live.id);
    expect(await refreshJobs(live.id)).toHaveLength(0);
    await onWarehouse(`insert into ${opened} values (2, 'Coit Tower')`);
    // Two minutes pass (the snapshot's time moved back).
    const twoMinutesAgo = new Date(Date.now() - 120_000).toISOString();
    await ctx.s.services.datasets.patchMetadata(live.id, () => ({ ingestedAt: twoMinutesAgo }));
    const openedItem = await dataset(live.id);
    expect(openedItem).toMatchObject({ status: 'ready', metadata: { rowCount: 1 } });
    const [job] = await refreshJobs(live.id);
    expect(job).toBeDefined();
    expect((await jobEnded(ask('owner'), job.id)).status).toBe('succeeded');
    expect((await dataset(live.id)).metadata).toMatchObject({ rowCount: 2, refresh: { lastTrigger: 'open', lastOutcome: 'succeeded' } });
    expect(await refreshJobs(live.id)).toHaveLength(1);
  });

  it('refuses what is not a live dataset, and what the caller may not change', async () => {
    const managed = (await as('owner', 'POST', '/v1/datasets/query', { query: 'select 1 as one', name: 'Not live' })).json().item;
    for (const [method, url, body] of [['POST', `/v1/datasets/${managed.id}/refresh`, undefined], ['PUT', `/v1/datasets/${managed.id}/refresh-schedule`, { schedule: 'daily' }]] as const) {
      const res = await as('owner', method, url, body);
      expect([res.statusCode, res.json().message]).toEqual([422, 'Only live datasets refresh; this one is managed']);
    }
    expect((await dataset(managed.id)).metadata.refresh).toBeNull();
    const live = await liveDataset('select 1 as one', 'Private live');
    // Another organization's member does not see it; a viewer in its own organization sees it, and may not refresh it.
    for (const [who, status] of [['outsider', 404], ['colleague', 403]] as const) {
      expect((await as(who, 'POST', `/v1/datasets/${live.id}/refresh`)).statusCode).toBe(status);
      expect((await as(who, 'PUT', `/v1/datasets/${live.id}/refresh-schedule`, { schedule: 'daily' })).statusCode).toBe(status);
    }
    expect(await refreshJobs(live.id)).toHaveLength(0);
    expect((await dataset(live.id)).metadata.refresh.schedule).toBeNull();
  });
});
