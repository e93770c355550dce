import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { bestEffort, notFound, StoredDataset, type DatasetMetadata, type DatasetSnapshot, type VersionPin } from '@studio/schema';
import { arrowCopyKey, geoArrowCopyKey, rejectedLinesKey, type ObjectStore } from '@studio/engine';
import type { Db } from '../store/db';

/**
 * Pinned data (#51): a dataset's data kept past its replacement, and pinned by versions of maps and dashboards.
 * Only table data (managed and live datasets) is kept: a tileset's data is its archive, which its builds replace.
 * This file reads the catalog itself, not through datasets.ts (which calls it when data is replaced).
 */

const DAY_MS = 86_400_000;

/** The dataset types whose data is a table a version can pin. */
const PINNABLE = new Set(['managed', 'sql']);

/** What describes a snapshot's data, kept with it: a pinned read streams it as it was (row count, schema, location). */
const SNAPSHOT_FIELDS = ['rowCount', 'byteSize', 'columns', 'detected', 'ingestedAt', 'rejectedRows', 'geometryRepairs', 'contentType', 'source', 'query'] as const;
export type SnapshotMetadata = Pick<DatasetMetadata, (typeof SNAPSHOT_FIELDS)[number]>;
const snapshotMetadata = (m: DatasetMetadata): SnapshotMetadata => Object.fromEntries(SNAPSHOT_FIELDS.filter((f) => m[f] !== undefined).map((f) => [f, m[f]])) as SnapshotMetadata;

/** A snapshot's row for the data under `key`: made when it is first pinned or replaced, whichever comes first. */
const snapshotRow = (datasetId: string, key: string, metadata: DatasetMetadata, now: Date) => ({
  id: randomUUID(),
  dataset_id: datasetId,
  storage_key: key,
  metadata: JSON.stringify(snapshotMetadata(metadata)),
  created_at: metadata.ingestedAt ?? now,
});

/** A kept snapshot's files: the table, its Arrow and GeoArrow copies and its rejected lines, as they sat beside it when it was current. */
const filesOf = (key: string) => [key, arrowCopyKey(key), geoArrowCopyKey(key), rejectedLinesKey(key)];

/**
 * Records that a dataset's data under `key` was replaced (instead of removing it at once): the snapshot's row, made
 * now or by an earlier pin, is marked replaced. The files stay until retention removes them.
 */
export async function keepReplaced(db: Db, datasetId: string, key: string, metadata: DatasetMetadata, now = new Date()): Promise<void> {
  await db
    .insertInto('dataset_snapshots')
    .values({ ...snapshotRow(datasetId, key, metadata, now), replaced_at: now })
    .onConflict((oc) => oc.column('storage_key').doUpdateSet({ replaced_at: now }))
    .execute();
}

/**
 * The pins of a version saved with `pinData`: for each of these datasets that has table data now, its current
 * snapshot (its row made on first pin). Datasets without data, and tilesets, are drawn as they are today.
 */
export async function pinsOf(db: Db, datasetIds: readonly string[]): Promise<VersionPin[]> {
  const unique = [...new Set(datasetIds)];
  if (!unique.length) return [];
  const rows = await db.selectFrom('resources').select(['id', 'attrs']).where('id', 'in', unique).where('type', '=', 'dataset').execute();
  const pins: VersionPin[] = [];
  for (const row of rows) {
    const parsed = StoredDataset.safeParse(row.attrs ?? {});
    if (!parsed.success || !PINNABLE.has(parsed.data.datasetType) || !parsed.data.storageKey) continue;
    const key = parsed.data.storageKey;
    const meta = parsed.data.metadata;
    await db
      .insertInto('dataset_snapshots')
      .values(snapshotRow(row.id, key, meta, new Date()))
      .onConflict((oc) => oc.column('storage_key').doNothing())
      .execute();
    const snap = await db.selectFrom('dataset_snapshots').select('id').where('storage_key', '=', key).executeTakeFirstOrThrow();
    pins.push({ datasetId: row.id, snapshotId: snap.id });
  }
  return pins.sort((a, b) => a.datasetId.localeCompare(b.datasetId));
}

