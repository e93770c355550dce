import { z } from 'zod';
import {
  Folder,
  FolderCreate,
  FolderUpdate,
  Id,
  ProjectCreate,
  ProjectResource,
  ProjectResourceBody,
  ProjectResourceUpdate,
  ProjectUpdate,
  StudioError,
  badInput,
  itemOf,
  itemsOf,
  type ResourceType,
} from '@studio/schema';
import { defineRoute, requireCaller, type RouteContext, type RouteDef } from '../http/route';
import { kindRoutes, type Kind } from '../http/kind-routes';
import { storedAsset } from '../http/map-asset-files';
import { thumbnailRoutes } from '../http/record-answers';

const BASE = '/v1/projects';
const TAG = 'projects';
const SAVE_FAILED = 'Could not save project resource';
type Ctx = RouteContext<Record<string, string>, unknown, unknown>;

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

/** What the folder and resource calls answer. */
const FOLDER = { response: itemOf(Folder) };
const ENTRY = { response: itemOf(ProjectResource) };
const ENTRIES = { response: itemsOf(ProjectResource) };
const NOTHING = { status: 204 };

const store = (ctx: Ctx) => ctx.services.projects;
const project = (ctx: Ctx) => ctx.resource!.id;

/** A project route guarded on the project (`id`); `extra` names further path ids. */
function projectRoute(
  spec: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  summary: string,
  action: 'read' | 'write',
  answer: Pick<RouteDef, 'response' | 'status'>,
  handler: (ctx: Ctx) => Promise<unknown>,
): RouteDef {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return defineRoute({
    spec: [spec],
    method,
    url: `${BASE}/{id}${path}`,
    summary,
    tag: TAG,
    auth: 'user',
    params: z.object({ id: Id, ...Object.fromEntries(names.map((n) => [n, Id])) }),
    query: z.object({ isAdmin: z.string().optional() }),
    resource: { type: 'project', param: 'id', action },
    ...answer,
    handler: async (ctx) => {
      const c = ctx as unknown as Ctx;
      if (action === 'write') await c.services.records.assertNotLockedByOther(requireCaller(c), c.resource!);
      return handler(c);
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
  const body = parseOr(ProjectResourceBody, ctx.body, SAVE_FAILED);
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
  projectRoute('CAT-138', 'POST', '/folders', 'Create a folder', 'write', FOLDER, async (ctx) => {
    const body = parseOr(FolderCreate, ctx.body, 'Invalid folder');
    return { item: await store(ctx).createFolder(project(ctx), body.name, body.parentId ?? null) };
  }),
  projectRoute('CAT-139', 'PUT', '/folders/{folderId}', 'Rename or move a folder', 'write', FOLDER, async (ctx) => {
    const body = parseOr(FolderUpdate, ctx.body, 'Invalid folder');
    return { item: await store(ctx).updateFolder(project(ctx), ctx.params.folderId!, body) };
  }),
  projectRoute('CAT-140', 'DELETE', '/folders/{folderId}', 'Delete a folder and its subfolders; their resources move to the root', 'write', NOTHING, async (ctx) => {
    await store(ctx).deleteFolder(project(ctx), ctx.params.folderId!);
    return undefined;
  }),
  projectRoute('CAT-141', 'GET', '/resources', 'Every resource of the project the caller can read', 'read', ENTRIES, (ctx) => readableEntries(ctx)),
  projectRoute('CAT-142', 'GET', '/folders/root/resources', 'Resources at the project root', 'read', ENTRIES, (ctx) => readableEntries(ctx, null)),
  projectRoute('CAT-143', 'GET', '/folders/{folderId}/resources', 'Resources of one folder', 'read', ENTRIES, async (ctx) => {
    await store(ctx).assertFolder(project(ctx), ctx.params.folderId!);
    return readableEntries(ctx, ctx.params.folderId!);
  }),
  projectRoute('CAT-144', 'POST', '/resources', "Add a map, dataset, insight, workbook, map style or color palette; 'Could not save project resource' otherwise", 'write', ENTRY, addResource),
  projectRoute('CAT-145', 'PUT', '/resources/{resourceId}', 'Move a project resource to a folder (null: the root)', 'write', ENTRY, async (ctx) => {
    const body = parseOr(ProjectResourceUpdate, ctx.body, SAVE_FAILED);
    await store(ctx).moveResource(project(ctx), ctx.params.resourceId!, body.folderId);
    return { item: await store(ctx).entry(project(ctx), ctx.params.resourceId!) };
  }),
  projectRoute('CAT-146', 'DELETE', '/resources/{resourceId}', 'Remove a resource from the project (the resource itself stays)', 'write', NOTHING, async (ctx) => {
    await store(ctx).removeResource(project(ctx), ctx.params.resourceId!);
    return undefined;
  }),
];
