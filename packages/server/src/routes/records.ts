import { z } from 'zod';
import {
  Id,
  ListFilters,
  Paging,
  QueryBool,
  RecordCreate,
  RecordUpdate,
  ShareBody,
  StudioError,
  ThumbnailRequest,
  IMAGE_TYPES,
  isImageType,
  badInput,
  notFound,
  type RecordCollection,
  type ResourceType,
  parseDashboardState,
  parseWorkbookState,
  type DashboardState,
  TAB_HEADER,
  THUMBNAIL_MAX_BYTES,
  StudioRecord,
  itemOf,
  itemsOf,
  UploadPolicy,
  parseIfMatchVersion,
} from '@studio/schema';
import { checkAnswer, defineRoute, readJsonBody, requireCaller, type RouteDef, type RouteContext } from '../http/route';
import type { Services } from '../services';
import type { ListScope, ResourceRow } from '../services/records';
import { assertCanCreate } from '../services/quota';
import { applyShare } from '../services/sharing';
import { RESOURCE_LABELS } from '../services/access';
import { assertMayStoreQueries } from '../services/dashboards/stored-queries';

const IdParam = z.object({ id: Id });
const RecordQuery = z.object({ isAdmin: QueryBool.optional(), acquireLock: QueryBool.optional() });
/** takeOver=true: take the edit lock the caller holds in another tab or device (the user chose to edit here). */
const GetQuery = RecordQuery.extend({ takeOver: QueryBool.optional() });

/** The browser tab a request comes from (its `x-studio-tab` header), which holds edit locks; null from API clients. */
export function tabOf(ctx: RouteContext<unknown, unknown, unknown>): string | null {
  const value = ctx.req.headers[TAB_HEADER];
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string' || !/^[A-Za-z0-9-]{1,64}$/.test(value)) throw badInput(`Invalid ${TAB_HEADER} header`, 'A tab id: 1 to 64 letters, digits and dashes');
  return value;
}
const ListQuery = ListFilters.extend(Paging.shape);

/** One record on the wire with the caller's access, after any write. */
export async function recordItem(services: Services, row: ResourceRow, ctx: Pick<RouteContext<unknown, unknown, unknown>, 'caller' | 'adminMode'>) {
  const access = await services.access.accessOf(ctx.caller, row, ctx.adminMode);
  const [item] = await services.records.toWire([row], () => access);
  return { item: item! };
}

/**
 * Answers a list call through the node's list cache (services/list-cache.ts): per caller and per
 * request (path and query), valid until the next catalog write from any node.
 */
export async function answerList(ctx: RouteContext<unknown, unknown, unknown>, compute: () => Promise<unknown>, declared?: Pick<RouteDef, 'method' | 'url' | 'response'>) {
  // The list is sent as the text the cache keeps: its declared response is checked on the value it was made from.
  const checked = declared && ctx.services.config.checkAnswers ? async () => { const value = await compute(); checkAnswer(declared, value); return value; } : compute;
  const body = await ctx.services.listCache.answer(`${requireCaller(ctx).user.id} ${ctx.req.url}`, checked);
  return ctx.reply.type('application/json; charset=utf-8').send(body);
}

/** What the calls answering one record declare: the record (open: a kind adds its own fields beside it). */
const recordAnswer = itemOf(StudioRecord);

