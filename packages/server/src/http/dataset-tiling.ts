import fs from 'node:fs/promises';
import { StudioError, type Job, type VectorTileCreate } from '@studio/schema';
import { requireCaller, type RouteContext } from './route';
import { clientGone } from './streams';
import { datasetAttrs, rebuildTarget } from '../services/datasets';
import type { ResourceRow } from '../services/records';
import { locationOf, vectorTiles, type TileSource } from '../services/vector-tiles';

type Ctx = RouteContext<unknown, unknown, unknown>;

/**
 * POST /v1/datasets/vectortile and the Data SDK's generate_vectortile: a vector-tile dataset cut from a dataset
 * the caller reads, or, with `target`, an existing one cut again in place.
 */
export async function tileDataset(ctx: Ctx, body: VectorTileCreate): Promise<{ row: ResourceRow; job: Job }> {
  const caller = requireCaller(ctx);
  const { resource: source } = await ctx.services.access.guard(caller, 'dataset', body.datasetId, 'read', ctx.adminMode);
  const target = body.target ? await rebuildTarget(ctx.services.access, caller, body.target, 'vector-tile', ctx.adminMode) : undefined;
  if (!target) await ctx.services.quota.assertCanCreate(caller, 'dataset');
  const a = datasetAttrs(source);
  if (a.status !== 'ready' || !a.storageKey) throw new StudioError(409, `Dataset ${source.name} is not ready (status: ${a.status})`);
  locationOf(a.metadata.columns, body); // bad input answers 422 before anything is created
  const file = await ctx.services.engine.store.localPath(a.storageKey);
  const { name: _name, description: _description, target: _target, ...build } = body;
  const dataset: TileSource = { name: target?.name ?? `${source.name} (vector tiles)`, pipelineType: 'managed', query: null, sourceLabel: `dataset:${source.id}`, build };
  const signal = clientGone(ctx.reply);
  return vectorTiles(ctx.services).create(caller, body, dataset, (out) => fs.copyFile(file, out), signal, target);
}
