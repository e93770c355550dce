import { z } from 'zod';
import {
  Id,
  QueryBool,
  RecordCreate,
  RecordUpdate,
  ShareBody,
  notFound,
  type RecordCollection,
  type ResourceType,
  TAB_HEADER,
  StudioRecord,
  itemOf,
} from '@studio/schema';
import { defineRoute, requireCaller, type RouteDef, type RouteContext } from '../http/route';
import { RESOURCE_LABELS } from '../services/access';
import { createRecord, deleteRecord, listRoutes, recordItem, saveRecord, tabOf, thumbnailRoutes } from '../http/record-answers';

type Ctx = RouteContext<unknown, unknown, unknown>;

const IdParam = z.object({ id: Id });
const RecordQuery = z.object({ isAdmin: QueryBool.optional(), acquireLock: QueryBool.optional() });
/** takeOver=true: take the edit lock the caller holds in another tab or device (the user chose to edit here). */
const GetQuery = RecordQuery.extend({ takeOver: QueryBool.optional() });

/** What the calls answering one record declare: the record (open: a kind adds its own fields beside it). */
const recordAnswer = itemOf(StudioRecord);

/** Spec row ids of one record collection, in the order of analytics-and-admin §7. */
export interface CollectionSpecIds {
  list: string; org: string; shared: string; samples: string; get: string; create: string; update?: string;
  thumbPut: string; thumbPost: string; clone: string; del: string; share: string;
  dsAdd: string; dsDel: string; assetAdd: string; assetDel: string;
}

/** The whole record machinery of one collection (maps, insights, dashboards, workbooks). */
export function recordCollectionRoutes(collection: RecordCollection, type: ResourceType, ids: CollectionSpecIds): RouteDef[] {
  const base = `/v1/${collection}`;
  const tag = collection;
  const label = RESOURCE_LABELS[type];
  const guard = (action: 'read' | 'write' | 'delete' | 'copy' | 'share') => ({ type, param: 'id', action }) as const;
  const linkRoute = (linkType: 'dataset' | 'map-asset', segment: string, param: string, add: string, del: string): RouteDef[] =>
    (['POST', 'DELETE'] as const).map((method) =>
      defineRoute({
        spec: [method === 'POST' ? add : del],
        method,
        url: `${base}/{id}/${segment}/{${param}}`,
        response: recordAnswer,
        summary: `${method === 'POST' ? 'Attach' : 'Detach'} a ${RESOURCE_LABELS[linkType].toLowerCase()}`,
        tag,
        auth: 'user',
        params: z.object({ id: Id, [param]: Id }),
        resource: guard('write'),
        handler: async (ctx) => {
          const caller = requireCaller(ctx);
          const linkedId = (ctx.params as Record<string, string>)[param]!;
          await ctx.services.records.assertNotLockedByOther(caller, ctx.resource!);
          if (method === 'POST') {
            // Attaching needs read access to what is attached.
            await ctx.services.access.guard(caller, linkType, linkedId, 'read', ctx.adminMode);
            await ctx.services.records.link(ctx.resource!.id, linkedId);
          } else if (!(await ctx.services.records.unlink(ctx.resource!.id, linkedId))) {
            throw notFound(`${RESOURCE_LABELS[linkType]} is not attached`);
          }
          await ctx.services.audit.record(caller, `${type}.${method === 'POST' ? 'attach' : 'detach'}`, type, ctx.resource!.id, { [param]: linkedId });
          return recordItem(ctx.services, (await ctx.services.records.get(ctx.resource!.id))!, ctx);
        },
      }),
    );

  return [
    ...listRoutes(base, type, tag, { own: ids.list, organization: ids.org, shared: ids.shared, samples: ids.samples }),
    defineRoute({
      spec: [ids.get],
      method: 'GET',
      url: `${base}/{id}`,
      response: recordAnswer,
      summary: `One ${label.toLowerCase()}; acquireLock=true takes the edit lock when free (held by the tab of the ${TAB_HEADER} header), takeOver=true also from the caller's other tab or device`,
      tag,
      auth: 'user',
      params: IdParam,
      query: GetQuery,
      resource: guard('read'),
      handler: async (ctx) => {
        let row = ctx.resource!;
        const caller = requireCaller(ctx);
        if (ctx.query.acquireLock && ['editor', 'owner', 'admin'].includes(ctx.access)) {
          // Taking the edit lock is a write (a GET runs in no unit of work of its own): it and its audit record commit together.
          row = await ctx.services.units.run(async () => {
            const locked = await ctx.services.records.acquireLock(caller, row, { tabId: tabOf(ctx as RouteContext<unknown, unknown, unknown>), takeOver: ctx.query.takeOver });
            if (locked.lock_owner_id === caller.user.id) await ctx.services.audit.record(caller, `${type}.lock`, type, row.id, { expiresAt: locked.lock_expires_at });
            return locked;
          });
        }
        return recordItem(ctx.services, row, ctx);
      },
    }),
    defineRoute({
      spec: [ids.create],
      method: 'POST',
      url: base,
      response: recordAnswer,
      summary: `Create a ${label.toLowerCase()} (the first save)`,
      tag,
      auth: 'user',
      query: RecordQuery,
      body: RecordCreate,
      status: 201,
      handler: async (ctx) => {
        const row = await createRecord(ctx as Ctx, type, ctx.body, { acquireLock: ctx.query.acquireLock, tabId: tabOf(ctx as Ctx) });
        return recordItem(ctx.services, row, ctx);
      },
    }),
    defineRoute({
      spec: ids.update ? [ids.update] : [],
      method: 'PUT',
      url: `${base}/{id}`,
      response: recordAnswer,
      summary: `Save a ${label.toLowerCase()} (later saves); refused while another user holds the lock`,
      tag,
      auth: 'user',
      params: IdParam,
      query: RecordQuery,
      body: RecordUpdate,
      resource: guard('write'),
      handler: async (ctx) => {
        const row = await saveRecord(ctx as Ctx, type, ctx.resource!, ctx.body, { acquireLock: ctx.query.acquireLock, tabId: tabOf(ctx as Ctx) });
        return recordItem(ctx.services, row, ctx);
      },
    }),
    ...thumbnailRoutes(type, base, tag, [ids.thumbPut, ids.thumbPost]),
    defineRoute({
      spec: [ids.clone],
      method: 'POST',
      url: `${base}/{id}/clone`,
      response: recordAnswer,
      summary: `Copy a ${label.toLowerCase()} into a new one owned by the caller`,
      tag,
      auth: 'user',
      params: IdParam,
      resource: guard('copy'),
      status: 201,
      handler: async (ctx) => {
        const caller = requireCaller(ctx);
        await ctx.services.quota.assertCanCreate(caller, type);
        const row = await ctx.services.records.clone(caller, ctx.resource!);
        await ctx.services.audit.record(caller, `${type}.clone`, type, row.id, { from: ctx.resource!.id });
        return recordItem(ctx.services, row, ctx);
      },
    }),
    defineRoute({
      spec: [ids.del],
      method: 'DELETE',
      url: `${base}/{id}`,
      summary: `Delete a ${label.toLowerCase()}`,
      tag,
      auth: 'user',
      params: IdParam,
      resource: guard('delete'),
      status: 204,
      handler: async (ctx) => deleteRecord(ctx as Ctx, type, ctx.resource!),
    }),
    defineRoute({
      spec: [ids.share],
      method: 'POST',
      url: `${base}/{id}/share`,
      response: recordAnswer,
      summary: 'Share with users, organizations or emails, and set visibility',
      tag,
      auth: 'user',
      params: IdParam,
      body: ShareBody,
      resource: guard('share'),
      handler: async (ctx) => {
        await ctx.services.access.assertVisibleSubjects(ctx.caller, {
          userIds: ctx.body.users.map((u) => u.userId),
          organizationIds: ctx.body.organizations.map((o) => o.organizationId),
        });
        await ctx.services.sharing.applyShare(ctx.resource!, ctx.body);
        await ctx.services.audit.record(ctx.caller, `${type}.share`, type, ctx.resource!.id, ctx.body);
        return recordItem(ctx.services, (await ctx.services.records.get(ctx.resource!.id))!, ctx);
      },
    }),
    ...linkRoute('dataset', 'datasets', 'datasetId', ids.dsAdd, ids.dsDel),
    ...linkRoute('map-asset', 'map-assets', 'assetId', ids.assetAdd, ids.assetDel),
  ];
}