/** The list calls of a collection: own, organization, shared with me, samples. */
export function listRoutes(
  base: string,
  type: ResourceType,
  tag: string,
  specIds: Partial<Record<ListScope, string>>,
  /** A kind with its own filters and wire fields lists through `list` (given the effective scope). */
  custom?: { query: z.ZodObject; list: (ctx: RouteContext<unknown, Record<string, unknown>, unknown>, scope: ListScope) => Promise<unknown>; item?: z.ZodType },
): RouteDef[] {
  const scopes: [string, ListScope, string][] = [
    ['', 'own', `${RESOURCE_LABELS[type]}s the caller owns (administrators with isAdmin=true: all)`],
    ['/for-organization', 'organization', `${RESOURCE_LABELS[type]}s of the caller's organizations`],
    ['/shared-with-user', 'shared', `${RESOURCE_LABELS[type]}s shared with the caller`],
    ['/samples', 'samples', `Sample ${RESOURCE_LABELS[type].toLowerCase()}s`],
  ];
  return scopes
    .filter(([, scope]) => specIds[scope] !== undefined)
    .map(([suffix, scope, summary]) => {
      const declared = { method: 'GET' as const, url: `${base}${suffix}`, response: itemsOf(custom?.item ?? StudioRecord) };
      return defineRoute({
        spec: [specIds[scope]!],
        ...declared,
        method: 'GET',
        summary,
        tag,
        auth: 'user',
        query: custom ? ListQuery.extend(custom.query.shape) : ListQuery,
        handler: async (ctx) => {
          const caller = requireCaller(ctx);
          const effective = scope === 'own' && ctx.adminMode ? 'all' : scope;
          return answerList(
            ctx,
            () =>
              custom
                ? custom.list(ctx as RouteContext<unknown, Record<string, unknown>, unknown>, effective)
                : ctx.services.records.list(caller, type, { ...(ctx.query as z.infer<typeof ListQuery>), scope: effective }),
            declared,
          );
        },
      });
    });
}

/** Reads the body of a thumbnail call: JSON `{contentType}` asks for a policy; an image body is the upload. */
async function thumbnail(ctx: RouteContext<{ id: string }, unknown, unknown>) {
  const caller = requireCaller(ctx);
  const row = ctx.resource!;
  const contentType = String(ctx.req.headers['content-type'] ?? '').split(';')[0]!.trim();
  if (isImageType(contentType)) {
    await ctx.services.records.assertNotLockedByOther(caller, row);
    await storeThumbnail(ctx.services, row, contentType, ctx.req.body as NodeJS.ReadableStream, () => ctx.services.audit.record(caller, 'thumbnail.upload', row.type, row.id));
    return recordItem(ctx.services, (await ctx.services.records.get(row.id))!, ctx);
  }
  const parsed = ThumbnailRequest.safeParse(await readJsonBody(ctx.req.body));
  if (!parsed.success) throw badInput('Unsupported content type', `Thumbnails must be one of ${IMAGE_TYPES.join(', ')}`);
  const policy = ctx.services.policies.issue({ purpose: 'thumbnail', resourceId: row.id, contentType: parsed.data.contentType, maxBytes: THUMBNAIL_MAX_BYTES });
  return { item: policy };
}

/** Stores the image, then points the record at it in one unit of work with the upload's audit record. */
export async function storeThumbnail(services: Services, row: ResourceRow, contentType: string, body: NodeJS.ReadableStream, audit: () => Promise<unknown>): Promise<void> {
  if (!body || typeof (body as NodeJS.ReadableStream).pipe !== 'function') throw badInput('Thumbnail body is missing');
  const key = `thumbnails/${row.id}`;
  await services.blobs.write(key, body, THUMBNAIL_MAX_BYTES);
  await services.units.run(async () => {
    await services.records.setThumbnail(row.id, key, contentType);
    await audit();
  });
}

const readThumbnail = (type: ResourceType, base: string, tag: string) =>
  defineRoute({
    method: 'GET',
    url: `${base}/{id}/thumbnail`,
    summary: 'The thumbnail image',
    tag,
    auth: 'user',
    produces: IMAGE_TYPES,
    params: IdParam,
    resource: { type, param: 'id', action: 'read' },
    handler: async ({ resource, services, reply }) => {
      const bytes = resource!.thumbnail_key ? await services.blobs.read(resource!.thumbnail_key) : null;
      if (!bytes) throw notFound('Thumbnail not found');
      return reply.header('content-type', resource!.thumbnail_type ?? 'image/png').header('cache-control', 'private, max-age=300').send(bytes);
    },
  });

/** PUT and POST /{id}/thumbnail (policy or upload) and GET /{id}/thumbnail of one collection. */
export function thumbnailRoutes(type: ResourceType, base: string, tag: string, [putId, postId]: [string, string]): RouteDef[] {
  return [
    ...(['PUT', 'POST'] as const).map((method) =>
      defineRoute({
        spec: [method === 'PUT' ? putId : postId],
        method,
        url: `${base}/{id}/thumbnail`,
        summary: 'With JSON {contentType}: a signed upload policy for the thumbnail. With an image body: the thumbnail itself.',
        tag,
        auth: 'user',
        params: IdParam,
        rawBody: true,
        // The record with its new thumbnail, or the signed upload policy asked for.
        response: z.union([recordAnswer, itemOf(UploadPolicy)]),
        resource: { type, param: 'id', action: 'write' },
        handler: (ctx) => thumbnail(ctx as RouteContext<{ id: string }, unknown, unknown>),
      }),
    ),
    readThumbnail(type, base, tag),
  ];
}

