import { sql, type Kysely } from 'kysely';
import { versionTable } from './006-catalog-version';

/**
 * Pinned data (#51): a dataset's data kept past its replacement. A row per data file (`storage_key`, unique): made
 * when an upload, the workbench or a refresh replaces it (`replaced_at` set), or when a version pins the data the
 * dataset has now (`replaced_at` null until it is replaced). `metadata` is what described the data then (row count,
 * schema, location columns), so a pinned read streams it as it was. Versions name it in their `pins` (jsonb); the
 * retention job removes a replaced one past the retention that no kept version pins, with its files.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table dataset_snapshots (
    id uuid primary key,
    dataset_id uuid not null references resources(id) on delete cascade,
    storage_key text not null unique,
    metadata jsonb not null,
    created_at timestamptz not null default now(),
    replaced_at timestamptz
  )`.execute(db);
  await sql`create index dataset_snapshots_dataset on dataset_snapshots (dataset_id)`.execute(db);
  await versionTable(db, 'dataset_snapshots');
}