export const recordRoutes: RouteDef[] = [
  ...recordCollectionRoutes('maps', 'map', {
    list: 'CAT-008', org: 'CAT-009', shared: 'CAT-010', samples: 'CAT-011', get: 'CAT-012', create: 'CAT-013', update: 'CAT-001',
    thumbPut: 'CAT-014', thumbPost: 'CAT-015', clone: 'CAT-016', del: 'CAT-017', share: 'CAT-018',
    dsAdd: 'CAT-019', dsDel: 'CAT-020', assetAdd: 'CAT-021', assetDel: 'CAT-022',
  }),
  ...recordCollectionRoutes('insights', 'insight', {
    list: 'CAT-025', org: 'CAT-026', shared: 'CAT-027', samples: 'CAT-028', get: 'CAT-029', create: 'CAT-030', update: 'CAT-002',
    thumbPut: 'CAT-031', thumbPost: 'CAT-032', clone: 'CAT-033', del: 'CAT-034', share: 'CAT-035',
    dsAdd: 'CAT-036', dsDel: 'CAT-037', assetAdd: 'CAT-038', assetDel: 'CAT-039',
  }),
  ...recordCollectionRoutes('workbooks', 'workbook', {
    list: 'CAT-042', org: 'CAT-043', shared: 'CAT-044', samples: 'CAT-045', get: 'CAT-046', create: 'CAT-047', update: 'CAT-048',
    thumbPut: 'CAT-049', thumbPost: 'CAT-050', clone: 'CAT-051', del: 'CAT-052', share: 'CAT-053',
    dsAdd: 'CAT-054', dsDel: 'CAT-055', assetAdd: 'CAT-056', assetDel: 'CAT-057',
  }),
  ...recordCollectionRoutes('dashboards', 'insight', {
    list: 'CAT-060', org: 'CAT-061', shared: 'CAT-062', samples: 'CAT-063', get: 'CAT-064', create: 'CAT-065', update: 'CAT-066',
    thumbPut: 'CAT-067', thumbPost: 'CAT-068', clone: 'CAT-069', del: 'CAT-070', share: 'CAT-071',
    dsAdd: 'CAT-072', dsDel: 'CAT-073', assetAdd: 'CAT-074', assetDel: 'CAT-075',
  }),
];

