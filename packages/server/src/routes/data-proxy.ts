import { z } from 'zod';
import { Id, StudioError, badInput } from '@studio/schema';
import { kineticaCall, kineticaTarget } from '@studio/warehouses';
import { defineRoute, requireCaller, type RouteDef } from '../http/route';
import { storedConnection } from '../services/connections';

/**
 * The data proxy (catalog §7, GTW-001/005..011): the map builder's Kinetica layer calls its warehouse
 * through the studio, which adds the connection's credentials and the network rule. Only the endpoints
 * the documents name pass; those that change the warehouse (create, clear, drop) need edit rights on the
 * connection, the others read rights, as running a query does. Kinetica's envelope is answered as it
 * came ({status, message, data_type, data_str}), its ERROR status included: the caller reads it.
 */

/** Endpoint → the access it needs, and the options Kinetica is sent unless the caller says otherwise. */
const KINETICA_ENDPOINTS: Record<string, { action: 'read' | 'write'; defaults?: Record<string, string> }> = {
  // catalog §9: no children, sizes and cached sizes on, column info on.
  '/show/table': { action: 'read', defaults: { show_children: 'false', get_sizes: 'true', get_cached_sizes: 'true', get_column_info: 'true' } },
  '/execute/sql': { action: 'read' },
  '/get/records': { action: 'read' },
  '/show/resourcegroups': { action: 'read' },
  '/create/table': { action: 'write' },
  '/clear/table': { action: 'write' },
  '/drop/schema': { action: 'write' },
};

const ProxyQuery = z.object({
  type: z.literal('kinetica', { error: 'The data proxy serves kinetica connections' }),
  target: z.string().refine((t) => t in KINETICA_ENDPOINTS, { error: `target must be one of ${Object.keys(KINETICA_ENDPOINTS).join(', ')}` }),
  connectionId: Id,
});

export const dataProxyRoutes: RouteDef[] = [
  defineRoute({
    spec: ['GTW-001', 'GTW-005', 'GTW-006', 'GTW-007', 'GTW-008', 'GTW-009', 'GTW-010', 'GTW-011'],
    method: 'POST',
    url: '/v1/data-proxy',
    summary: "Call a Kinetica connection's REST endpoint (/show/table, /execute/sql, /get/records, /show/resourcegroups; /create/table, /clear/table, /drop/schema for its editors) with its credentials; answers Kinetica's envelope",
    tag: 'gateway',
    auth: 'user',
    transaction: false,
    query: ProxyQuery,
    body: z.record(z.string(), z.unknown()),
    // Kinetica's envelope as it came: status OK, or ERROR with the message (answered 422).
    response: z.object({ status: z.enum(['OK', 'ERROR']), message: z.string(), data_type: z.string().optional(), data: z.unknown(), data_str: z.string().optional() }),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const endpoint = KINETICA_ENDPOINTS[ctx.query.target]!;
      const resource = endpoint.action === 'read' ? await ctx.services.access.guardRun(caller, ctx.query.connectionId, ctx.adminMode) : (await ctx.services.access.guard(caller, 'data-connection', ctx.query.connectionId, endpoint.action, ctx.adminMode)).resource;
      if (storedConnection(resource)?.type !== 'kinetica') throw badInput('The data proxy serves kinetica connections');
      const { target } = ctx.services.executions.driverOf(resource);
      const k = await kineticaTarget(target);
      const body = endpoint.defaults ? { ...ctx.body, options: { ...endpoint.defaults, ...((ctx.body.options as Record<string, string> | undefined) ?? {}) } } : ctx.body;
      await ctx.services.audit.record(caller, 'data-connection.proxy', 'data-connection', resource.id, { target: ctx.query.target });
      const { httpStatus, envelope } = await kineticaCall(k, ctx.query.target, body);
      if (httpStatus >= 500) throw new StudioError(502, envelope.message || `Kinetica answered ${httpStatus}`);
      ctx.reply.code(httpStatus >= 400 ? 422 : 200);
      return envelope;
    },
  }),
];
