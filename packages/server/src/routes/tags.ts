import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { Id, ResourceType, TagCreate, TagUpdate, badInput, forbidden, notFound, type Tag } from '@studio/schema';
import type { Selectable } from 'kysely';
import { defineRoute, requireCaller } from '../http/route';
import type { Services } from '../services';
import type { Caller } from '../http/caller';
import { homeOrgId } from '../http/caller';
import type { TagsTable } from '../store/tables';

type TagRow = Selectable<TagsTable>;

async function tagsToWire(services: Services, caller: Caller, rows: TagRow[], resourceType?: string): Promise<Tag[]> {
  if (!rows.length) return [];
  let q = services.db.selectFrom('tag_links').select(['tag_id', 'resource_type', 'resource_id']).where('tag_id', 'in', rows.map((r) => r.id));
  if (resourceType) q = q.where('resource_type', '=', resourceType);
  const links = await q.execute();
  return rows.map((t) => ({
    id: t.id,
    name: t.name,
    color: t.color,
    organizationId: t.organization_id,
    ownerId: t.owner_id,
    resources: links.filter((l) => l.tag_id === t.id).map((l) => ({ resourceType: l.resource_type as Tag['resources'][number]['resourceType'], resourceId: l.resource_id })),
    createdAt: new Date(t.created_at).toISOString(),
    updatedAt: new Date(t.updated_at).toISOString(),
  }));
}

/** A tag is usable by its owner and by members of its organization; changed by its owner or an admin. */
async function usableTag(services: Services, caller: Caller, id: string, change = false): Promise<TagRow> {
  const tag = await services.db.selectFrom('tags').selectAll().where('id', '=', id).executeTakeFirst();
  const visible = tag && (tag.owner_id === caller.user.id || caller.isAdmin || (tag.organization_id && caller.orgIds.includes(tag.organization_id)));
  if (!tag || !visible) throw notFound('Tag not found');
  if (change && tag.owner_id !== caller.user.id && !caller.isAdmin) throw forbidden('Only the owner of a tag can change it');
  return tag;
}

async function applyTag(services: Services, caller: Caller, tagId: string, type: ResourceType, resourceId: string): Promise<void> {
  await usableTag(services, caller, tagId);
  await services.access.guard(caller, type, resourceId, 'read', false);
  await services.db
    .insertInto('tag_links')
    .values({ tag_id: tagId, resource_type: type, resource_id: resourceId })
    .onConflict((oc) => oc.columns(['tag_id', 'resource_id']).doNothing())
    .execute();
}

const LinkParams = z.object({ tagId: Id, type: ResourceType, resourceId: Id });