/** Spec row ids of one record collection, in the order of analytics-and-admin §7. */
export interface CollectionSpecIds {
  list: string; org: string; shared: string; samples: string; get: string; create: string; update?: string;
  thumbPut: string; thumbPost: string; clone: string; del: string; share: string;
  dsAdd: string; dsDel: string; assetAdd: string; assetDel: string;
}

/**
 * A dashboard's saved state is parsed before it is stored: an older version is upgraded, a newer or
 * malformed one answers 422 and nothing is written (the other kinds keep their states opaque here).
 */
/** The saved states the server reads itself, parsed (and brought to their current version) before they are kept: 422 otherwise. */
const STATE_PARSERS: Partial<Record<ResourceType, (stored: unknown) => unknown>> = { insight: parseDashboardState, workbook: parseWorkbookState };

function checkedState<B extends { latestState?: unknown }>(type: ResourceType, body: B): B {
  const parse = STATE_PARSERS[type];
  if (!parse || body.latestState === undefined || body.latestState === null) return body;
  return { ...body, latestState: parse(body.latestState) };
}

type Ctx = RouteContext<unknown, unknown, unknown>;
type LockOptions = { acquireLock?: boolean; tabId?: string | null };

/** The first save of a record: quota, the datasets it names (each readable, 404 otherwise), the record and its audit entry. */
export async function createRecord(ctx: Ctx, type: ResourceType, body: RecordCreate, lock: LockOptions = {}, details: Record<string, unknown> = {}) {
  const caller = requireCaller(ctx);
  await assertCanCreate(ctx.services.db, caller, type);
  await ctx.services.access.guardAll(caller, 'dataset', body.datasets ?? [], 'read', ctx.adminMode);
  const row = await ctx.services.records.create(caller, type, checkedState(type, body), lock);
  await ctx.services.audit.record(caller, `${type}.create`, type, row.id, { name: row.name, ...details });
  return row;
}

/** A later save (refused while another user holds the lock), with the datasets it names checked as on creation. */
export async function saveRecord(ctx: Ctx, type: ResourceType, row: ResourceRow, body: RecordUpdate, lock: LockOptions = {}, details: Record<string, unknown> = {}) {
  const caller = requireCaller(ctx);
  await ctx.services.access.guardAll(caller, 'dataset', body.datasets ?? [], 'read', ctx.adminMode);
  const checked = checkedState(type, body);
  // A dashboard's queries run with its owner's access: an editor stores new ones only over datasets they read.
  if (type === 'insight' && checked.latestState) await assertMayStoreQueries(ctx.services, caller, row, checked.latestState as DashboardState, ctx.adminMode);
  // History (#51): the save's message and the version it was based on (body or If-Match), for the 409 on a stale base.
  const version = { message: body.versionMessage, baseVersion: body.baseVersion ?? parseIfMatchVersion(ctx.req.headers['if-match']) };
  const saved = await ctx.services.records.update(caller, row, { ...checked, version }, { adminMode: ctx.adminMode, ...lock });
  await ctx.services.audit.record(caller, body.ownerId ? `${type}.transfer` : `${type}.update`, type, saved.id, { ownerId: body.ownerId, name: body.name, ...details });
  return saved;
}

/** Deletes a record, its thumbnail and writes its audit entry. */
export async function deleteRecord(ctx: Ctx, type: ResourceType, row: ResourceRow, details: Record<string, unknown> = {}): Promise<undefined> {
  const caller = requireCaller(ctx);
  await ctx.services.records.delete(caller, row);
  if (row.thumbnail_key) await ctx.services.blobs.remove(row.thumbnail_key);
  await ctx.services.audit.record(caller, `${type}.delete`, type, row.id, { name: row.name, ...details });
  return undefined;
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
        await assertCanCreate(ctx.services.db, caller, type);
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
        await applyShare(ctx.services.db, ctx.resource!, ctx.body);
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

