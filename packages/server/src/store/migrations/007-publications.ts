import type { Kysely } from 'kysely';
import { execStatements } from '../exec-statements';
import { versionTable } from './006-catalog-version';

/**
 * Published insights (dashboards) and reports (catalog §7 Insights, Reports). Like a published map, a
 * publication is a snapshot: the dashboard's saved state and the datasets it names at publish time, so
 * later edits reach readers only when it is published again. An insight has at most one publication
 * (its id is the insight's); a report is one of many snapshots of a dashboard, with its own id, and
 * keeps the addresses it was sent to.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await execStatements(db, `
    create table publications (
      id uuid primary key,
      kind text not null check (kind in ('insight', 'report')),
      resource_id uuid not null references resources(id) on delete cascade,
      name text not null,
      description text not null default '',
      latest_state jsonb not null,
      dataset_ids jsonb not null default '[]',
      password_hash text,
      published_by uuid references users(id) on delete set null,
      published_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      views integer not null default 0
    );
    create index publications_resource on publications (resource_id);
    create table report_invitations (
      report_id uuid not null references publications(id) on delete cascade,
      email text not null,
      description text not null default '',
      invited_by uuid references users(id) on delete set null,
      invited_at timestamptz not null default now(),
      primary key (report_id, email)
    );
  `);
  await versionTable(db, 'publications');
  await versionTable(db, 'report_invitations');
}
