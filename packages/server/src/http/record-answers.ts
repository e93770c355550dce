import { z } from 'zod';
import {
  Id,
  RecordListQuery,
  RecordCreate,
  RecordUpdate,
  ThumbnailRequest,
  IMAGE_TYPES,
  isImageType,
  badInput,
  notFound,
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
import { checkAnswer, defineRoute, readJsonBody, requireCaller, type RouteDef, type RouteContext } from './route';
import type { Services } from '../services';
import type { ListScope, ResourceRow } from '../services/records';
import { RESOURCE_LABELS } from '../services/access';
import { assertMayStoreQueries } from '../services/dashboards/stored-queries';

/**
 * The record answers and route families several route files share (maps, dashboards, workbooks, the kinds, the SDK,
 * the kepler.gl import, history): a record on the wire, the list and thumbnail calls of a collection, and the first
 * save, later save and delete of a record. Route files import these, never each other.
 */

const IdParam = z.object({ id: Id });

/** The browser tab a request comes from (its `x-studio-tab` header), which holds edit locks; null from API clients. */
export function tabOf(ctx: RouteContext<unknown, unknown, unknown>): string | null {
  const value = ctx.req.headers[TAB_HEADER];
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string' || !/^[A-Za-z0-9-]{1,64}$/.test(value)) throw badInput(`Invalid ${TAB_HEADER} header`, 'A tab id: 1 to 64 letters, digits and dashes');
  return value;
}
const ListQuery = RecordListQuery;

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
  await ctx.services.quota.assertCanCreate(caller, type);
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
  const version = { message: body.versionMessage, baseVersion: body.baseVersion ?? parseIfMatchVersion(ctx.req.headers['if-match']), pinData: body.pinData };
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
