import type { z } from 'zod';
import { ProjectCreate, ProjectUpdate, StudioError, badInput, projectCalls, type Contract, type ResourceType } from '@studio/schema';
import { defineRoute, requireCaller, type RouteContext, type RouteDef, type RouteImpl } from '../http/route';
import { kindRoutes, type Kind } from '../http/kind-routes';
import { storedAsset } from '../http/map-asset-files';
import { thumbnailRoutes } from '../http/record-answers';

const BASE = '/v1/projects';
const TAG = 'projects';
const SAVE_FAILED = 'Could not save project resource';
type Ctx = RouteContext<unknown, unknown, unknown>;

const kind: Kind<typeof ProjectCreate, typeof ProjectUpdate> = {
  type: 'project',
  base: BASE,
  tag: TAG,
  spec: { list: 'CAT-131', org: 'CAT-132', get: 'CAT-133', update: 'CAT-134', del: 'CAT-135', create: 'CAT-136' },
  create: ProjectCreate,
  update: ProjectUpdate,
  unparseable: 'Could not parse project',
  fields: () => ({}),
  toAttrs: () => ({}),
  detail: async (services, row) => ({ folders: await services.projects.folders(row.id) }),
};

const store = (ctx: Ctx) => ctx.services.projects;
const project = (ctx: Ctx) => ctx.resource!.id;

/**
 * A folder or resource call of a project, guarded on the project; writes also wait for its edit lock. Its body is
 * parsed by the handler (parseOr), which refuses it with the project's own message: the route leaves it undeclared.
 */
function projectRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType>(call: Contract<P, Q, B, R>, handler: RouteImpl<P, Q, z.ZodNever, R>['handler']): RouteDef {
  const { body: _parsedByHandler, ...rest } = call;
  return defineRoute(rest as Contract<P, Q, z.ZodNever, R>, {
    handler: async (ctx) => {
      if (call.resource?.action === 'write') await ctx.services.records.assertNotLockedByOther(requireCaller(ctx), ctx.resource!);
      return handler(ctx);
    },
  });
}

/** Parses a body or refuses it with `message` (422), keeping the validator's reason as details. */
function parseOr<T extends z.ZodType>(schema: T, body: unknown, message: string): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw badInput(message, parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  return parsed.data;
}

/** Entries as the caller may see them: only resources they can read. */
async function readableEntries(ctx: Ctx, folder?: string | null) {
  const entries = await store(ctx).resources(project(ctx), folder);
  const rows = await ctx.services.records.getMany(entries.map((e) => e.resource.id));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const access = await Promise.all(entries.map((e) => ctx.services.access.accessOf(ctx.caller, byId.get(e.resource.id)!, ctx.adminMode)));
  const items = entries.filter((_, i) => access[i] !== 'none');
  return { items, total: items.length };
}

/** Project kinds that are map assets, with the spec's refusal when the asset is of the other kind. */
const ASSET_KINDS = { 'map-style': 'Asset is not a Map Style', 'color-palette': 'Asset is not a Color Palette' } as const;

/** What a project resource names must exist and be readable by the caller; anything else cannot be saved. */
async function addResource(ctx: Ctx) {
  const body = parseOr(projectCalls.addResource.body!, ctx.body, SAVE_FAILED);
  const asset = ASSET_KINDS[body.resource.type as keyof typeof ASSET_KINDS];
  const type: ResourceType = asset ? 'map-asset' : (body.resource.type as ResourceType);
  try {
    const { resource } = await ctx.services.access.guard(requireCaller(ctx), type, body.resource.id, 'read', ctx.adminMode);
    if (asset && storedAsset(resource)?.assetType !== body.resource.type) throw badInput(asset);
  } catch (e) {
    if (e instanceof StudioError) throw badInput(SAVE_FAILED, e.message);
    throw e;
  }
  const id = await store(ctx).addResource(project(ctx), body.resource.type, body.resource.id, body.folderId ?? null);
  return { item: await store(ctx).entry(project(ctx), id) };
}

export const projectRoutes: RouteDef[] = [
  ...kindRoutes(kind),
  ...thumbnailRoutes('project', BASE, TAG, ['CAT-137', 'CAT-137']),
  projectRoute(projectCalls.createFolder, async (ctx) => {
    const body = parseOr(projectCalls.createFolder.body!, ctx.body, 'Invalid folder');
    return { item: await store(ctx).createFolder(project(ctx), body.name, body.parentId ?? null) };
  }),
  projectRoute(projectCalls.updateFolder, async (ctx) => {
    const body = parseOr(projectCalls.updateFolder.body!, ctx.body, 'Invalid folder');
    return { item: await store(ctx).updateFolder(project(ctx), ctx.params.folderId, body) };
  }),
  projectRoute(projectCalls.deleteFolder, async (ctx) => {
    await store(ctx).deleteFolder(project(ctx), ctx.params.folderId);
    return undefined;
  }),
  projectRoute(projectCalls.resources, (ctx) => readableEntries(ctx)),
  projectRoute(projectCalls.rootResources, (ctx) => readableEntries(ctx, null)),
  projectRoute(projectCalls.folderResources, async (ctx) => {
    await store(ctx).assertFolder(project(ctx), ctx.params.folderId);
    return readableEntries(ctx, ctx.params.folderId);
  }),
  projectRoute(projectCalls.addResource, addResource),
  projectRoute(projectCalls.moveResource, async (ctx) => {
    const body = parseOr(projectCalls.moveResource.body!, ctx.body, SAVE_FAILED);
    await store(ctx).moveResource(project(ctx), ctx.params.resourceId, body.folderId);
    return { item: await store(ctx).entry(project(ctx), ctx.params.resourceId) };
  }),
  projectRoute(projectCalls.removeResource, async (ctx) => {
    await store(ctx).removeResource(project(ctx), ctx.params.resourceId);
    return undefined;
  }),
];
