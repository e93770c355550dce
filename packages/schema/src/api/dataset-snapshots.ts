import { z } from 'zod';
import { Id, IsoDate, QueryBool } from '../common';
import { DatasetColumn } from '../datasets';
import { contract } from './contract';

/**
 * A dataset's kept data (#51): the data an upload, the workbench or a live refresh replaced (kept for the
 * retention's `snapshotDays`, then while a kept version pins it), and its current data once a version pinned it.
 * Its storage is the studio's own business: a snapshot is named by its id, read at `/v1/datasets/{id}/data?snapshot=`.
 */
export const DatasetSnapshot = z.object({
  id: Id,
  datasetId: Id,
  /** When this data was made (its ingestion). */
  createdAt: IsoDate,
  /** When other data replaced it; null while it is the dataset's data. */
  replacedAt: IsoDate.nullable(),
  rowCount: z.number().int().nullable(),
  bytes: z.number().int().nullable(),
  /** Its schema then. */
  columns: z.array(DatasetColumn.pick({ name: true, type: true, duckdbType: true })),
  /** How many versions of maps and dashboards pin it. */
  pinnedBy: z.number().int(),
});
export type DatasetSnapshot = z.infer<typeof DatasetSnapshot>;
export const DatasetSnapshotList = z.object({ items: z.array(DatasetSnapshot) });
export type DatasetSnapshotList = z.infer<typeof DatasetSnapshotList>;

/** The `?snapshot=` of the dataset data calls: one of the dataset's kept snapshots instead of its current data. */
export const SnapshotQuery = z.object({ snapshot: Id.optional() });

export const datasetSnapshotCalls = {
  list: contract({
    method: 'GET',
    url: '/v1/datasets/{id}/snapshots',
    summary: "A dataset's kept snapshots, newest first: data replaced by an upload, the workbench or a refresh, and data a version pins (read one at /v1/datasets/{id}/data?snapshot=)",
    tag: 'datasets',
    auth: 'user',
    params: z.object({ id: Id }),
    query: z.object({ isAdmin: QueryBool.optional() }),
    resource: { type: 'dataset', param: 'id', action: 'read' },
    response: DatasetSnapshotList,
  }),
};
