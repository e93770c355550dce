import { z } from 'zod';
import { Id, KeplerFile, StudioRecord, downloadFileBase, itemOf } from '@studio/schema';
import { defineRoute, requireCaller, type RouteContext, type RouteDef } from '../http/route';
import { exportKeplerMap, importKeplerDatasets } from '../services/kepler-files';
import { createManaged } from '../http/dataset-answers';
import { createRecord, recordItem } from '../http/record-answers';

type Ctx = RouteContext<unknown, unknown, unknown>;

/** kepler.gl's export files: a map and its datasets in, the same format out (docs/decisions.md "kepler.gl files"). */
export const keplerFileRoutes: RouteDef[] = [
  defineRoute({
    method: 'POST',
    url: '/v1/maps/import/kepler',
    summary: "Import a kepler.gl map file ({datasets, config, info}, as kepler.gl exports it; configs v0 and v1): each dataset becomes a managed dataset, the config's dataset ids are bound to them, and the map is created with that config",
    tag: 'maps',
    auth: 'user',
    body: KeplerFile,
    status: 201,
    // Ingestion runs outside a unit of work (docs/architecture.md); each record and its audit entry commit together.
    transaction: false,
    response: itemOf(StudioRecord),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      await ctx.services.quota.assertCanCreate(caller, 'map');
      const { rows, config } = await importKeplerDatasets(ctx.services, caller, ctx.body, async (name) => {
        await ctx.services.quota.assertCanCreate(caller, 'dataset');
        return createManaged(ctx.services, caller, { name, description: 'Imported from a kepler.gl file' }, { via: 'kepler.gl' });
      });
      const info = ctx.body.info;
      const map = await ctx.services.units.run(() =>
        createRecord(ctx as Ctx, 'map', { name: info?.title?.trim() || 'Imported kepler.gl map', description: info?.description ?? '', importSource: 'kepler.gl', latestState: config, datasets: rows.map((r) => r.id) }, {}, { via: 'kepler.gl' }),
      );
      return recordItem(ctx.services, map, ctx);
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/maps/{id}/export/kepler',
    summary: "The map as a kepler.gl file: its kepler config and the rows of each dataset it uses that the caller reads (datasets served as tiles are left out); kepler.gl's own loader opens it",
    tag: 'maps',
    auth: 'user',
    params: z.object({ id: Id }),
    resource: { type: 'map', param: 'id', action: 'read' },
    // Sent as a download (Content-Disposition), in the format kepler.gl saves.
    response: KeplerFile,
    handler: async (ctx) => {
      const file = await exportKeplerMap(ctx.services, requireCaller(ctx), ctx.resource!, ctx.adminMode);
      ctx.reply.header('content-disposition', `attachment; filename="${downloadFileBase(ctx.resource!.name)}.kepler.json"`);
      return file;
    },
  }),
];
