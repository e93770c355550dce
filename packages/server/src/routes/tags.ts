import { z } from 'zod';
import { Id, ResourceType, TagCreate, TagUpdate, Tag, itemOf, itemsOf } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';

const LinkParams = z.object({ tagId: Id, type: ResourceType, resourceId: Id });

export const tagRoutes = [
  defineRoute({
    spec: ['CAT-171'],
    method: 'GET',
    url: '/v1/tags',
    response: itemsOf(Tag),
    summary: "The caller's tags",
    tag: 'tags',
    auth: 'user',
    handler: async (ctx) => {
      return { items: await ctx.services.tags.mine(requireCaller(ctx)) };
    },
  }),
  defineRoute({
    spec: ['CAT-172'],
    method: 'GET',
    url: '/v1/tags/for-organization',
    response: itemsOf(Tag),
    summary: "Tags of the caller's organizations, optionally with links of one resource type only",
    tag: 'tags',
    auth: 'user',
    query: z.object({ resourceType: ResourceType.optional() }),
    handler: async (ctx) => {
      return { items: await ctx.services.tags.ofOrganizations(requireCaller(ctx), ctx.query.resourceType) };
    },
  }),
  defineRoute({
    spec: ['CAT-098'],
    method: 'POST',
    url: '/v1/tags',
    response: itemOf(Tag),
    summary: 'Create a tag, optionally applying it to one resource',
    tag: 'tags',
    auth: 'user',
    body: TagCreate,
    status: 201,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const tag = await ctx.services.tags.create(caller, ctx.body);
      await ctx.services.audit.record(caller, 'tag.create', 'tag', tag.id, ctx.body);
      return { item: tag };
    },
  }),
  defineRoute({
    spec: ['CAT-173'],
    method: 'PUT',
    url: '/v1/tags/{id}',
    response: itemOf(Tag),
    summary: 'Rename or recolor a tag',
    tag: 'tags',
    auth: 'user',
    params: z.object({ id: Id }),
    body: TagUpdate,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const tag = await ctx.services.tags.update(caller, ctx.params.id, ctx.body);
      await ctx.services.audit.record(caller, 'tag.update', 'tag', tag.id, ctx.body);
      return { item: tag };
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
    status: 204,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      await ctx.services.tags.delete(caller, ctx.params.id);
      await ctx.services.audit.record(caller, 'tag.delete', 'tag', ctx.params.id);
      return undefined;
    },
  }),
  defineRoute({
    spec: ['CAT-099'],
    method: 'POST',
    url: '/v1/tags/{tagId}/{type}/{resourceId}',
    response: itemOf(Tag),
    summary: 'Apply a tag to a resource the caller can read',
    tag: 'tags',
    auth: 'user',
    params: LinkParams,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const tag = await ctx.services.tags.apply(caller, ctx.params.tagId, ctx.params.type, ctx.params.resourceId);
      await ctx.services.audit.record(caller, 'tag.apply', ctx.params.type, ctx.params.resourceId, { tagId: ctx.params.tagId });
      return { item: tag };
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
    status: 204,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      await ctx.services.tags.remove(caller, ctx.params.tagId, ctx.params.type, ctx.params.resourceId);
      await ctx.services.audit.record(caller, 'tag.remove', ctx.params.type, ctx.params.resourceId, { tagId: ctx.params.tagId });
      return undefined;
    },
  }),
];
