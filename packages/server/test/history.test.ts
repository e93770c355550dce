import { describe, expect, it } from 'vitest';
import { canonicalJson, HISTORY_FULL_EVERY } from '@studio/schema';
import { STORES, useStudio } from './harness';

const layer = (id: string, label: string, color: number[], opacity = 0.8) => ({ id, type: 'point', config: { dataId: 'd', label, color, isVisible: true, visConfig: { opacity, radius: 5 } } });
const mapState = (layers: unknown[], zoom = 3) => ({
  studioVersion: 1,
  kepler: { version: 'v1', config: { visState: { layers, filters: [], interactionConfig: { tooltip: { enabled: true } } }, mapState: { latitude: 1, longitude: 2, zoom }, mapStyle: { styleType: 'dark' } } },
});

describe.each(STORES)('history on %s', (kind) => {
  const { ctx, as, create } = useStudio(kind);
  const versionsOf = async (id: string, who: 'owner' | 'viewer' | 'outsider' = 'owner') => as(who, 'GET', `/v1/maps/${id}/versions`);

  it('200 saves with small edits: each version reads back as it was saved, and the record names its latest', async () => {
    const map = await create('/v1/maps', { name: 'Many saves', latestState: mapState([layer('a', 'Cafes', [0, 0, 0])]) });
    const saved: unknown[] = [mapState([layer('a', 'Cafes', [0, 0, 0])])];
    let layers = [layer('a', 'Cafes', [0, 0, 0])];
    for (let i = 1; i < 200; i++) {
      // Small edits of several kinds: a colour, a layer added first, a layer removed, the view.
      if (i % 17 === 0) layers = [layer(`l${i}`, `Layer ${i}`, [i, 0, 0]), ...layers];
      else if (i % 29 === 0 && layers.length > 1) layers = layers.slice(1);
      else layers = layers.map((l, j) => (j === i % layers.length ? layer(l.id, l.config.label, [i % 256, 1, 2], (i % 10) / 10) : l));
      const state = mapState(layers, i % 7 === 0 ? i : 3);
      const res = await as('owner', 'PUT', `/v1/maps/${map.id}`, { latestState: state });
      expect(res.statusCode).toBe(200);
      saved.push(state);
    }
    const list = (await versionsOf(map.id)).json().items as { n: number; source: string; createdBy: { name: string } | null }[];
    expect(list.map((v) => v.n)).toEqual(saved.map((_, i) => saved.length - i));
    expect(list[0]).toMatchObject({ source: 'builder', createdBy: { id: ctx.cast.users.owner.id } });
    for (let n = 1; n <= saved.length; n++) {
      const v = (await as('owner', 'GET', `/v1/maps/${map.id}/versions/${n}`)).json();
      expect(canonicalJson(v.state), `version ${n}`).toBe(canonicalJson(saved[n - 1]));
    }
    expect((await as('owner', 'GET', `/v1/maps/${map.id}`)).json().item.version).toBe(200);
    const kinds = await ctx.s.services.db.selectFrom('record_versions').select(['kind']).where('record_id', '=', map.id).where('kind', '=', 'full').execute();
    expect(kinds.length).toBe(200 / HISTORY_FULL_EVERY);
  });

  it('a rename alone, or the same state again, is no version; the diff names the restyled layer and property; a restore is a new version equal to the restored one', async () => {
    const v1 = mapState([layer('a', 'Cafes', [1, 2, 3]), layer('b', 'Bars', [4, 5, 6])]);
    const map = await create('/v1/maps', { name: 'Restyled', latestState: v1 });
    await as('owner', 'PUT', `/v1/maps/${map.id}`, { name: 'Renamed' });
    await as('owner', 'PUT', `/v1/maps/${map.id}`, { latestState: JSON.parse(JSON.stringify(v1)) });
    expect((await versionsOf(map.id)).json().items).toHaveLength(1);
    const v2 = mapState([layer('a', 'Cafes', [1, 2, 3]), layer('b', 'Bars', [9, 9, 9])]);
    const saved = await as('owner', 'PUT', `/v1/maps/${map.id}`, { latestState: v2, versionMessage: 'Bars in grey' });
    expect(saved.json().item.version).toBe(2);
    const diff = (await as('owner', 'GET', `/v1/maps/${map.id}/versions/1/diff/2`)).json();
    expect(diff).toEqual({ from: 1, to: 2, changes: [{ area: 'layer', id: 'b', label: 'Bars', kind: 'changed', property: 'color', before: [4, 5, 6], after: [9, 9, 9] }] });
    expect((await versionsOf(map.id)).json().items[0]).toMatchObject({ n: 2, message: 'Bars in grey', schemaVersion: 1 });

    const restored = await as('owner', 'POST', `/v1/maps/${map.id}/versions/1/restore`, { message: 'Back' });
    expect(restored.statusCode).toBe(200);
    expect(restored.json()).toMatchObject({ n: 3, source: 'restore', restoredFrom: 1, message: 'Back' });
    const v3 = (await as('owner', 'GET', `/v1/maps/${map.id}/versions/3`)).json();
    expect(canonicalJson(v3.state)).toBe(canonicalJson(v1));
    expect(canonicalJson((await as('owner', 'GET', `/v1/maps/${map.id}`)).json().item.latestState)).toBe(canonicalJson(v1));

    const copy = await as('owner', 'POST', `/v1/maps/${map.id}/versions/2/duplicate`);
    expect(copy.statusCode).toBe(201);
    expect(canonicalJson(copy.json().item.latestState)).toBe(canonicalJson(v2));
    expect(copy.json().item).toMatchObject({ version: 1, name: 'Copy of Renamed' });
  });

  it('a save based on an old version is refused with 409, the latest and the changes since; without a base it saves', async () => {
    const map = await create('/v1/maps', { name: 'Two editors', latestState: mapState([layer('a', 'Cafes', [1, 1, 1])]) });
    await as('owner', 'PUT', `/v1/maps/${map.id}`, { latestState: mapState([layer('a', 'Cafes', [2, 2, 2])]), baseVersion: 1 });
    const stale = await as('owner', 'PUT', `/v1/maps/${map.id}`, { latestState: mapState([layer('a', 'Cafes', [3, 3, 3])]) }, { 'if-match': '"1"' });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ latest: 2, changes: [{ area: 'layer', id: 'a', property: 'color', before: [1, 1, 1], after: [2, 2, 2] }] });
    expect((await versionsOf(map.id)).json().items).toHaveLength(2);
    expect((await as('owner', 'PUT', `/v1/maps/${map.id}`, { latestState: mapState([layer('a', 'Cafes', [3, 3, 3])]) }, { 'if-match': '"2"' })).statusCode).toBe(200);
    expect((await as('owner', 'PUT', `/v1/maps/${map.id}`, { latestState: mapState([layer('a', 'Cafes', [4, 4, 4])]) })).statusCode).toBe(200);
  });

  it('a viewer lists and opens versions but cannot restore; another organization sees none; a restore under another user\'s lock is refused; deleting the map deletes its versions', async () => {
    const map = await create('/v1/maps', { name: 'Shared', latestState: mapState([layer('a', 'Cafes', [1, 1, 1])]) });
    await as('owner', 'PUT', `/v1/maps/${map.id}`, { latestState: mapState([layer('a', 'Cafes', [2, 2, 2])]) });
    await as('owner', 'POST', `/v1/maps/${map.id}/share`, { emails: [{ email: 'viewer@globex.test', role: 'viewer' }, { email: 'editor@globex.test', role: 'editor' }] });
    expect((await versionsOf(map.id, 'viewer')).json().items).toHaveLength(2);
    expect((await as('viewer', 'GET', `/v1/maps/${map.id}/versions/1`)).statusCode).toBe(200);
    expect((await as('viewer', 'POST', `/v1/maps/${map.id}/versions/1/restore`, {})).statusCode).toBe(403);
    expect((await versionsOf(map.id, 'outsider')).statusCode).toBe(404);
    expect((await as('outsider', 'GET', `/v1/maps/${map.id}/versions/1/diff/2`)).statusCode).toBe(404);
    expect((await as('owner', 'GET', `/v1/maps/${map.id}/versions/9`)).statusCode).toBe(404);

    expect((await as('owner', 'GET', `/v1/maps/${map.id}?acquireLock=true`)).json().item.lock).not.toBeNull();
    const locked = await as('editor', 'POST', `/v1/maps/${map.id}/versions/1/restore`, {});
    expect(locked.statusCode).toBe(409);
    expect(locked.json().message).toContain('being edited by');
    expect((await versionsOf(map.id)).json().items).toHaveLength(2);
    await as('owner', 'DELETE', `/v1/locks/maps/${map.id}`);

    await as('owner', 'DELETE', `/v1/maps/${map.id}`);
    const left = await ctx.s.services.db.selectFrom('record_versions').select('n').where('record_id', '=', map.id).execute();
    expect(left).toEqual([]);
  });

  it('a map state is checked on save: a broken one is refused with 422, the SDK\'s and unknown fields are kept as sent', async () => {
    const map = await create('/v1/maps', { name: 'Checked', latestState: mapState([layer('a', 'Cafes', [1, 2, 3])]) });
    const refused = async (latestState: unknown, message: RegExp) => {
      const res = await as('owner', 'PUT', `/v1/maps/${map.id}`, { latestState });
      expect(res.statusCode, JSON.stringify(latestState)).toBe(422);
      expect(res.json().message).toMatch(message);
      expect(res.body).not.toMatch(/node_modules|\/work\/|at \w+ \(/);
    };
    await refused({ studioVersion: 99, kepler: { version: 'v1', config: {} } }, /newer studio/);
    await refused({ studioVersion: 1 }, /kepler/);
    await refused({ studioVersion: 1, kepler: { version: 'v1', config: [] } }, /kepler\.config/);
    await refused({ version: 'v1', config: 'layers' }, /config/);
    await refused([mapState([])], /not an object/);
    // Nothing refused was kept: the map and its one version are as before.
    expect((await versionsOf(map.id)).json().items).toHaveLength(1);
    // Kept as sent: fields the studio does not read, a bare kepler config, the Data SDK's {id, data}.
    const extra = { ...mapState([layer('a', 'Cafes', [4, 5, 6])]), note: 'mine', kepler: { version: 'v1', config: { visState: { layers: [] } }, savedBy: 'another tool' } };
    for (const latestState of [extra, { version: 'v1', config: { visState: {} } }, { id: map.id, data: { anything: [1, 2] } }]) {
      const res = await as('owner', 'PUT', `/v1/maps/${map.id}`, { latestState });
      expect(res.statusCode).toBe(200);
      expect(canonicalJson(res.json().item.latestState)).toBe(canonicalJson(latestState));
    }
  });

  it('dashboards and workbooks keep versions too, upgraded on read', async () => {
    const wb = (query: string) => ({ version: 1, cells: [{ id: 'c1', name: 'trips', kind: 'sql', query, collapsed: false }] });
    const book = await create('/v1/workbooks', { name: 'Book', latestState: wb('select 1') });
    await as('owner', 'PUT', `/v1/workbooks/${book.id}`, { latestState: wb('select 2') });
    const diff = (await as('owner', 'GET', `/v1/workbooks/${book.id}/versions/1/diff/2`)).json();
    expect(diff.changes).toMatchObject([{ area: 'cell', id: 'c1', property: 'query', before: 'select 1', after: 'select 2' }]);
    const dash = await create('/v1/insights', { name: 'Dash', latestState: { version: 1, widgets: [], parameters: [], layout: [] } });
    const v1 = (await as('owner', 'GET', `/v1/insights/${dash.id}/versions/1`)).json();
    expect(v1).toMatchObject({ n: 1, schemaVersion: 1, state: { version: 1, widgets: [] } });
  });
});
