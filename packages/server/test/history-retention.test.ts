import { describe, expect, it } from 'vitest';
import { canonicalJson } from '@studio/schema';
import { historyThinning, versionsToKeep, thinRecordVersions } from '../src/services/history-retention';
import { storedState } from '../src/services/history';
import { STORES, useStudio } from './harness';

const DAY = 86_400_000;
const NOW = new Date('2026-12-02T12:00:00Z');
const at = (daysAgo: number, hour = 0) => new Date(NOW.getTime() - daysAgo * DAY + hour * 3_600_000);

describe('versionsToKeep', () => {
  it.each([
    ['all of the last 30 days', [at(1), at(1, 1), at(29)], [1, 2, 3]],
    ['the last of each day past 30 days', [at(40, 1), at(40, 2), at(40, 3), at(39, 1)], [3, 4]],
    ['the last of each week past a year (and the latest)', [at(400), at(399), at(398), at(380), at(2)], [3, 4, 5]],
    ['the latest always, however old', [at(800), at(799)], [2]],
  ])('keeps %s', (_what, dates, kept) => {
    const versions = dates.map((createdAt, i) => ({ n: i + 1, createdAt })).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    expect([...versionsToKeep(versions, NOW)].sort((a, b) => a - b)).toEqual(kept);
  });
});

describe.each(STORES)('thinning on %s', (kind) => {
  const { ctx, as, create } = useStudio(kind);
  it('removes what retention lets go and every kept version still reads back as saved', async () => {
    const state = (i: number) => ({ studioVersion: 1, kepler: { version: 'v1', config: { visState: { layers: [{ id: 'a', config: { label: 'A', color: [i, 0, 0] } }] }, mapState: { zoom: i } } } });
    const map = await create('/v1/maps', { name: 'Old map', latestState: state(0) });
    for (let i = 1; i < 45; i++) await as('owner', 'PUT', `/v1/maps/${map.id}`, { latestState: state(i) });
    // Versions 1..44 spread over 44 hours, two days ago and earlier past the keep-all period of one day.
    const db = ctx.s.services.db;
    for (let n = 1; n <= 45; n++) await db.updateTable('record_versions').set({ created_at: new Date(NOW.getTime() - 3 * DAY - (45 - n) * 3_600_000) }).where('record_id', '=', map.id).where('n', '=', n).execute();
    const removed = await thinRecordVersions(db, map.id, NOW, { keepAllDays: 1, dailyForDays: 365 });
    const left = (await as('owner', 'GET', `/v1/maps/${map.id}/versions`)).json().items.map((v: { n: number }) => v.n);
    expect(removed).toBe(45 - left.length);
    expect(left.length).toBeLessThanOrEqual(3);
    expect(left[0]).toBe(45);
    for (const n of left) expect(canonicalJson(await storedState(db, map.id, n))).toBe(canonicalJson(state(n - 1)));
    // The next save follows the re-based chain.
    await as('owner', 'PUT', `/v1/maps/${map.id}`, { latestState: state(99) });
    expect(canonicalJson((await as('owner', 'GET', `/v1/maps/${map.id}/versions/46`)).json().state)).toBe(canonicalJson(state(99)));
  });

  it('a scheduled thinning, once a day, keeps what the retention administrators set says', async () => {
    // The setting: administrators only, checked, stored in the catalog.
    expect((await as('owner', 'PUT', '/v1/admin/history/retention', { keepAllDays: 1, dailyForDays: 3 })).statusCode).toBe(403);
    expect((await as('admin', 'PUT', '/v1/admin/history/retention', { keepAllDays: 5, dailyForDays: 3 })).statusCode).toBe(422);
    expect((await as('admin', 'GET', '/v1/admin/history/retention')).json()).toEqual({ retention: { keepAllDays: 30, dailyForDays: 365, snapshotDays: 30 }, lastThinnedAt: null });
    const set = await as('admin', 'PUT', '/v1/admin/history/retention', { keepAllDays: 1, dailyForDays: 3 });
    expect(set.json().retention).toEqual({ keepAllDays: 1, dailyForDays: 3, snapshotDays: 30 });

    // Twelve versions: ten about two and a half days old (past keep-all, inside the daily period), two of today.
    const state = (i: number) => ({ studioVersion: 1, kepler: { version: 'v1', config: { visState: { layers: [{ id: 'a', config: { label: 'A', color: [0, i, 0] } }] }, mapState: { zoom: i } } } });
    const map = await create('/v1/maps', { name: 'Thinned on schedule', latestState: state(1) });
    for (let i = 2; i <= 12; i++) await as('owner', 'PUT', `/v1/maps/${map.id}`, { latestState: state(i) });
    const db = ctx.s.services.db;
    const now = Date.now();
    const age = (n: number) => (n <= 10 ? 2.5 * DAY - (10 - n) * 600_000 : (13 - n) * 3_600_000);
    for (let n = 1; n <= 12; n++) await db.updateTable('record_versions').set({ created_at: new Date(now - age(n)) }).where('record_id', '=', map.id).where('n', '=', n).execute();
    const expected = [...versionsToKeep(Array.from({ length: 12 }, (_, i) => ({ n: i + 1, createdAt: new Date(now - age(i + 1)) })), new Date(now), { keepAllDays: 1, dailyForDays: 3 })];

    const thinning = historyThinning(ctx.s.services);
    const jobId = (await thinning.queueIfDue())!;
    expect(jobId).toEqual(expect.any(String));
    // The day's run is claimed: another tick (this node's or another's) queues nothing until tomorrow.
    expect(await thinning.queueIfDue()).toBeNull();
    await expect.poll(async () => (await as('admin', 'GET', `/v1/jobs/${jobId}`)).json().item.status, { timeout: 30_000 }).toBe('succeeded');

    const left = (await as('owner', 'GET', `/v1/maps/${map.id}/versions`)).json().items.map((v: { n: number }) => v.n);
    expect(left.sort((a: number, b: number) => a - b)).toEqual(expected.sort((a, b) => a - b));
    // Today's two, and the last of the older ones' day (or two days, across midnight): eight or nine let go.
    expect(left).toEqual(expect.arrayContaining([10, 11, 12]));
    expect(left.length).toBeLessThanOrEqual(4);
    for (const n of left) expect(canonicalJson(await storedState(db, map.id, n))).toBe(canonicalJson(state(n)));
    expect((await as('admin', 'GET', '/v1/admin/history/retention')).json().lastThinnedAt).toEqual(expect.any(String));
  });

  it('administrators see the storage versions use and can thin by a retention; others cannot', async () => {
    const storage = await as('admin', 'GET', '/v1/admin/history/storage');
    expect(storage.statusCode).toBe(200);
    expect(storage.json().versions).toBeGreaterThan(0);
    expect(storage.json().bytes).toBeGreaterThan(0);
    expect((await as('owner', 'GET', '/v1/admin/history/storage')).statusCode).toBe(403);
    const thin = await as('admin', 'POST', '/v1/admin/history/thin', {});
    expect(thin.json()).toMatchObject({ removed: 0, storage: storage.json() });
    expect((await as('admin', 'POST', '/v1/admin/history/thin', { keepAllDays: 9, dailyForDays: 2 })).statusCode).toBe(422);
  });
});
