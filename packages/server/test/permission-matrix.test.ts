import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { can, type Access, type ResourceType } from '@studio/schema';
import type { RouteDef } from '../src/http/route';
import { RESOURCE_LABELS } from '../src/services/access';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

/**
 * Routes with an id in the path that check access inside the handler instead of through a resource
 * guard, each with the reason. Any other such route without a guard fails this suite: a new route
 * cannot skip the matrix.
 */
const SELF_GUARDED: Record<string, string> = {
  'GET /v1/users/{id}/seat': 'self or administrator',
  'PUT /v1/users/{id}': 'self or administrator',
  'PUT /v1/permissions/{id}': 'guards the permission resource for share',
  'DELETE /v1/permissions/{id}': 'guards the permission resource for share',
  'PUT /v1/tags/{id}': 'tag owner',
  'GET /v1/jobs/{id}': 'the job\'s creator or an administrator (services/jobs/service.ts visible)',
  'POST /v1/jobs/{id}/cancel': 'the job\'s creator or an administrator (services/jobs/service.ts visible)',
  'DELETE /v1/tags/{id}': 'tag owner',
  'POST /v1/tags/{tagId}/{type}/{resourceId}': 'tag usable and resource readable',
  'DELETE /v1/tags/{tagId}/{type}/{resourceId}': 'tag usable and resource readable',
  'GET /v1/legal/{id}': 'agreement texts are the same for every signed-in user',
  'GET /v1/legal/latest/{id}/consent': "the caller's own consent",
  'POST /v1/legal/{id}/consent': "the caller's own consent",
  'GET /v1/bi/analytic-set-configs/{id}': 'members of the config organization or administrators',
  'PUT /v1/bi/analytic-set-configs/{id}': 'makers of the config organization or administrators',
  'DELETE /v1/bi/analytic-set-configs/{id}': 'makers of the config organization or administrators',
  'GET /v1/bi/query-param-configs/{id}': 'members of the config organization or administrators',
  'PUT /v1/bi/query-param-configs/{id}': 'makers of the config organization; group defaults administrators',
  'DELETE /v1/bi/query-param-configs/{id}': 'makers of the config organization; group defaults administrators',
  'GET /v1/bi/shared-parameters/{id}': 'owner, its organization, invited e-mails, administrators',
  'POST /v1/bi/shared-parameters/{id}/invite': 'owner or administrators',
  'GET /v1/data-queries/{id}': "query executions are not resources: the caller's own, or any for administrators in admin mode",
  'POST /v1/reports/published/{id}': "a report is not a resource: share access to the dashboard it snapshots",
  'POST /v1/reports/published/{id}/invite': "a report is not a resource: share access to the dashboard it snapshots",
  'GET /v1/data-queries/{id}/result': "query executions are not resources: the caller's own, or any for administrators in admin mode",
};

type Who = 'anonymous' | 'outsider' | 'viewer' | 'editor' | 'owner' | 'admin';
const WHO: Who[] = ['anonymous', 'outsider', 'viewer', 'editor', 'owner', 'admin'];
const ACCESS_OF: Record<Who, Access> = { anonymous: 'none', outsider: 'none', viewer: 'viewer', editor: 'editor', owner: 'owner', admin: 'admin' };

