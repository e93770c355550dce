import type { Kysely } from 'kysely';
import { execStatements } from '../exec-statements';

/** The spine: identity, organizations, the generic resource table, permissions, tags, audit. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await execStatements(db, `
    create table organizations (
      id uuid primary key,
      name text not null,
      maker_quota_policy integer not null default 100 check (maker_quota_policy between 0 and 65535),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create table users (
      id uuid primary key,
      email text not null unique,
      name text not null,
      password_hash text,
      is_admin boolean not null default false,
      quota_policy integer not null default 100 check (quota_policy between 0 and 65535),
      screening_status smallint,
      last_screening_update timestamptz,
      flags jsonb not null default '{}',
      industry text,
      default_org_id uuid references organizations(id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create table memberships (
      user_id uuid not null references users(id) on delete cascade,
      organization_id uuid not null references organizations(id) on delete cascade,
      role text not null check (role in ('viewer', 'maker')),
      seat text not null default 'standard',
      primary key (user_id, organization_id)
    );
    create index memberships_org on memberships(organization_id);
    create table sessions (
      id uuid primary key,
      user_id uuid not null references users(id) on delete cascade,
      access_hash text not null unique,
      refresh_hash text not null unique,
      expires_at timestamptz not null,
      refresh_expires_at timestamptz not null,
      created_at timestamptz not null default now()
    );
    create table api_keys (
      id uuid primary key,
      user_id uuid not null references users(id) on delete cascade,
      name text not null,
      prefix text not null,
      key_hash text not null unique,
      created_at timestamptz not null default now(),
      last_used_at timestamptz,
      revoked_at timestamptz
    );
    create table resources (
      id uuid primary key,
      type text not null,
      owner_id uuid not null references users(id),
      organization_id uuid references organizations(id) on delete set null,
      name text not null,
      description text not null default '',
      visibility text not null default 'private' check (visibility in ('private', 'public_read')),
      is_sample boolean not null default false,
      import_source text,
      latest_state jsonb,
      attrs jsonb not null default '{}',
      lock_owner_id uuid references users(id) on delete set null,
      lock_acquired_at timestamptz,
      lock_expires_at timestamptz,
      thumbnail_key text,
      thumbnail_type text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index resources_owner on resources(type, owner_id, updated_at desc);
    create index resources_org on resources(type, organization_id, updated_at desc);
    create table resource_links (
      resource_id uuid not null references resources(id) on delete cascade,
      linked_id uuid not null references resources(id) on delete cascade,
      created_at timestamptz not null default now(),
      primary key (resource_id, linked_id)
    );
    create index resource_links_linked on resource_links(linked_id);
    create table permissions (
      id uuid primary key,
      resource_id uuid not null references resources(id) on delete cascade,
      subject_kind text not null check (subject_kind in ('user', 'organization', 'email')),
      user_id uuid references users(id) on delete cascade,
      organization_id uuid references organizations(id) on delete cascade,
      email text,
      role text not null check (role in ('limited-viewer', 'viewer', 'editor')),
      created_at timestamptz not null default now()
    );
    create unique index permissions_subject on permissions(resource_id, subject_kind, coalesce(user_id::text, organization_id::text, email));
    create index permissions_user on permissions(user_id);
    create index permissions_org on permissions(organization_id);
    create index permissions_email on permissions(email);
    create table tags (
      id uuid primary key,
      owner_id uuid not null references users(id) on delete cascade,
      organization_id uuid references organizations(id) on delete cascade,
      name text not null,
      color text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create table tag_links (
      tag_id uuid not null references tags(id) on delete cascade,
      resource_type text not null,
      resource_id uuid not null references resources(id) on delete cascade,
      created_at timestamptz not null default now(),
      primary key (tag_id, resource_id)
    );
    create index tag_links_resource on tag_links(resource_id);
    create table audit_log (
      id bigserial primary key,
      actor_id uuid,
      actor_email text,
      action text not null,
      resource_type text not null,
      resource_id text,
      details jsonb not null default '{}',
      at timestamptz not null default now()
    );
    create index audit_log_at on audit_log(at desc);
    create table legal_consents (
      user_id uuid not null references users(id) on delete cascade,
      agreement_id text not null,
      version text not null,
      consented_at timestamptz not null default now(),
      primary key (user_id, agreement_id, version)
    );
    create table invitations (
      id uuid primary key,
      organization_id uuid not null references organizations(id) on delete cascade,
      email text not null,
      role text not null check (role in ('viewer', 'maker')),
      application text,
      token_hash text not null unique,
      invited_by uuid references users(id) on delete set null,
      created_at timestamptz not null default now()
    );
    create table settings (key text primary key, value text not null);
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await execStatements(db, `
    drop table settings; drop table invitations; drop table legal_consents; drop table audit_log;
    drop table tag_links; drop table tags; drop table permissions; drop table resource_links;
    drop table resources; drop table api_keys; drop table sessions; drop table memberships;
    drop table users; drop table organizations;
  `);
}
