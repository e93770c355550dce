import { z } from 'zod';
import { DataConnectionBody, Id, badInput, isDatabaseConnectionType } from '@studio/schema';
import { defineRoute, requireCaller, type RouteContext, type RouteDef } from '../http/route';
import type { ResourceRow } from '../services/records';
import { assertDatabaseConnection, storedConnection } from '../services/connections';
import { PG_WIRE_TYPES, browsePostgres, isPgWireType, postgresTarget, testPostgres, type PgWireType } from '../services/warehouse-postgres';

/**
 * Data gateway (catalog §7) for warehouse connections: test a connection, browse its schemas. PostgreSQL
 * and Redshift (its wire protocol, through `pg`) have a driver here; other warehouse kinds answer a 422
 * naming the kind, storage kinds 'Not a database connection'.
 */

const TAG = 'data-queries';

function assertPostgres(type: string): asserts type is PgWireType {
  if (!isDatabaseConnectionType(type)) throw badInput('Not a database connection');
  if (!isPgWireType(type)) throw badInput(`Connections of type ${type} are not supported by this server`, `Connections of types ${PG_WIRE_TYPES.join(', ')} can be tested, browsed and queried here`);
}

/** An unsaved connection body needs no name to be tested. */
const TestBody = z.preprocess(
  (v) => (v && typeof v === 'object' && !Array.isArray(v) && !('connectionId' in v) && !('name' in v) ? { ...v, name: 'unsaved' } : v),
  z.union([z.object({ connectionId: Id }).strict(), DataConnectionBody]),
);

const SchemaParams = z.object({ connection: Id, path: z.string().min(1).max(2000).optional(), table: z.string().min(1).max(1000).optional() });

async function browse(ctx: RouteContext<z.infer<typeof SchemaParams>, unknown, unknown>) {
  const row = ctx.resource! as ResourceRow;
  assertDatabaseConnection(row);
  assertPostgres(storedConnection(row)!.type);
  const parts = [...(ctx.params.path?.split('/') ?? []), ...(ctx.params.table ? [ctx.params.table] : [])].filter(Boolean);
  if (parts.length > 2) throw badInput('A schema path is schema or schema/table');
  return { items: await browsePostgres(ctx.services.executions.postgresTargetOf(row), parts[0], parts[1]) };
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
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const body = ctx.body;
      if ('connectionId' in body) {
        const { resource } = await ctx.services.access.guard(caller, 'data-connection', body.connectionId, 'read', ctx.adminMode);
        assertDatabaseConnection(resource);
        assertPostgres(storedConnection(resource)!.type);
        return { item: await testPostgres(ctx.services.executions.postgresTargetOf(resource)) };
      }
      const type = body.type;
      assertPostgres(type);
      const { type: _t, name: _n, description: _d, parentId: _p, credentials, ...config } = body;
      return { item: await testPostgres(postgresTarget(config, credentials?.password, ctx.services.reach, type)) };
    },
  }),
  schemaRoute('/v1/data-queries/schema/{connection}', 'DQ-016', 'Schemas of a PostgreSQL connection (information_schema)'),
  schemaRoute('/v1/data-queries/schema/{connection}/{path}', 'DQ-017', 'Tables of a schema (path = schema) or columns of a table (path = schema/table, slash encoded)'),
  schemaRoute('/v1/data-queries/schema/{connection}/{path}/{table}', null, 'Columns of a table: schema/table written as two path segments'),
];