export const tagRoutes = [
  defineRoute({
    spec: ['CAT-171'],
    method: 'GET',
    url: '/v1/tags',
    summary: "The caller's tags",
    tag: 'tags',
    auth: 'user',
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const rows = await ctx.services.db.selectFrom('tags').selectAll().where('owner_id', '=', caller.user.id).orderBy('name').execute();
      return { items: await tagsToWire(ctx.services, caller, rows) };
    },
  }),
  defineRoute({
    spec: ['CAT-172'],
    method: 'GET',
    url: '/v1/tags/for-organization',
    summary: "Tags of the caller's organizations, optionally with links of one resource type only",
    tag: 'tags',
    auth: 'user',
    query: z.object({ resourceType: ResourceType.optional() }),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      if (!caller.orgIds.length) return { items: [] };
      const rows = await ctx.services.db.selectFrom('tags').selectAll().where('organization_id', 'in', caller.orgIds).orderBy('name').execute();
      return { items: await tagsToWire(ctx.services, caller, rows, ctx.query.resourceType) };
    },
  }),
  defineRoute({
    spec: ['CAT-098'],
    method: 'POST',
    url: '/v1/tags',
    summary: 'Create a tag, optionally applying it to one resource',
    tag: 'tags',
    auth: 'user',
    body: TagCreate,
    status: 201,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const b = ctx.body;
      if ((b.resourceId === undefined) !== (b.resourceType === undefined)) throw badInput('resourceId and resourceType go together');
      if (b.resourceId && b.resourceType) await ctx.services.access.guard(caller, b.resourceType, b.resourceId, 'read', false);
      const tag = await ctx.services.db
        .insertInto('tags')
        .values({ id: randomUUID(), owner_id: caller.user.id, organization_id: homeOrgId(caller), name: b.name, color: b.color })
        .returningAll()
        .executeTakeFirstOrThrow();
      if (b.resourceId && b.resourceType) await applyTag(ctx.services, caller, tag.id, b.resourceType, b.resourceId);
      await ctx.services.audit.record(caller, 'tag.create', 'tag', tag.id, b);
      return { item: (await tagsToWire(ctx.services, caller, [tag]))[0] };
    },
  }),
  defineRoute({
    spec: ['CAT-173'],
    method: 'PUT',
    url: '/v1/tags/{id}',
    summary: 'Rename or recolor a tag',
    tag: 'tags',
    auth: 'user',
    params: z.object({ id: Id }),
    body: TagUpdate,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      await usableTag(ctx.services, caller, ctx.params.id, true);
      const tag = await ctx.services.db
        .updateTable('tags')
        .set({ ...(ctx.body.name && { name: ctx.body.name }), ...(ctx.body.color && { color: ctx.body.color }), updated_at: new Date() })
        .where('id', '=', ctx.params.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await ctx.services.audit.record(caller, 'tag.update', 'tag', tag.id, ctx.body);
      return { item: (await tagsToWire(ctx.services, caller, [tag]))[0] };
    },
  }),
  defineRoute({
    spec: ['CAT-174'],
    method: 'DELETE',
    url: '/v1/tags/{id}',
    summary: 'Delete a tag (and its links)',
    tag: 'tags',
    auth: 'user',
    params: z.object({ id: Id }),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      await usableTag(ctx.services, caller, ctx.params.id, true);
      await ctx.services.db.deleteFrom('tags').where('id', '=', ctx.params.id).execute();
      await ctx.services.audit.record(caller, 'tag.delete', 'tag', ctx.params.id);
      return undefined;
    },
  }),
  defineRoute({
    spec: ['CAT-099'],
    method: 'POST',
    url: '/v1/tags/{tagId}/{type}/{resourceId}',
    summary: 'Apply a tag to a resource the caller can read',
    tag: 'tags',
    auth: 'user',
    params: LinkParams,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      await applyTag(ctx.services, caller, ctx.params.tagId, ctx.params.type, ctx.params.resourceId);
      await ctx.services.audit.record(caller, 'tag.apply', ctx.params.type, ctx.params.resourceId, { tagId: ctx.params.tagId });
      const tag = await usableTag(ctx.services, caller, ctx.params.tagId);
      return { item: (await tagsToWire(ctx.services, caller, [tag]))[0] };
    },
  }),
  defineRoute({
    spec: ['CAT-100'],
    method: 'DELETE',
    url: '/v1/tags/{tagId}/{type}/{resourceId}',
    summary: 'Remove a tag from a resource',
    tag: 'tags',
    auth: 'user',
    params: LinkParams,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      await usableTag(ctx.services, caller, ctx.params.tagId);
      await ctx.services.access.guard(caller, ctx.params.type, ctx.params.resourceId, 'read', false);
      const r = await ctx.services.db.deleteFrom('tag_links').where('tag_id', '=', ctx.params.tagId).where('resource_id', '=', ctx.params.resourceId).executeTakeFirst();
      if (!Number(r.numDeletedRows)) throw notFound('Tag is not applied to this resource');
      await ctx.services.audit.record(caller, 'tag.remove', ctx.params.type, ctx.params.resourceId, { tagId: ctx.params.tagId });
      return undefined;
    },
  }),
];
