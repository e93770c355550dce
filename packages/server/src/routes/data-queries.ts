import { z } from 'zod';
import { BookmarkCreate, BookmarkUpdate, Id, Paging, StoredBookmark, TemplateCreate, TemplateUpdate, TemplateVersion, StoredTemplate, forbidden, isStudioError, itemsOf } from '@studio/schema';
import { defineRoute, requireCaller, type RouteDef } from '../http/route';
import type { ResourceRow } from '../services/records';
import { PARSE_TEMPLATE_FAILED, storedTemplate } from '../services/templates';
import { kindRoutes, type Ctx, type Kind } from '../http/kind-routes';

const BASE = '/v1/data-queries';

/** A query may name a connection; the caller must be able to read it. */
async function assertConnection(ctx: Ctx, connectionId: string | null | undefined): Promise<void> {
  if (connectionId) await ctx.services.access.guard(requireCaller(ctx), 'data-connection', connectionId, 'read', ctx.adminMode);
}

/** A template's text saved for a connection by someone who may not run queries on it (403). */
export const TEMPLATE_RUN_REFUSED = 'Saving a query template for a data connection needs the right to run queries on it';

/**
 * A template's text runs on its connection whenever someone who may run queries there runs the template
 * (a dashboard's, a workbook's): whoever stores the text or points it at a connection must be allowed to run it
 * there too, or an editor who may not run the connection would have its runners run their SQL. A save that
 * changes neither (a new name) needs nothing more than before.
 */
async function assertMayRunTemplate(ctx: Ctx, body: { query?: string; connectionId?: string | null }, row: ResourceRow | undefined): Promise<void> {
  const stored = row ? storedTemplate(row) : null;
  const connectionId = body.connectionId !== undefined ? body.connectionId : (stored?.connectionId ?? null);
  const changed = !stored || (body.query !== undefined && body.query !== stored.query) || connectionId !== (stored.connectionId ?? null);
  if (!connectionId || !changed) return;
  try {
    await ctx.services.access.guardRun(requireCaller(ctx), connectionId, ctx.adminMode);
  } catch (e) {
    // The connection was read above (404 otherwise): what is left is the run restriction.
    if (isStudioError(e) && e.status === 403) throw forbidden(TEMPLATE_RUN_REFUSED);
    throw e;
  }
}

const bookmarks: Kind<typeof BookmarkCreate, typeof BookmarkUpdate> = {
  type: 'query-bookmark',
  base: `${BASE}/bookmarks`,
  tag: 'data-queries',
  spec: { list: 'DQ-010', create: 'DQ-011', get: 'DQ-012', update: 'DQ-013', del: 'DQ-014', org: 'DQ-015' },
  create: BookmarkCreate,
  update: BookmarkUpdate,
  unparseable: 'Could not parse query bookmark',
  fields: (row) => {
    const b = StoredBookmark.safeParse(row.attrs);
    return b.success ? { query: b.data.query, connectionId: b.data.connectionId ?? null, parameters: b.data.parameters ?? [] } : null;
  },
  toAttrs: async (ctx, body) => {
    await assertConnection(ctx, body.connectionId);
    const { name: _n, description: _d, ...attrs } = body;
    return attrs;
  },
};

const templateFields = (row: ResourceRow) => {
  const t = StoredTemplate.safeParse(row.attrs);
  return t.success ? { query: t.data.query, connectionId: t.data.connectionId ?? null, parameters: t.data.parameters, version: t.data.version } : null;
};

const templates: Kind<typeof TemplateCreate, typeof TemplateUpdate> = {
  type: 'query-template',
  base: `${BASE}/templates`,
  tag: 'data-queries',
  spec: { list: 'DQ-004', create: 'DQ-005', get: 'DQ-006', update: 'DQ-007', del: 'DQ-008' },
  create: TemplateCreate,
  update: TemplateUpdate,
  unparseable: PARSE_TEMPLATE_FAILED,
  fields: templateFields,
  toAttrs: async (ctx, body, row) => {
    await assertConnection(ctx, body.connectionId);
    await assertMayRunTemplate(ctx, body, row);
    const { name: _n, description: _d, ...attrs } = body;
    // A save is a new version; the one it replaces goes to the history (afterUpdate).
    return { ...attrs, version: row ? storedTemplate(row).version + 1 : 1 };
  },
  afterUpdate: (services, before, _after, callerId) => services.templates.keepVersion(before, callerId),
};

export const dataQueryRoutes: RouteDef[] = [
  ...kindRoutes(bookmarks),
  ...kindRoutes(templates),
  defineRoute({
    spec: ['DQ-009'],
    method: 'GET',
    url: `${BASE}/templates/{id}/history`,
    summary: 'Earlier versions of a query template, newest first',
    tag: 'data-queries',
    auth: 'user',
    params: z.object({ id: Id }),
    query: Paging.extend({ isAdmin: z.string().optional() }),
    resource: { type: 'query-template', param: 'id', action: 'read' },
    response: itemsOf(TemplateVersion),
    handler: async (ctx) => ctx.services.templates.historyOf(ctx.resource!.id, ctx.query),
  }),
];
