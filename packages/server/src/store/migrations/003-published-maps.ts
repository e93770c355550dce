import type { Kysely } from 'kysely';
import { execStatements } from '../exec-statements';

/**
 * Published maps and featured maps (catalog §7 Maps). A publication is a snapshot: the map's saved
 * state and its dataset ids at publish time, so later edits do not leak until the map is published again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await execStatements(db, `
    create table published_maps (
      map_id uuid primary key references resources(id) on delete cascade,
      kind text not null default 'map',
      name text not null,
      description text not null default '',
      latest_state jsonb,
      dataset_ids jsonb not null default '[]',
      password_hash text,
      published_by uuid references users(id) on delete set null,
      published_at timestamptz not null default now(),
      views integer not null default 0
    );
    create table featured_maps (
      id uuid primary key,
      map_id uuid not null unique references published_maps(map_id) on delete cascade,
      title text not null default '',
      description text not null default '',
      highlighted boolean not null default false,
      position integer not null default 0,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
  `);
}
