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
});
