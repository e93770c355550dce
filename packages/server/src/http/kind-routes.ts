import { z } from 'zod';
import { Id, QueryBool, StudioRecord, badInput, itemOf, type ResourceType } from '@studio/schema';
import { defineRoute, requireCaller, type RouteContext, type RouteDef } from './route';
import type { Services } from '../services';
import type { ListOptions, ListScope, ResourceRow } from '../services/records';
import { RESOURCE_LABELS } from '../services/access';
import { listRoutes, recordItem } from './record-answers';

export type Ctx = Pick<RouteContext<unknown, unknown, unknown>, 'caller' | 'adminMode' | 'services'>;

/**
 * A catalog kind over the generic `resources` table (map assets, data connections, query bookmarks and
 * templates, projects): the record machinery does the storing, listing, locking and permissions; a kind
 * says how its body becomes `attrs` and how `attrs` become its wire fields.
 */
export interface Kind<C extends z.ZodType, U extends z.ZodType> {
  type: ResourceType;
  base: string;
  tag: string;
  spec: { list?: string; org?: string; shared?: string; get?: string; create?: string; update?: string; del?: string };
  create: C;
  update: U;
  /** Stored attrs from a validated body; `row` is the stored record on a save (throw a StudioError to refuse). */
  toAttrs(ctx: Ctx, body: z.infer<C> | z.infer<U>, row?: ResourceRow): Promise<Record<string, unknown>> | Record<string, unknown>;
  /** The kind's wire fields, or null when the stored attrs do not parse (lists skip such rows). */
  fields(row: ResourceRow): Record<string, unknown> | null;
  /** The 422 message for one stored row that does not parse. */
  unparseable: string;
  /** Extra list filters and how they narrow attrs. */
  listQuery?: z.ZodObject;
  listAttrs?: (query: Record<string, unknown>) => Record<string, string[]> | undefined;
  /** Extra query of GET /{id}, and a check of the row against it. */
  getQuery?: z.ZodObject;
  checkGet?: (row: ResourceRow, query: Record<string, unknown>) => void;
  /** After a save, e.g. keeping a version history. */
  afterUpdate?: (services: Services, before: ResourceRow, after: ResourceRow, callerId: string) => Promise<void>;
  /** More of one record than a list shows (e.g. a project's folders). */
  detail?: (services: Services, row: ResourceRow) => Promise<Record<string, unknown>>;
  /** Blob keys to remove with the record. */
  blobKeys?: (row: ResourceRow) => string[];
}

const IdParam = z.object({ id: Id });
const WriteQuery = z.object({ isAdmin: QueryBool.optional(), acquireLock: QueryBool.optional() });

/** One record of a kind on the wire: the record plus its fields; a row that does not parse is a 422. */
export async function kindItem(kind: Pick<Kind<z.ZodType, z.ZodType>, 'fields' | 'unparseable' | 'detail'>, row: ResourceRow, ctx: Ctx) {
  const fields = kind.fields(row);
  if (!fields) throw badInput(kind.unparseable);
  const { item } = await recordItem(ctx.services, row, ctx);
  return { item: { ...item, ...fields, ...(await kind.detail?.(ctx.services, row)) } };
}

/** Records of a kind as a list answers them, with fields; rows whose attrs do not parse are skipped. */
export async function withFields(services: Services, kind: Pick<Kind<z.ZodType, z.ZodType>, 'fields'>, page: { items: { id: string }[]; total: number }) {
  const ids = page.items.map((i) => i.id);
  const rows = await services.records.getMany(ids);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const items = page.items.flatMap((item) => {
    const row = byId.get(item.id);
    const fields = row && kind.fields(row);
    return fields ? [{ ...item, ...fields }] : [];
  });
  return { items, total: page.total - (page.items.length - items.length) };
}

/** Rows as records, keeping only those the caller may read (each with the caller's access). */
export async function readableItems(ctx: Ctx, rows: ResourceRow[]) {
  const accesses = await Promise.all(rows.map((r) => ctx.services.access.accessOf(ctx.caller, r, ctx.adminMode)));
  const readable = rows.filter((_, i) => accesses[i] !== 'none');
  const access = new Map(rows.map((r, i) => [r.id, accesses[i]!]));
  const items = await ctx.services.records.toWire(readable, (r) => access.get(r.id)!);
  return { items, total: items.length };
}

