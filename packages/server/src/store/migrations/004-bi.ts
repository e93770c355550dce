import type { Kysely } from 'kysely';
import { execStatements } from '../exec-statements';

/**
 * Business-intelligence configs of the analytic sets (analytics-and-admin §7): which datasets a group
 * reads per organization, default query parameters, saved (shareable) parameter sets and their
 * invitations. The (group, organization) lookups are plain indexes, not unique ones: the spec's lookup
 * reports "more than one" as a server error, and the service refuses to create a second config instead.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await execStatements(db, `
    create table bi_analytic_set_configs (
      id uuid primary key,
      group_id text not null,
      organization_id uuid not null references organizations(id) on delete cascade,
      datasets jsonb,
      template_parameters jsonb not null default '{}',
      template_overrides jsonb not null default '{}',
      created_by uuid references users(id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index bi_analytic_set_configs_group_org on bi_analytic_set_configs(group_id, organization_id);
    create table bi_query_param_configs (
      id uuid primary key,
      group_id text not null,
      organization_id uuid references organizations(id) on delete cascade,
      parameters jsonb not null default '{}',
      created_by uuid references users(id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index bi_query_param_configs_group_org on bi_query_param_configs(group_id, organization_id);
    create table bi_shared_parameters (
      id uuid primary key,
      owner_id uuid not null references users(id) on delete cascade,
      organization_id uuid references organizations(id) on delete set null,
      group_id text not null,
      template_id text not null,
      name text not null default '',
      parameters jsonb not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create table bi_shared_parameter_invitations (
      id uuid primary key,
      shared_parameters_id uuid not null references bi_shared_parameters(id) on delete cascade,
      email text not null,
      description text not null default '',
      invited_by uuid references users(id) on delete set null,
      created_at timestamptz not null default now(),
      unique (shared_parameters_id, email)
    );
  `);
}
