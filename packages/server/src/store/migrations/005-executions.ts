import type { Kysely } from 'kysely';
import { execStatements } from '../exec-statements';

/**
 * Query executions (catalog §3, analytics-and-admin §7): one row a run of SQL over datasets or a
 * warehouse connection, with its state, where its Parquet result lives and until when it answers
 * identical queries from cache. Not a resource: only its owner (and the records it is linked to) see it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await execStatements(db, `
    create table query_executions (
      id uuid primary key,
      owner_id uuid not null references users(id) on delete cascade,
      status text not null check (status in ('queued', 'running', 'success', 'failure', 'cancelled')),
      query text not null,
      parameters jsonb not null default '{}',
      connection_id uuid references resources(id) on delete set null,
      template_id uuid references resources(id) on delete set null,
      template_version integer,
      dataset_id uuid references resources(id) on delete set null,
      record_id uuid references resources(id) on delete cascade,
      cache_key text not null,
      storage_key text,
      row_count bigint,
      columns jsonb,
      error_message text,
      created_at timestamptz not null default now(),
      started_at timestamptz,
      finished_at timestamptz,
      cache_expires_at timestamptz
    );
    create index query_executions_owner on query_executions(owner_id, created_at);
    create index query_executions_cache on query_executions(owner_id, cache_key);
    create index query_executions_record on query_executions(record_id, template_id, created_at)
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await execStatements(db, 'drop table if exists query_executions');
}