const nameOf = (body: unknown) => body as { name?: string; description?: string };

export function kindRoutes<C extends z.ZodType, U extends z.ZodType>(kind: Kind<C, U>): RouteDef[] {
  const { type, base, tag, spec } = kind;
  const label = RESOURCE_LABELS[type].toLowerCase();
  const guard = (action: 'read' | 'write' | 'delete') => ({ type, param: 'id', action }) as const;
  const list = async (ctx: RouteContext<unknown, Record<string, unknown>, unknown>, scope: ListScope) => {
    const page = await ctx.services.records.list(requireCaller(ctx), type, { ...(ctx.query as unknown as Omit<ListOptions, 'scope'>), scope, attrs: kind.listAttrs?.(ctx.query) });
    return withFields(ctx.services, kind, page);
  };
  const routes: RouteDef[] = listRoutes(base, type, tag, { own: spec.list, organization: spec.org, shared: spec.shared }, { query: kind.listQuery ?? z.object({}), list });
  // Each record answered is the record with the kind's fields beside it (open: the fields are the kind's own).
  const answer = itemOf(StudioRecord);
  routes.push(
    defineRoute({
      spec: spec.get ? [spec.get] : [],
      method: 'GET',
      url: `${base}/{id}`,
      summary: `One ${label}`,
      tag,
      auth: 'user',
      response: answer,
      params: IdParam,
      query: WriteQuery.extend((kind.getQuery ?? z.object({})).shape),
      resource: guard('read'),
      handler: async (ctx) => {
        kind.checkGet?.(ctx.resource!, ctx.query);
        return kindItem(kind, ctx.resource!, ctx);
      },
    }),
    defineRoute({
      spec: spec.create ? [spec.create] : [],
      method: 'POST',
      url: base,
      summary: `Create a ${label}`,
      tag,
      auth: 'user',
      response: answer,
      query: WriteQuery,
      body: kind.create,
      status: 201,
      handler: async (ctx) => {
        const caller = requireCaller(ctx);
        await ctx.services.quota.assertCanCreate(caller, type);
        const attrs = await kind.toAttrs(ctx, ctx.body);
        const { name, description } = nameOf(ctx.body);
        const row = await ctx.services.records.create(caller, type, { name: name ?? 'Untitled', description: description ?? '', attrs });
        await ctx.services.audit.record(caller, `${type}.create`, type, row.id, { name: row.name });
        return kindItem(kind, row, ctx);
      },
    }),
    defineRoute({
      spec: spec.update ? [spec.update] : [],
      method: 'PUT',
      url: `${base}/{id}`,
      summary: `Save a ${label}; refused while another user holds the lock`,
      tag,
      auth: 'user',
      response: answer,
      params: IdParam,
      query: WriteQuery,
      body: kind.update,
      resource: guard('write'),
      handler: async (ctx) => {
        const caller = requireCaller(ctx);
        const before = ctx.resource!;
        await ctx.services.records.assertNotLockedByOther(caller, before);
        const attrs = await kind.toAttrs(ctx, ctx.body, before);
        const { name, description } = nameOf(ctx.body);
        const row = await ctx.services.records.update(caller, before, { name, description, attrs }, { adminMode: ctx.adminMode, acquireLock: ctx.query.acquireLock });
        await kind.afterUpdate?.(ctx.services, before, row, caller.user.id);
        await ctx.services.audit.record(caller, `${type}.update`, type, row.id, { name });
        return kindItem(kind, row, ctx);
      },
    }),
    defineRoute({
      spec: spec.del ? [spec.del] : [],
      method: 'DELETE',
      url: `${base}/{id}`,
      summary: `Delete a ${label}`,
      tag,
      auth: 'user',
      params: IdParam,
      query: WriteQuery,
      resource: guard('delete'),
      status: 204,
      handler: async (ctx) => {
        const caller = requireCaller(ctx);
        const row = ctx.resource!;
        await ctx.services.records.delete(caller, row);
        const keys = [...(kind.blobKeys?.(row) ?? []), ...(row.thumbnail_key ? [row.thumbnail_key] : [])];
        for (const key of keys) await ctx.services.blobs.remove(key);
        await ctx.services.audit.record(caller, `${type}.delete`, type, row.id, { name: row.name });
        return undefined;
      },
    }),
  );
  return routes;
}
