import {
  HISTORY_COLLECTIONS,
  historyAdminCalls,
  RestoreBody,
  StudioRecord,
  VersionDetail,
  VersionDiff,
  VersionDiffParams,
  VersionList,
  VersionParams,
  VersionSummary,
  Id,
  itemOf,
  type HistoryCollection,
  type ResourceType,
} from '@studio/schema';
import { z } from 'zod';
import { defineRoute, requireCaller, type RouteDef } from '../http/route';
import { recordItem, tabOf } from '../http/record-answers';

const TYPE_OF: Record<HistoryCollection, ResourceType> = { maps: 'map', insights: 'insight', workbooks: 'workbook' };

/**
 * History (#51): a map's, dashboard's or workbook's versions, listed, opened, compared, restored (as a
 * new version) and duplicated from. Access follows the record's: reading it lists and opens versions,
 * restoring needs edit (and no other user's edit lock), duplicating needs copy.
 */
function collectionHistoryRoutes(collection: HistoryCollection): RouteDef[] {
  const type = TYPE_OF[collection];
  const base = `/v1/${collection}/{id}/versions`;
  const guard = (action: 'read' | 'write' | 'copy') => ({ type, param: 'id', action }) as const;
  return [
    defineRoute({
      method: 'GET',
      url: base,
      summary: 'The versions of a record, newest first',
      tag: 'history',
      auth: 'user',
      params: z.object({ id: Id }),
      resource: guard('read'),
      response: VersionList,
      handler: async (ctx) => ({ items: await ctx.services.history.list(ctx.resource!.id) }),
    }),
    defineRoute({
      method: 'GET',
      url: `${base}/{n}`,
      summary: 'One version: its state as saved then, upgraded as a stored state is',
      tag: 'history',
      auth: 'user',
      params: VersionParams,
      resource: guard('read'),
      response: VersionDetail,
      handler: async (ctx) => ctx.services.history.open(collection, ctx.resource!.id, ctx.params.n),
    }),
    defineRoute({
      method: 'GET',
      url: `${base}/{a}/diff/{b}`,
      summary: 'What changed from version a to version b, in the terms of the thing (layers, widgets, cells …)',
      tag: 'history',
      auth: 'user',
      params: VersionDiffParams,
      resource: guard('read'),
      response: VersionDiff,
      handler: async (ctx) => ctx.services.history.diff(collection, ctx.resource!.id, ctx.params.a, ctx.params.b),
    }),
    defineRoute({
      method: 'POST',
      url: `${base}/{n}/restore`,
      summary: "Restore a version as a new version (never rewriting history); refused while another user holds the edit lock",
      tag: 'history',
      auth: 'user',
      params: VersionParams,
      body: RestoreBody,
      resource: guard('write'),
      response: VersionSummary,
      handler: async (ctx) => {
        const caller = requireCaller(ctx);
        const row = ctx.resource!;
        const versions = ctx.services.history;
        const state = await versions.stateOf(collection, row.id, ctx.params.n);
        await ctx.services.records.update(caller, row, { latestState: state, version: { source: 'restore', restoredFrom: ctx.params.n, message: ctx.body.message ?? null } }, { adminMode: ctx.adminMode, tabId: tabOf(ctx) });
        await ctx.services.audit.record(caller, `${type}.restore`, type, row.id, { version: ctx.params.n });
        // Restoring the state the record already has makes no version: the answer is the latest, which equals it.
        return versions.summary(row.id, (await ctx.services.versions.latestVersion(row.id))!.n);
      },
    }),
    defineRoute({
      method: 'POST',
      url: `${base}/{n}/duplicate`,
      summary: 'A new record owned by the caller, from this version',
      tag: 'history',
      auth: 'user',
      params: VersionParams,
      resource: guard('copy'),
      response: itemOf(StudioRecord),
      status: 201,
      handler: async (ctx) => {
        const caller = requireCaller(ctx);
        await ctx.services.quota.assertCanCreate(caller, type);
        const state = await ctx.services.history.stateOf(collection, ctx.resource!.id, ctx.params.n);
        const copy = await ctx.services.records.clone(caller, { ...ctx.resource!, latest_state: state });
        await ctx.services.audit.record(caller, `${type}.clone`, type, copy.id, { from: ctx.resource!.id, version: ctx.params.n });
        return recordItem(ctx.services, copy, ctx);
      },
    }),
  ];
}

/** Administrators: the storage versions use, the retention the daily job thins by, and a thinning pass now. */
const adminHistoryRoutes: RouteDef[] = [
  defineRoute(historyAdminCalls.storage, { handler: async (ctx) => ctx.services.history.bytesUsed() }),
  defineRoute(historyAdminCalls.retention, { handler: async (ctx) => ctx.services.versions.retentionSetting() }),
  defineRoute(historyAdminCalls.setRetention, {
    handler: async (ctx) => {
      const setting = await ctx.services.versions.setRetention(ctx.body);
      await ctx.services.audit.record(requireCaller(ctx), 'history.retention', 'map', null, ctx.body);
      return setting;
    },
  }),
  defineRoute(historyAdminCalls.thin, {
    handler: async (ctx) => {
      const now = new Date();
      const removed = await ctx.services.versions.thinAllVersions(now, ctx.body);
      const snapshots = await ctx.services.snapshots.removeExpired(now, ctx.body.snapshotDays);
      await ctx.services.audit.record(requireCaller(ctx), 'history.thin', 'map', null, { ...ctx.body, removed, snapshots });
      return { removed, storage: await ctx.services.history.bytesUsed() };
    },
  }),
];

export const historyRoutes: RouteDef[] = [...HISTORY_COLLECTIONS.flatMap(collectionHistoryRoutes), ...adminHistoryRoutes];
