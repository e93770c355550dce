import type { Kysely } from 'kysely';
import { execStatements } from '../exec-statements';

/** Query template history and project folders / project resources (catalog §3, analytics-and-admin §7). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await execStatements(db, `
    create table query_template_versions (
      template_id uuid not null references resources(id) on delete cascade,
      version integer not null,
      name text not null,
      description text not null default '',
      query text not null,
      connection_id uuid,
      parameters jsonb not null default '[]',
      saved_by uuid references users(id) on delete set null,
      saved_at timestamptz not null default now(),
      primary key (template_id, version)
    );
    create table project_folders (
      id uuid primary key,
      project_id uuid not null references resources(id) on delete cascade,
      parent_id uuid references project_folders(id) on delete cascade,
      name text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index project_folders_project on project_folders(project_id);
    create table project_resources (
      id uuid primary key,
      project_id uuid not null references resources(id) on delete cascade,
      folder_id uuid references project_folders(id) on delete set null,
      resource_id uuid not null references resources(id) on delete cascade,
      kind text not null,
      created_at timestamptz not null default now(),
      unique (project_id, resource_id)
    );
    create index project_resources_folder on project_resources(project_id, folder_id);
  `);
}
