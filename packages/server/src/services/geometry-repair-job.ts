import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Services } from '.';
import { datasetAttrs } from './datasets';
import type { ResourceRow } from './records';
import type { StudioJobKind } from './jobs/service';

/**
 * Datasets made before ingest normalised geometry (cut at the antimeridian, closed along a pole, 0..360° wrapped,
 * rings closed and oriented, invalid shapes counted: engine/src/geometry-repair.ts) get the same repair once, in
 * one background job started at start-up. The marker is per dataset: `metadata.geometryRepairs` is written by
 * every ingest since (null when there was nothing to say), so a dataset with a geometry column and no such key is
 * one made before. The job is idempotent: a second pass finds nothing to change, and a dataset whose data was
 * replaced meanwhile is left to the ingest that replaced it (`replaceData` switches only from the key it read).
 */

export const GEOMETRY_REPAIR_KIND = 'geometry-repair' as const;

/** A ready managed dataset with a text geometry column that no geometry pass has seen. */
function needsRepair(row: ResourceRow): { key: string; column: string } | null {
  const a = datasetAttrs(row);
  const column = a.metadata.detected?.geometry;
  if (a.status !== 'ready' || !a.storageKey || !column || a.metadata.geometryRepairs !== undefined) return null;
  const c = a.metadata.columns.find((x) => x.name === column);
  return c && /^VARCHAR/i.test(c.duckdbType) ? { key: a.storageKey, column } : null;
}

async function datasetsToRepair(s: Services): Promise<{ row: ResourceRow; from: { key: string; column: string } }[]> {
  // Asked at every start: the catalog leaves out what no pass needs (not ready, no geometry column, already marked),
  // so a start reads the few datasets made before the pass, not every dataset's record. needsRepair says the rest.
  const rows = await s.db
    .selectFrom('resources')
    .selectAll()
    .where('type', '=', 'dataset')
    .where(sql<boolean>`attrs->>'status' = 'ready'`)
    .where(sql<boolean>`attrs->'metadata'->'detected'->>'geometry' is not null`)
    .where(sql<boolean>`not jsonb_exists(attrs->'metadata', 'geometryRepairs')`)
    .orderBy('created_at')
    .execute();
  return rows.flatMap((row) => {
    const from = needsRepair(row);
    return from ? [{ row, from }] : [];
  });
}

export function geometryRepairJob(s: Services): StudioJobKind<Record<string, never>> {
  return {
    kind: GEOMETRY_REPAIR_KIND,
    async run(job) {
      const pending = await datasetsToRepair(s);
      for (const [i, { row, from }] of pending.entries()) {
        job.signal.throwIfAborted();
        const key = `datasets/${row.id}/${Date.now().toString(36)}-${randomUUID().slice(0, 8)}.parquet`;
        const { counts, byteSize } = await s.engine.repairGeometry(from, key);
        const geometryRepairs = counts.repaired || Object.keys(counts.invalid).length ? counts : null;
        if (byteSize !== null) {
          const switched = await s.datasets.replaceData(row.id, from.key, key, () => ({ byteSize, geometryRepairs }));
          if (!switched) await s.engine.store.delete(key);
        } else {
          // Nothing rewritten: the counts (invalid shapes, or none) are the marker, if the data is still what was read.
          await s.datasets.patchMetadata(row.id, (current) => (current.storageKey === from.key ? { geometryRepairs } : {}));
        }
        job.progress(((i + 1) / pending.length) * 100, i + 1);
      }
    },
  };
}

/**
 * At start-up: queues the job when a dataset needs it and no such job is queued or running. The job is its owner's
 * (the first such dataset's owner: jobs belong to a user, and the Jobs panel shows it to them). Answers the job's id.
 */
export async function startGeometryRepair(s: Services): Promise<string | null> {
  const pending = await datasetsToRepair(s);
  if (!pending.length) return null;
  const running = await s.db.selectFrom('jobs').select('id').where('kind', '=', GEOMETRY_REPAIR_KIND).where('status', 'in', ['queued', 'running']).executeTakeFirst();
  if (running) return running.id;
  const owner = await s.auth.callerOf(pending[0]!.row.owner_id, 'session', '');
  const id = await s.jobs.create(owner, GEOMETRY_REPAIR_KIND, null);
  await s.jobs.enqueue(id, GEOMETRY_REPAIR_KIND, {});
  return id;
}
