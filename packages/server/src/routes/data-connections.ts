import { z } from 'zod';
import { ConnectionListQuery, DataConnectionBody, Id, StudioError, StudioRecord, isDatabaseConnectionType, itemsOf, notFound } from '@studio/schema';
import { defineRoute, requireCaller, type RouteContext, type RouteDef } from '../http/route';
import type { ResourceRow } from '../services/records';
import { assertDatabaseConnection, storedConnection } from '../services/connections';
import { kindRoutes, readableItems, withFields, type Kind } from '../http/kind-routes';

const BASE = '/v1/data-connections';

function fields(row: ResourceRow) {
  const c = storedConnection(row);
  if (!c) return null;
  return { connectionType: c.type, config: c.config, hasCredentials: Boolean(c.credentials), parentId: c.parentId ?? null, isDatabase: isDatabaseConnectionType(c.type), runForEditorsOnly: c.runForEditorsOnly ?? false };
}

const kind: Kind<typeof DataConnectionBody, typeof DataConnectionBody> = {
  type: 'data-connection',
  base: BASE,
  tag: 'data-connections',
  spec: { list: 'CAT-090', org: 'CAT-091', get: 'CAT-092', create: 'CAT-095', update: 'CAT-096', del: 'CAT-097' },
  create: DataConnectionBody,
  update: DataConnectionBody,
  unparseable: 'Could not parse data connection',
  fields,
  listQuery: ConnectionListQuery,
  listAttrs: (q) => (Array.isArray(q.types) ? { type: q.types as string[] } : undefined),
  toAttrs: async ({ services, caller, adminMode }, body, row) => {
    const { name: _n, description: _d, type, parentId, credentials, runForEditorsOnly, ...config } = body;
    if (parentId) {
      // A parent is named in the body: the caller must be able to read it, as if it were in the path
      // (one message for unknown and unreadable ones).
      await services.access.guardAll(caller, 'data-connection', [parentId], 'read', adminMode).catch((e: unknown) => {
        throw e instanceof StudioError && e.status === 404 ? notFound('Parent connection not found') : e;
      });
      await services.connections.assertParent(parentId, row?.id);
    }
    // Credentials are sealed at rest and never answered (hasCredentials says whether there are any).
    const sealed = credentials === undefined ? {} : { credentials: credentials && services.secrets.encrypt(JSON.stringify(credentials)) };
    const kept = row ? storedConnection(row)?.runForEditorsOnly : undefined;
    return { type, config, parentId: parentId ?? null, runForEditorsOnly: runForEditorsOnly ?? kept ?? false, ...sealed };
  },
};

const IdParam = z.object({ id: Id });
const ReadQuery = z.object({ isAdmin: z.string().optional() });

/** Records pointing at this connection through an attrs key, as the caller may read them. */
async function pointingAt(ctx: RouteContext<{ id: string }, unknown, unknown>, type: 'dataset' | 'data-connection', keys: string[]) {
  return readableItems(ctx, await ctx.services.records.referencing(type, keys, ctx.params.id));
}

export const dataConnectionRoutes: RouteDef[] = [
  ...kindRoutes(kind),
  defineRoute({
    spec: ['CAT-093'],
    method: 'GET',
    url: `${BASE}/{id}/datasets`,
    summary: 'Datasets read through this connection (their dataConnectionId), as the caller may see them',
    tag: 'data-connections',
    auth: 'user',
    params: IdParam,
    query: ReadQuery,
    resource: { type: 'data-connection', param: 'id', action: 'read' },
    response: itemsOf(StudioRecord),
    handler: async (ctx) => {
      requireCaller(ctx);
      return pointingAt(ctx, 'dataset', ['connectionId', 'dataConnectionId']);
    },
  }),
  defineRoute({
    spec: ['CAT-094'],
    method: 'GET',
    url: `${BASE}/{id}/connections`,
    summary: "The connection's child connections (schemas); storage connections have none: 'Not a database connection'",
    tag: 'data-connections',
    auth: 'user',
    params: IdParam,
    query: ReadQuery,
    resource: { type: 'data-connection', param: 'id', action: 'read' },
    response: itemsOf(StudioRecord),
    handler: async (ctx) => {
      assertDatabaseConnection(ctx.resource!);
      return withFields(ctx.services, kind, await pointingAt(ctx, 'data-connection', ['parentId']));
    },
  }),
];
