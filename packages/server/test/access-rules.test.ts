import { describe, expect, it } from 'vitest';
import { createUser } from '../src/services/users';
import { PASSWORD, STORES, useStudio } from './harness';

/**
 * The access rule of services/access.ts as the people of the cast meet it (#12, the
 * `permissions-body-ids` mutation module): what each answer says, admin mode, organization members,
 * saved states following their record, people without an organization, and ids in bodies.
 */
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe.each(STORES)('the access rule, on %s', (kind) => {
  const { ctx, as, create } = useStudio(kind);

  it.each([
    ['map', 'Map'],
    ['dataset', 'Dataset'],
    ['data-connection', 'Data connection'],
    ['insight', 'Insight'],
    ['workbook', 'Workbook'],
    ['query-bookmark', 'Query bookmark'],
    ['query-template', 'Query template'],
    ['map-asset', 'Map asset'],
    ['project', 'Project'],
    ['insight-state', 'Insight state'],
    ['studio-state', 'Studio state'],
    ['workbook-state', 'Workbook state'],
  ])('names what was not found: a %s', async (type, label) => {
    const res = await as('owner', 'GET', `/v1/permissions/${type}/${UNKNOWN}`);
    expect([res.statusCode, res.json().message]).toEqual([404, `${label} not found`]);
  });

  it('says what the caller may not do, in words', async () => {
    const map = await create('/v1/maps', { name: 'Read only for colleagues' });
    // An organization member is a viewer of what the organization has: reads, cannot write.
    expect((await as('colleague', 'GET', `/v1/maps/${map.id}`)).statusCode).toBe(200);
    const res = await as('colleague', 'PUT', `/v1/maps/${map.id}`, { name: 'x' });
    expect([res.statusCode, res.json().message]).toEqual([403, 'You do not have permission to write this map']);
    expect((await as('outsider', 'GET', `/v1/maps/${map.id}`)).statusCode).toBe(404);
  });

  it('admin mode is for administrators who ask for it', async () => {
    const res = await as('outsider', 'POST', '/v1/maps', { name: "Globex's own" });
    const map = res.json().item.id as string;
    expect((await as('admin', 'GET', `/v1/maps/${map}`)).statusCode).toBe(404);
    expect((await as('admin', 'GET', `/v1/maps/${map}?isAdmin=true`)).statusCode).toBe(200);
    expect((await as('owner', 'GET', `/v1/maps/${map}?isAdmin=true`)).statusCode).toBe(404);
  });

  it("a saved state follows its record: the record's editors edit it, its viewers read it, nobody else sees it", async () => {
    const map = await create('/v1/maps', { name: 'With a state' });
    const state = await create('/v1/studiostates', { name: 'Evening', recordId: map.id, state: { zoom: 11 } });
    await as('owner', 'POST', '/v1/permissions', { resourceType: 'map', resourceId: map.id, role: 'editor', email: 'editor@globex.test' });
    await as('owner', 'POST', '/v1/permissions', { resourceType: 'map', resourceId: map.id, role: 'viewer', email: 'viewer@globex.test' });
    const read = (who: 'owner' | 'editor' | 'viewer' | 'outsider' | 'colleague') => as(who, 'GET', `/v1/studiostates/${state.id}`).then((r) => r.statusCode);
    const write = (who: 'owner' | 'editor' | 'viewer') => as(who, 'PUT', `/v1/studiostates/${state.id}`, { name: `By ${who}` }).then((r) => r.statusCode);
    expect([await read('owner'), await read('editor'), await read('viewer'), await read('outsider')]).toEqual([200, 200, 200, 404]);
    expect([await write('owner'), await write('editor'), await write('viewer')]).toEqual([200, 200, 403]);
    // The colleague reads the map as a member of its organization, and so the state: through the record only.
    expect(await read('colleague')).toBe(200);
  });

  it('shares reach a person without an organization, by email', async () => {
    await createUser(ctx.s.services.db, { email: 'freelancer@example.test', password: PASSWORD, organizationId: null });
    const token = await ctx.s.tokenOf('freelancer@example.test');
    const map = await create('/v1/maps', { name: 'For the freelancer' });
    const open = () => ctx.s.app.inject({ method: 'GET', url: `/v1/maps/${map.id}`, headers: { authorization: token } }).then((r) => r.statusCode);
    expect(await open()).toBe(404);
    await as('owner', 'POST', '/v1/permissions', { resourceType: 'map', resourceId: map.id, role: 'viewer', email: 'freelancer@example.test' });
    expect(await open()).toBe(200);
  });

  it('checks every id a body names: unknown, malformed, unreadable, or readable but not usable', async () => {
    const mine = await create('/v1/maps', { name: 'Mine' });
    const theirs = (await as('outsider', 'POST', '/v1/maps', { name: 'Theirs' })).json().item.id as string;
    const tag = async (resourceId: string) => {
      const r = await as('owner', 'POST', '/v1/tags', { name: 'Look', resourceType: 'map', resourceId });
      return [r.statusCode, r.json().message];
    };
    expect(await tag(UNKNOWN)).toEqual([404, 'Map not found']);
    expect(await tag(theirs)).toEqual([404, 'Map not found']);
    expect(await tag(mine.id)).toEqual([201, undefined]);
    const datasets = async (ids: string[]) => (await as('owner', 'PUT', `/v1/maps/${mine.id}`, { datasets: ids })).statusCode;
    expect(await datasets([UNKNOWN])).toBe(404);
    expect(await datasets([mine.id])).toBe(404);
  });

  it.each([
    ['studiostates', 'studio-state', '/v1/maps'],
    ['insight-states', 'insight-state', '/v1/dashboards'],
    ['workbook-states', 'workbook-state', '/v1/workbooks'],
  ])('a saved state of /v1/%s follows its record, not its organization', async (collection, stateType, records) => {
    const record = await create(records, { name: `Shared ${collection}` });
    await as('owner', 'POST', '/v1/permissions', { resourceType: records === '/v1/maps' ? 'map' : records === '/v1/dashboards' ? 'insight' : 'workbook', resourceId: record.id, role: 'editor', email: 'editor@globex.test' });
    // The editor is in another organization: the record's share reaches its states.
    const state = (await as('editor', 'POST', `/v1/${collection}`, { name: 'By the editor', recordId: record.id, state: { v: 1 } })).json().item;
    expect(state?.id).toBeTruthy();
    const status = (who: 'owner' | 'editor' | 'outsider' | 'colleague', method = 'GET', body?: unknown) => as(who, method, `/v1/${collection}/${state.id}`, body).then((r) => r.statusCode);
    expect([await status('editor'), await status('owner'), await status('colleague'), await status('outsider')]).toEqual([200, 200, 200, 404]);
    // The record's owner edits a state an editor saved, but sharing it stays with the state's owner.
    expect(await status('owner', 'PUT', { name: 'Renamed by the record owner' })).toBe(200);
    const share = await as('owner', 'POST', '/v1/permissions', { resourceType: stateType, resourceId: state.id, role: 'viewer', email: 'viewer@globex.test' });
    expect([share.statusCode, share.json().message]).toEqual([403, `You do not have permission to share this ${stateType.replace('-', ' ')}`]);
    expect((await as('editor', 'POST', '/v1/permissions', { resourceType: stateType, resourceId: state.id, role: 'viewer', email: 'viewer@globex.test' })).statusCode).toBe(201);
  });

  it('checks ids a body names by the same rule as a path id (AccessService.guardAll)', async () => {
    const access = ctx.s.services.access;
    const caller = (await ctx.s.services.auth.authenticate(ctx.cast.tokens.colleague))!;
    const ownerMap = await create('/v1/maps', { name: 'Colleagues read it' });
    const theirs = (await as('outsider', 'POST', '/v1/maps', { name: 'Not theirs' })).json().item.id as string;
    const guardAll = (ids: string[], action: 'read' | 'write') => access.guardAll(caller, 'map', ids, action, false).then((rows) => rows.map((r) => r.id), (e: { status: number; message: string }) => [e.status, e.message]);
    expect(await guardAll([ownerMap.id, ownerMap.id], 'read')).toEqual([ownerMap.id]);
    expect(await guardAll([], 'write')).toEqual([]);
    expect(await guardAll([ownerMap.id, 'not-an-id'], 'read')).toEqual([404, 'Map not found']);
    expect(await guardAll([ownerMap.id, UNKNOWN], 'read')).toEqual([404, 'Map not found']);
    expect(await guardAll([ownerMap.id, theirs], 'read')).toEqual([404, 'Map not found']);
    expect(await guardAll([ownerMap.id], 'write')).toEqual([403, 'You do not have permission to write this map']);
  });

  it("keeps a connection's runs for its editors when its owner says so; its readers still see it", async () => {
    const connection = { type: 'postgres', host: '127.0.0.1', port: 9, database: 'nowhere', user: 'nobody', sslmode: 'disable' };
    const restricted = await create('/v1/data-connections', { ...connection, name: 'Editors only', runForEditorsOnly: true });
    const open = await create('/v1/data-connections', { ...connection, name: 'Everyone who reads it' });
    await as('owner', 'POST', '/v1/permissions', { resourceType: 'data-connection', resourceId: restricted.id, role: 'editor', email: 'editor@globex.test' });
    const run = (who: 'colleague' | 'editor', connectionId: string) => as(who, 'POST', '/v1/data-queries', { connectionId, query: 'select 1' }).then((r) => [r.statusCode, r.json().message ?? r.json().item?.status]);
    expect(await run('colleague', restricted.id)).toEqual([403, 'Only editors of this connection may run queries on it']);
    expect((await as('colleague', 'GET', `/v1/data-connections/${restricted.id}`)).statusCode).toBe(200);
    // Past the access rule, a run reaches the driver and is recorded (failed here: nothing listens on port 9).
    expect(await run('editor', restricted.id)).toEqual([200, 'failure']);
    expect(await run('colleague', open.id)).toEqual([200, 'failure']);
    // A setting the catalog holds damaged (not a boolean) restricts rather than opens the connection up.
    const row = await ctx.s.services.db.selectFrom('resources').select('attrs').where('id', '=', open.id).executeTakeFirstOrThrow();
    await ctx.s.services.db.updateTable('resources').set({ attrs: JSON.stringify({ ...row.attrs, runForEditorsOnly: 'no' }) }).where('id', '=', open.id).execute();
    expect(await run('colleague', open.id)).toEqual([403, 'Only editors of this connection may run queries on it']);
  });

  it('answers not found for a type or id no record can have, and share targets nobody may see', async () => {
    const access = ctx.s.services.access;
    const caller = (await ctx.s.services.auth.authenticate(ctx.cast.tokens.owner))!;
    const failure = (p: Promise<unknown>) => p.then(() => 'allowed', (e: { status: number; message: string }) => [e.status, e.message]);
    expect(await failure(access.guard(caller, 'spreadsheet' as never, UNKNOWN, 'read', false))).toEqual([404, 'Unknown resource type spreadsheet']);
    expect(await failure(access.guard(caller, 'map', 'not-an-id', 'read', false))).toEqual([404, 'Map not found']);
    // Share targets: one's own organization and its members are visible; nobody is visible to no caller.
    expect(await failure(access.assertVisibleSubjects(caller, { organizationIds: [ctx.cast.org.id] }))).toBe('allowed');
    expect(await failure(access.assertVisibleSubjects(caller, { userIds: [ctx.cast.users.colleague.id] }))).toBe('allowed');
    expect(await failure(access.assertVisibleSubjects(caller, { organizationIds: [ctx.cast.otherOrg.id] }))).toEqual([404, 'Organization not found']);
    expect(await failure(access.assertVisibleSubjects(null, { userIds: [ctx.cast.users.colleague.id] }))).toEqual([404, 'User not found']);
    expect(await failure(access.assertVisibleSubjects(null, { organizationIds: [ctx.cast.org.id] }))).toEqual([404, 'Organization not found']);
  });
});
