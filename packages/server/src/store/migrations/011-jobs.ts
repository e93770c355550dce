import type { Kysely } from 'kysely';
import { execStatements } from '../exec-statements';

/**
 * Background jobs as users see them (the Jobs panel, a record's page): what runs, for whom, on which
 * record, how far it got and how it ended. The queue itself (claims, heartbeats, retries) is pg-boss's,
 * in the schema `job_queue` of the same database; a job has the same id in both. Not versioned: progress
 * is written every second or so, and a catalog-version bump would empty every node's list cache.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await execStatements(db, `
    create table jobs (
      id uuid primary key,
      kind text not null,
      resource_id uuid references resources(id) on delete cascade,
      created_by uuid references users(id) on delete set null,
      status text not null check (status in ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
      percent double precision not null default 0,
      rows_done bigint,
      message text,
      attempt integer not null default 0,
      node_id text,
      created_at timestamptz not null default now(),
      started_at timestamptz,
      finished_at timestamptz,
      updated_at timestamptz not null default now()
    );
    create index jobs_by_creator on jobs (created_by, created_at desc);
    create index jobs_by_resource on jobs (resource_id, created_at desc);
    create index jobs_unfinished on jobs (status) where status in ('queued', 'running')
  `);
}
