import { describe, expect, it } from 'vitest';
import { STORES, useStudio } from './harness';

const DAY = 86_400_000;
const mapState = (zoom: number) => ({ studioVersion: 1, kepler: { version: 'v1', config: { visState: { layers: [], filters: [] }, mapState: { latitude: 1, longitude: 2, zoom } } } });
const csvRows = (body: string) => body.trim().split('\n');

describe.each(STORES)('pinned data on %s', (kind) => {
  const { ctx, as, create } = useStudio(kind);
  const csv = { 'content-type': 'text/csv' };

  /** A dataset of the owner's with `body` as its data. */
  const dataset = async (name: string, body: string) => {
    const res = await as('owner', 'POST', `/v1/datasets/data?name=${encodeURIComponent(name)}`, body, csv);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().item.id as string;
  };
  const replace = async (id: string, body: string) => expect((await as('owner', 'PUT', `/v1/datasets/${id}/data`, body, csv)).statusCode).toBe(200);
  const read = (id: string, snapshot?: string, who: 'owner' | 'outsider' = 'owner') => as(who, 'GET', `/v1/datasets/${id}/data${snapshot ? `?snapshot=${snapshot}` : ''}`);
  const snapshots = async (id: string) => (await as('owner', 'GET', `/v1/datasets/${id}/snapshots`)).json().items as { id: string; replacedAt: string | null; rowCount: number; pinnedBy: number; columns: { name: string }[] }[];

  it('a pinned save reads the replaced rows through ?snapshot=, the dataset and an unpinned version read today\'s', async () => {
    const places = await dataset('Places', 'id,name\n1,Ferry Building\n2,Coit Tower\n');
    const map = await create('/v1/maps', { name: 'Pinned', latestState: mapState(1), datasets: [places] });
    expect((await as('owner', 'PUT', `/v1/maps/${map.id}`, { latestState: mapState(2) })).statusCode).toBe(200);
    const pinned = await as('owner', 'PUT', `/v1/maps/${map.id}`, { latestState: mapState(3), pinData: true, versionMessage: 'as it looked then' });
    expect(pinned.statusCode, pinned.body).toBe(200);
    await replace(places, 'id,name,visits\n1,Ferry Building,10\n2,Coit Tower,20\n3,Alcatraz,30\n');

    const versions = (await as('owner', 'GET', `/v1/maps/${map.id}/versions`)).json().items as { n: number; pins: { datasetId: string; snapshotId: string }[] }[];
    expect(versions.map((v) => [v.n, v.pins.length])).toEqual([[3, 1], [2, 0], [1, 0]]);
    const pin = versions[0]!.pins[0]!;
    expect(pin.datasetId).toBe(places);
    expect((await as('owner', 'GET', `/v1/maps/${map.id}/versions/3`)).json().pins).toEqual([pin]);

    // The pin reads the rows the version showed; the dataset itself reads the new ones.
    const old = await read(places, pin.snapshotId);
    expect(old.statusCode, old.body).toBe(200);
    expect(csvRows(old.body)).toEqual(['id,name', '1,Ferry Building', '2,Coit Tower']);
    expect(csvRows((await read(places)).body)).toEqual(['id,name,visits', '1,Ferry Building,10', '2,Coit Tower,20', '3,Alcatraz,30']);
    const preview = (await as('owner', 'GET', `/v1/datasets/${places}/preview?snapshot=${pin.snapshotId}`)).json();
    expect(preview).toMatchObject({ total: 2, items: [{ id: 1, name: 'Ferry Building' }, { id: 2, name: 'Coit Tower' }] });

    // Listed under the dataset: the pinned one, replaced, with its schema then.
    const list = await snapshots(places);
    expect(list).toEqual([expect.objectContaining({ id: pin.snapshotId, rowCount: 2, pinnedBy: 1, replacedAt: expect.any(String) })]);
    expect(list[0]!.columns.map((c) => c.name)).toEqual(['id', 'name']);
  });

  it('reads a snapshot with the dataset\'s permissions now: 404 for a reader without them, an unknown id or another dataset\'s', async () => {
    const a = await dataset('A', 'x\n1\n');
    const b = await dataset('B', 'x\n2\n');
    await replace(a, 'x\n3\n');
    const [snap] = await snapshots(a);
    expect(snap).toBeDefined();
    expect((await read(a, snap!.id)).statusCode).toBe(200);
    const outsider = await read(a, snap!.id, 'outsider');
    expect(outsider.statusCode).toBe(404);
    expect((await as('outsider', 'GET', `/v1/datasets/${a}/snapshots`)).statusCode).toBe(404);
    const foreign = await read(b, snap!.id);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).not.toContain('datasets/');
    expect((await read(a, '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await read(a, 'not-an-id')).statusCode).toBe(422);
  });

  it('retention removes a replaced snapshot past its days that no version pins, keeps a pinned one, then removes it once its version is gone', async () => {
    const kept = await dataset('Kept', 'v\n1\n');
    const map = await create('/v1/maps', { name: 'Pins Kept', latestState: mapState(1), datasets: [kept] });
    expect((await as('owner', 'PUT', `/v1/maps/${map.id}`, { latestState: mapState(2), pinData: true })).statusCode).toBe(200);
    await replace(kept, 'v\n2\n');
    const loose = await dataset('Loose', 'v\n1\n');
    await replace(loose, 'v\n2\n');
    const db = ctx.s.services.db;
    // Both replaced 40 days ago, past the default 30.
    await db.updateTable('dataset_snapshots').set({ replaced_at: new Date(Date.now() - 40 * DAY) }).where('dataset_id', 'in', [kept, loose]).where('replaced_at', 'is not', null).execute();
    const [pinned] = await snapshots(kept);
    const [unpinned] = await snapshots(loose);
    const filesOf = async (id: string) => (await db.selectFrom('dataset_snapshots').select('storage_key').where('id', '=', id).executeTakeFirstOrThrow()).storage_key;
    const pinnedKey = await filesOf(pinned!.id);
    const unpinnedKey = await filesOf(unpinned!.id);

    const storage = async () => (await as('admin', 'GET', '/v1/admin/history/storage')).json() as { snapshots: number; snapshotBytes: number };
    const before = await storage();
    expect(before.snapshotBytes).toBeGreaterThan(0);
    const thin = await as('admin', 'POST', '/v1/admin/history/thin', {});
    expect(thin.statusCode, thin.body).toBe(200);
    // Administrators see the storage go down by the one snapshot removed.
    const after = thin.json().storage as { snapshots: number; snapshotBytes: number };
    expect(before.snapshots - after.snapshots).toBe(1);
    expect(after.snapshotBytes).toBeLessThan(before.snapshotBytes);
    expect(await snapshots(loose)).toEqual([]);
    expect(await ctx.s.services.engine.store.exists(unpinnedKey)).toBe(false);
    expect((await read(loose, unpinned!.id)).statusCode).toBe(404);
    expect((await snapshots(kept)).map((s) => s.id)).toEqual([pinned!.id]);
    expect(await ctx.s.services.engine.store.exists(pinnedKey)).toBe(true);
    expect(csvRows((await read(kept, pinned!.id)).body)).toEqual(['v', '1']);

    // The record goes, its versions with it: nothing pins the snapshot any more, and the next pass removes it.
    expect((await as('owner', 'DELETE', `/v1/maps/${map.id}`)).statusCode).toBe(204);
    await as('admin', 'POST', '/v1/admin/history/thin', {});
    expect(await snapshots(kept)).toEqual([]);
    expect(await ctx.s.services.engine.store.exists(pinnedKey)).toBe(false);
  });

  it('keeps a replaced snapshot within the retention, pinned or not, and the retention setting holds snapshotDays', async () => {
    const fresh = await dataset('Fresh', 'v\n1\n');
    await replace(fresh, 'v\n2\n');
    await as('admin', 'POST', '/v1/admin/history/thin', {});
    expect((await snapshots(fresh)).length).toBe(1);
    expect((await as('admin', 'POST', '/v1/admin/history/thin', { snapshotDays: 0 })).statusCode).toBe(200);
    expect(await snapshots(fresh)).toEqual([]);
    expect((await as('admin', 'GET', '/v1/admin/history/retention')).json().retention).toEqual({ keepAllDays: 30, dailyForDays: 365, snapshotDays: 30 });
  });
});
