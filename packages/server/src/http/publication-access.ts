import { can, notFound } from '@studio/schema';
import { type RouteContext } from './route';
import { MAP_GRANT_HEADER, MAP_PASSWORD_HEADER } from '../services/publishing';
import type { ResourceRow } from '../services/records';

/**
 * Who may read a publication (maps and dashboards): the record's own readers, a grant header, or a password.
 * Shared by the publishing, dashboard publishing and vector-tile routes.
 */
/** The header that carries the grant POST …/published-map/password answers (instead of the password). */
export { MAP_GRANT_HEADER, MAP_PASSWORD_HEADER };

/** Whether the caller may read the published record itself (then no password is asked). */
export async function canReadRecord(ctx: RouteContext<unknown, unknown, unknown>, id: string, type: 'map' | 'insight'): Promise<boolean> {
  if (!ctx.caller) return false;
  const row = await ctx.services.records.get(id);
  if (!row || row.type !== type) return false;
  return can(await ctx.services.access.accessOf(ctx.caller, row, ctx.adminMode), 'read');
}
export const canReadMap = (ctx: RouteContext<unknown, unknown, unknown>, mapId: string) => canReadRecord(ctx, mapId, 'map');

/**
 * One dataset of a publication, for a reader who may open it (password or access to the map): only a
 * dataset the snapshot names and that the map's owner can still read. The publication is served under
 * its owner's grant, so a dataset the owner could never read (or no longer can) is never streamed.
 */
export async function publishedDataset(ctx: RouteContext<unknown, unknown, unknown>, mapId: string, datasetId: string): Promise<ResourceRow> {
  const canBypass = await canReadMap(ctx, mapId);
  const allowed = await ctx.services.publishing.datasetIdsFor(mapId, mapKey(ctx, canBypass, headerPassword(ctx)));
  const [row, map] = allowed.includes(datasetId) ? await Promise.all([ctx.services.records.get(datasetId), ctx.services.records.get(mapId)]) : [];
  if (!row || row.type !== 'dataset' || !map) throw notFound('Dataset not found');
  const owner = await ctx.services.auth.callerOf(map.owner_id, 'session', '');
  if (!can(await ctx.services.access.accessOf(owner, row, false), 'read')) throw notFound('Dataset not found');
  return row;
}

/** A request header's value, when present and not empty. */
export const header = (ctx: RouteContext<unknown, unknown, unknown>, name: string) => {
  const v = ctx.req.headers[name];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
};
const headerPassword = (ctx: RouteContext<unknown, unknown, unknown>) => header(ctx, MAP_PASSWORD_HEADER);

/** The reader's way in: access to the map, a grant header, or a password (throttled per address). */
export const mapKey = (ctx: RouteContext<unknown, unknown, unknown>, canBypass: boolean, password?: string) => ({
  canBypass,
  password,
  grant: header(ctx, MAP_GRANT_HEADER),
  address: ctx.req.ip,
});