/** The datasets a record links (a map's, a dashboard's): what a pinned save pins when the save names none. */
export async function linkedDatasets(db: Db, recordId: string): Promise<string[]> {
  const rows = await db.selectFrom('resource_links as l').innerJoin('resources as r', 'r.id', 'l.linked_id').select('r.id').where('l.resource_id', '=', recordId).where('r.type', '=', 'dataset').execute();
  return rows.map((r) => r.id);
}

/** Versions that pin snapshot `id` (`pins` holds `{datasetId, snapshotId}` objects). */
const pinnedBy = (id: string | ReturnType<typeof sql.ref>) => sql<number>`(select count(*) from record_versions v where v.pins @> jsonb_build_array(jsonb_build_object('snapshotId', ${id}::text)))`;

/** A dataset's snapshots as the API lists them, and one read for `?snapshot=`. */
export class DatasetSnapshots {
  constructor(
    private readonly db: Db,
    private readonly store: Pick<ObjectStore, 'delete'>,
  ) {}

  /** The retention pass over snapshots (removeExpiredSnapshots), for the history job and the administrators' thinning. */
  removeExpired(now: Date, days: number): Promise<number> {
    return removeExpiredSnapshots(this.db, this.store, now, days);
  }

  async list(datasetId: string): Promise<DatasetSnapshot[]> {
    const rows = await this.db
      .selectFrom('dataset_snapshots as s')
      .select(['s.id', 's.dataset_id', 's.metadata', 's.created_at', 's.replaced_at', pinnedBy(sql.ref('s.id')).as('pinned_by')])
      .where('s.dataset_id', '=', datasetId)
      .orderBy('s.created_at', 'desc')
      .execute();
    return rows.map((r) => {
      const m = r.metadata as Partial<SnapshotMetadata>;
      return {
        id: r.id,
        datasetId: r.dataset_id,
        createdAt: new Date(r.created_at).toISOString(),
        replacedAt: r.replaced_at ? new Date(r.replaced_at).toISOString() : null,
        rowCount: m.rowCount ?? null,
        bytes: m.byteSize ?? null,
        columns: (m.columns ?? []).map((c) => ({ name: c.name, type: c.type, duckdbType: c.duckdbType })),
        pinnedBy: Number(r.pinned_by),
      };
    });
  }

  /**
   * Snapshot `id` of this dataset, to read in place of its data: its storage key and what described it. 404 for an
   * id that is not one of this dataset's (another dataset's snapshot says nothing of itself).
   */
  async get(datasetId: string, id: string): Promise<{ storageKey: string; metadata: SnapshotMetadata }> {
    const r = await this.db.selectFrom('dataset_snapshots').select(['storage_key', 'metadata']).where('id', '=', id).where('dataset_id', '=', datasetId).executeTakeFirst();
    if (!r) throw notFound('Snapshot not found', 'This dataset keeps no snapshot with that id');
    return { storageKey: r.storage_key, metadata: r.metadata as SnapshotMetadata };
  }
}

/**
 * The retention of snapshots (run by the history job after thinning): a replaced snapshot older than `days` that
 * no version pins goes, with its files. Pinned ones stay while a kept version pins them; thinning removing the
 * last such version lets the next pass remove them. Answers how many were removed.
 */
export async function removeExpiredSnapshots(db: Db, store: Pick<ObjectStore, 'delete'>, now: Date, days: number): Promise<number> {
  const expired = await db
    .selectFrom('dataset_snapshots as s')
    .select(['s.id', 's.storage_key'])
    .where('s.replaced_at', '<', new Date(now.getTime() - days * DAY_MS))
    .where(sql<boolean>`${pinnedBy(sql.ref('s.id'))} = 0`)
    .execute();
  for (const s of expired) {
    // The row first: a snapshot listed must be readable, while a file left behind by a failed delete is only space.
    await db.deleteFrom('dataset_snapshots').where('id', '=', s.id).execute();
    for (const key of filesOf(s.storage_key)) await bestEffort(store.delete(key), `Removing the expired snapshot ${key}`);
  }
  return expired.length;
}
