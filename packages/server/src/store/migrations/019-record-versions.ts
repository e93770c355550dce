import { sql, type Kysely } from 'kysely';
import { versionTable } from './006-catalog-version';

/**
 * History (#51): every save that changes a map's, dashboard's or workbook's latestState is a version,
 * stored whole (`kind` full, every 20th of a chain) or as the jsondiffpatch delta from the version
 * before it (services/history.ts). `n` counts per record and is never reused; `chain` is the number of
 * deltas since the last full state; `bytes` the stored body's size for the administrators' storage.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table record_versions (
    record_id uuid not null references resources(id) on delete cascade,
    n integer not null,
    created_at timestamptz not null default now(),
    created_by uuid references users(id) on delete set null,
    message text,
    source text not null check (source in ('builder', 'api', 'sdk', 'import', 'restore')),
    schema_version integer,
    restored_from integer,
    pins jsonb not null default '[]',
    kind text not null check (kind in ('full', 'delta')),
    chain integer not null,
    body jsonb,
    bytes integer not null,
    primary key (record_id, n)
  )`.execute(db);
  await versionTable(db, 'record_versions');
}
