import { z } from 'zod';
import { ConnectionTestResult, DataConnectionBody, Id, SchemaBrowseItem, badInput, isDatabaseConnectionType, itemOf } from '@studio/schema';
import { driverFor, storageDriverFor } from '@studio/warehouses';
import { defineRoute, requireCaller, type RouteContext, type RouteDef } from '../http/route';
import type { ResourceRow } from '../services/records';
import { assertDatabaseConnection, storedConnection } from '../services/connections';

/**
 * Data gateway (catalog §7): test a connection (warehouse or storage), browse a warehouse's schemas,
 * through the driver of its kind (@studio/warehouses); schemas of storage kinds answer 'Not a database
 * connection' (their objects are listed by routes/storage.ts).
 */

const TAG = 'data-queries';

/** An unsaved connection body needs no name to be tested. */
const TestBody = z.preprocess(
  (v) => (v && typeof v === 'object' && !Array.isArray(v) && !('connectionId' in v) && !('name' in v) ? { ...v, name: 'unsaved' } : v),
  z.union([z.object({ connectionId: Id }).strict(), DataConnectionBody]),
);

const SchemaParams = z.object({ connection: Id, path: z.string().min(1).max(2000).optional(), table: z.string().min(1).max(1000).optional() });

async function browse(ctx: RouteContext<z.infer<typeof SchemaParams>, unknown, unknown>) {
  const row = ctx.resource! as ResourceRow;
  assertDatabaseConnection(row);
  const parts = [...(ctx.params.path?.split('/') ?? []), ...(ctx.params.table ? [ctx.params.table] : [])].filter(Boolean);
  if (parts.length > 2) throw badInput('A schema path is schema or schema/table');
  const { driver, target } = ctx.services.executions.driverOf(row);
  return { items: await driver.browse(target, parts) };
}

const schemaRoute = (url: string, spec: string | null, summary: string) =>
  defineRoute({
    spec: spec ? [spec] : [],
    method: 'GET',
    url,
    summary,
    tag: TAG,
    auth: 'user',
    params: SchemaParams,
    query: z.object({ isAdmin: z.string().optional() }),
    resource: { type: 'data-connection', param: 'connection', action: 'read' },
    response: z.object({ items: z.array(SchemaBrowseItem) }),
    handler: browse,
  });

export const gatewayRoutes: RouteDef[] = [
  defineRoute({
    spec: ['GTW-004'],
    method: 'POST',
    url: '/v1/test-connection',
    summary: 'Connect to a saved ({connectionId}) or unsaved connection (5 s timeout): {ok, serverVersion}, or 422 with the driver message',
    tag: 'gateway',
    auth: 'user',
    transaction: false,
    body: TestBody,
    rateLimit: 'testConnection',
    response: itemOf(ConnectionTestResult),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const body = ctx.body;
      if ('connectionId' in body) {
        const { resource } = await ctx.services.access.guard(caller, 'data-connection', body.connectionId, 'read', ctx.adminMode);
        const { driver, target } = isDatabaseConnectionType(storedConnection(resource)?.type ?? '') ? ctx.services.executions.driverOf(resource) : ctx.services.executions.storageOf(resource);
        return { item: await driver.test(target) };
      }
      const { type, name: _n, description: _d, parentId: _p, credentials, runForEditorsOnly: _r, ...config } = body;
      const driver = isDatabaseConnectionType(type) ? driverFor(type) : storageDriverFor(type);
      return { item: await driver.test(ctx.services.executions.targetOf(type, config, credentials ?? null)) };
    },
  }),
  schemaRoute('/v1/data-queries/schema/{connection}', 'DQ-016', 'Schemas of a database connection (its information_schema)'),
  schemaRoute('/v1/data-queries/schema/{connection}/{path}', 'DQ-017', 'Tables of a schema (path = schema) or columns of a table (path = schema/table, slash encoded)'),
  schemaRoute('/v1/data-queries/schema/{connection}/{path}/{table}', null, 'Columns of a table: schema/table written as two path segments'),
];