describe.each(STORES)('permission matrix on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
  });
  afterAll(async () => s?.dispose());

  /** A fresh resource of `type` owned by the owner, shared with the viewer and editor. */
  async function fixture(type: ResourceType): Promise<string> {
    const id = randomUUID();
    await s.services.db
      .insertInto('resources')
      .values({ id, type, owner_id: cast.users.owner.id, organization_id: cast.org.id, name: `fixture ${type}`, attrs: JSON.stringify({ assetType: 'map-style' }) })
      .execute();
    await s.services.db
      .insertInto('permissions')
      .values([
        { id: randomUUID(), resource_id: id, subject_kind: 'user', user_id: cast.users.viewer.id, role: 'viewer' },
        { id: randomUUID(), resource_id: id, subject_kind: 'user', user_id: cast.users.editor.id, role: 'editor' },
      ])
      .execute();
    return id;
  }

  /** Everyone may read this one, so linking it is never what refuses a call. */
  async function publicFixture(type: ResourceType): Promise<string> {
    const id = await fixture(type);
    await s.services.db.updateTable('resources').set({ visibility: 'public_read' }).where('id', '=', id).execute();
    return id;
  }

  async function call(route: RouteDef, who: Who, url: string) {
    const headers: Record<string, string> = {};
    if (who !== 'anonymous') headers.authorization = cast.tokens[who === 'outsider' ? 'outsider' : who];
    const sep = url.includes('?') ? '&' : '?';
    return s.app.inject({ method: route.method, url: who === 'admin' ? `${url}${sep}isAdmin=true` : url, headers, payload: route.method === 'GET' || route.method === 'DELETE' ? undefined : {} });
  }

  it('gives every route with an id in its path a resource guard or a stated reason', () => {
    const unguarded = s.routes
      .filter((r) => r.auth === 'user' && /\{(id|resourceId)\}/.test(r.url) && !r.resource)
      .map((r) => `${r.method} ${r.url}`)
      .filter((k) => !(k in SELF_GUARDED));
    expect(unguarded).toEqual([]);
  });

  it('refuses anonymous callers on every non-public route, and non-administrators on admin routes', async () => {
    for (const route of s.routes.filter((r) => r.auth !== 'public')) {
      const url = route.url.replace(/\{(\w+)\}/g, () => randomUUID());
      const anon = await s.app.inject({ method: route.method, url });
      expect([route.url, anon.statusCode]).toEqual([route.url, 401]);
      if (route.auth === 'admin') {
        const res = await s.app.inject({ method: route.method, url, headers: { authorization: cast.tokens.owner } });
        expect([route.url, res.statusCode, res.json().message]).toEqual([route.url, 403, 'Administrators only']);
      }
    }
  });

  it('applies the resource roles on every guarded route', async () => {
    const guarded = s.routes.filter((r) => r.resource);
    expect(guarded.length).toBeGreaterThanOrEqual(50);
    const failures: string[] = [];
    for (const route of guarded) {
      const guard = route.resource!;
      const type: ResourceType = typeof guard.type === 'string' ? guard.type : 'map';
      const label = RESOURCE_LABELS[type];
      for (const who of WHO) {
        const id = await fixture(type);
        const values: Record<string, string> = {
          [guard.param]: id,
          datasetId: await publicFixture('dataset'),
          assetId: await publicFixture('map-asset'),
          // The history calls' version numbers (#51): a number, so the call reaches its guard.
          n: '1',
          a: '1',
          b: '1',
        };
        if (typeof guard.type !== 'string') values[guard.type.param] = type;
        const url = route.url.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? randomUUID());
        const res = await call(route, who, url);
        const message = res.headers['content-type']?.includes('json') ? (res.json() as { message?: string }).message : undefined;
        const deniedAsMissing = res.statusCode === 404 && message === `${label} not found`;
        const deniedAsForbidden = res.statusCode === 403 && message?.startsWith('You do not have permission');
        let expected: string;
        if (who === 'anonymous') expected = '401';
        else if (ACCESS_OF[who] === 'none') expected = 'missing';
        else expected = can(ACCESS_OF[who], guard.action) ? 'allowed' : 'forbidden';
        const got = res.statusCode === 401 ? '401' : deniedAsMissing ? 'missing' : deniedAsForbidden ? 'forbidden' : res.statusCode >= 500 ? `error ${res.statusCode}` : 'allowed';
        if (got !== expected) failures.push(`${route.method} ${route.url} as ${who}: expected ${expected}, got ${got} (${res.statusCode} ${message ?? ''})`);
      }
    }
    expect(failures).toEqual([]);
    // Every guarded route as every member of the cast, one after another: 50 s with a mutation run and a CI run beside
    // it on two cores (2026-11-27, 130 routes), past the 60 s default once. It grows with each route.
  }, 240_000);
});
