import type { z } from 'zod';
import { SchemaParams, badInput, gatewayCalls, isDatabaseConnectionType } from '@studio/schema';
import { driverFor, storageDriverFor } from '@studio/warehouses';
import { defineRoute, requireCaller, type RouteContext, type RouteDef } from '../http/route';
import type { ResourceRow } from '../services/records';
import { assertDatabaseConnection, storedConnection } from '../services/connections';

/**
 * Data gateway (catalog §7): test a connection (warehouse or storage), browse a warehouse's schemas,
 * through the driver of its kind (@studio/warehouses); schemas of storage kinds answer 'Not a database
 * connection' (their objects are listed by routes/storage.ts).
 */

async function browse(ctx: RouteContext<z.infer<typeof SchemaParams>, unknown, unknown>) {
  const row = ctx.resource! as ResourceRow;
  assertDatabaseConnection(row);
  const parts = [...(ctx.params.path?.split('/') ?? []), ...(ctx.params.table ? [ctx.params.table] : [])].filter(Boolean);
  if (parts.length > 2) throw badInput('A schema path is schema or schema/table');
  const { driver, target } = ctx.services.executions.driverOf(row);
  return { items: await driver.browse(target, parts) };
}

export const gatewayRoutes: RouteDef[] = [
  defineRoute(gatewayCalls.testConnection, {
    transaction: false,
    rateLimit: 'testConnection',
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
  ...[gatewayCalls.schemas, gatewayCalls.schemaPath, gatewayCalls.schemaTable].map((call) => defineRoute(call, { handler: browse })),
];
