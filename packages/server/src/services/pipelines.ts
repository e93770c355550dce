import { quoteLiteral } from '@studio/engine';
import { StudioError, badInput } from '@studio/schema';
import { compilePipeline, validatePipeline } from '@studio/pipeline';
import { datasetAttrs } from './datasets';
import type { CoreServices } from './index';
import type { Caller } from '../http/caller';
import { TEMP_VIEW_NAME } from './temp-views';
import { tileResolverFor } from './hextiles/service';

/** Every dataset a pipeline reads, by uuid, wherever in the tree it is named. */
export function datasetsOf(node: unknown, out = new Set<string>()): Set<string> {
  if (!node || typeof node !== 'object') return out;
  const n = node as Record<string, unknown>;
  if (n.type === 'dataset' && typeof n.uuid === 'string') out.add(n.uuid);
  if (n.type === 'enrich') {
    const source = n.sourceId ?? n.source;
    if (typeof source === 'string') out.add(source);
  }
  if (Array.isArray(n.input)) for (const child of n.input) datasetsOf(child, out);
  return out;
}


/**
 * Checks the caller may read every dataset before anything runs, then compiles the pipeline with
 * each dataset resolved to its Parquet file. `datasetVersions` names each dataset read with its storage
 * key, which changes whenever its data does (a cache key that needs no invalidation).
 */
export async function compileForCaller(services: CoreServices, caller: Caller, body: unknown) {
  const node = validatePipeline(body);
  const paths = new Map<string, string>();
  const temps = new Map<string, string>();
  const datasetVersions: string[] = [];
  for (const uuid of datasetsOf(node)) {
    if (TEMP_VIEW_NAME.test(uuid)) {
      temps.set(uuid, services.tempViews.relationOf(caller.user.id, uuid));
      continue;
    }
    const { resource } = await services.access.guard(caller, 'dataset', uuid, 'read', false);
    const a = datasetAttrs(resource);
    if (a.status !== 'ready' || !a.storageKey) throw new StudioError(409, `Dataset ${uuid} is not ready (status: ${a.status})`);
    paths.set(uuid, await services.engine.store.localPath(a.storageKey));
    datasetVersions.push(`${uuid}@${a.storageKey}`);
  }
  // Hex-tile datasets (hexTile, tileExtract, tileQuantiles nodes): guarded the same way, read from their archives.
  const tiles = await tileResolverFor(services, caller, node);
  const compiled = compilePipeline(node, {
    dialect: 'duckdb',
    ...(tiles && { resolveTiles: tiles.resolve }),
    resolveDataset: (uuid) => {
      const temp = temps.get(uuid);
      if (temp) return { relationSql: temp };
      const p = paths.get(uuid);
      if (!p) throw badInput(`Unknown dataset ${uuid}`);
      return { relationSql: `read_parquet(${quoteLiteral(p)})` };
    },
  });
  return { ...compiled, datasetVersions };
}

