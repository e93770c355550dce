import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { sql } from 'kysely';
import { buildStudio, type Studio } from '../src/app';
import { UNVERSIONED_TABLES } from '../src/store/migrations/006-catalog-version';
import { STORES, useStudio } from './harness';

type Item = { id: string; name: string; lock: unknown; tags: { name: string }[] };
const ids = (body: { items: Item[] }) => body.items.map((m) => m.id);

describe.each(STORES)('list answers and the catalog version on %s', (kind) => {
  const { ctx, as, create } = useStudio(kind);
  const version = () => ctx.s.services.listCache.version().then(Number);
  /** Lists twice, so that the second answer is the one the node keeps. */
  const warm = async (who: 'owner' | 'viewer' | 'outsider', url: string) => {
    await as(who, 'GET', url);
    return (await as(who, 'GET', url)).json() as { items: Item[]; total: number };
  };

  it('every catalog table moves the version on write, except the read-path ones', async () => {
    const { rows } = await sql<{ table_name: string; versioned: boolean }>`
      select t.table_name, exists (select 1 from information_schema.triggers g where g.event_object_table = t.table_name and g.trigger_name = t.table_name || '_catalog_version') as versioned
      from information_schema.tables t where t.table_schema = current_schema() and t.table_type = 'BASE TABLE'
    `.execute(ctx.s.services.db);
    const unversioned = rows.filter((r) => !r.versioned).map((r) => r.table_name).sort();
    // A new table must call versionTable() in its migration, or be listed in UNVERSIONED_TABLES with a reason.
    expect(unversioned).toEqual([...UNVERSIONED_TABLES].sort());
  });

  it('reads and sign-ins leave the version alone; one transaction moves it once', async () => {
    const map = await create('/v1/maps', { name: 'Version probe' });
    const before = await version();
    await as('owner', 'GET', '/v1/maps');
    await as('owner', 'GET', `/v1/maps/${map.id}`);
    await ctx.s.tokenOf('viewer@globex.test');
    expect(await version()).toBe(before);
    await ctx.s.services.db.transaction().execute(async (tx) => {
      await tx.updateTable('resources').set({ description: 'one' }).where('id', '=', map.id).execute();
      await tx.updateTable('resources').set({ description: 'two' }).where('owner_id', '=', ctx.cast.users.owner.id).execute();
    });
    expect(await version()).toBe(before + 1);
  });

  it('a rolled-back write leaves the version alone', async () => {
    const before = await version();
    await expect(
      ctx.s.services.db.transaction().execute(async (tx) => {
        await tx.updateTable('resources').set({ description: 'never' }).execute();
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await version()).toBe(before);
  });

  it.each([
    ['a rename', async (id: string) => as('owner', 'PUT', `/v1/maps/${id}`, { name: 'Renamed while cached' }), (l: { items: Item[] }, id: string) => l.items.find((m) => m.id === id)?.name === 'Renamed while cached'],
    ['a delete', async (id: string) => as('owner', 'DELETE', `/v1/maps/${id}`), (l: { items: Item[] }, id: string) => !ids(l).includes(id)],
    ['a tag', async (id: string) => {
      const tag = (await as('owner', 'POST', '/v1/tags', { name: `cache-${id.slice(0, 8)}` })).json().item;
      return as('owner', 'POST', `/v1/tags/${tag.id}/map/${id}`);
    }, (l: { items: Item[] }, id: string) => l.items.find((m) => m.id === id)?.tags.some((t) => t.name.startsWith('cache-')) === true],
  ])('the owner\'s list shows %s made right after it was answered', async (_label, write, holds) => {
    const map = await create('/v1/maps', { name: 'Cached map' });
    const before = await warm('owner', '/v1/maps?limit=100');
    expect(ids(before)).toContain(map.id);
    expect(holds(before, map.id)).toBe(false);
    expect((await write(map.id)).statusCode).toBeLessThan(300);
    expect(holds((await as('owner', 'GET', '/v1/maps?limit=100')).json(), map.id)).toBe(true);
  });

  it('a share and its revocation reach the other user\'s cached list at once', async () => {
    const map = await create('/v1/maps', { name: 'Shared while cached' });
    expect(ids(await warm('viewer', '/v1/maps/shared-with-user'))).not.toContain(map.id);
    await as('owner', 'POST', `/v1/maps/${map.id}/share`, { emails: [{ email: 'viewer@globex.test', role: 'viewer' }] });
    expect(ids((await as('viewer', 'GET', '/v1/maps/shared-with-user')).json())).toContain(map.id);
    const perms = (await as('owner', 'GET', `/v1/permissions/map/${map.id}`)).json().item;
    await as('owner', 'DELETE', `/v1/permissions/${perms.emails[0].id}`);
    expect(ids((await as('viewer', 'GET', '/v1/maps/shared-with-user')).json())).not.toContain(map.id);
    expect(ids(await warm('outsider', '/v1/maps/shared-with-user'))).not.toContain(map.id);
  });

  it('answers are per caller: the same URL never answers another user\'s list', async () => {
    await create('/v1/maps', { name: 'Owner only' });
    const owners = await warm('owner', '/v1/maps');
    const outsiders = (await as('outsider', 'GET', '/v1/maps')).json();
    expect(owners.total).toBeGreaterThan(0);
    expect(outsiders.items.filter((m: Item) => ids(owners).includes(m.id))).toEqual([]);
  });

  it('a lock shown in a list is gone from it when the lock runs out, with no write in between', async () => {
    const map = await create('/v1/maps', { name: 'Lock runs out' });
    // Half a minute ahead (the list cache's own limit is a minute), so that the list is answered and kept well before
    // the lock runs out, even when loaded;
    // then the clock (Date only: timers stay real) jumps past it instead of the test waiting.
    const expiresAt = Date.now() + 30_000;
    await ctx.s.services.db
      .updateTable('resources')
      .set({ lock_owner_id: ctx.cast.users.owner.id, lock_acquired_at: new Date(), lock_expires_at: new Date(expiresAt) })
      .where('id', '=', map.id)
      .execute();
    const locked = (await warm('owner', '/v1/maps?search=Lock%20runs%20out')).items[0]!;
    expect(locked.lock).toMatchObject({ ownerId: ctx.cast.users.owner.id });
    const at = await version();
    vi.useFakeTimers({ toFake: ['Date'], now: expiresAt + 1 });
    try {
      expect(await version()).toBe(at);
      expect((await as('owner', 'GET', '/v1/maps?search=Lock%20runs%20out')).json().items[0].lock).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe.runIf(STORES.includes('postgres'))('two API nodes on one PostgreSQL', () => {
  const { ctx, as, create } = useStudio('postgres');
  let second: Studio;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-node2-'));
    second = await buildStudio({ ...ctx.s.services.config, dataDir });
  });
  afterAll(async () => {
    await second?.close();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('a write through one node shows in the list the other node had answered from memory', async () => {
    const map = await create('/v1/maps', { name: 'Node one' });
    const onSecond = (url: string) => second.app.inject({ method: 'GET', url, headers: { authorization: ctx.cast.tokens.owner } }).then((r) => r.json() as { items: Item[] });
    await onSecond('/v1/maps?limit=100');
    expect((await onSecond('/v1/maps?limit=100')).items.find((m) => m.id === map.id)?.name).toBe('Node one');
    expect(second.services.listCache.size).toBeGreaterThan(0);
    expect((await as('owner', 'PUT', `/v1/maps/${map.id}`, { name: 'Renamed on node one' })).statusCode).toBe(200);
    expect((await onSecond('/v1/maps?limit=100')).items.find((m) => m.id === map.id)?.name).toBe('Renamed on node one');
  });
});
