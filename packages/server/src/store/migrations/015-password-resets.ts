import { sql, type Kysely } from 'kysely';

/**
 * Password reset links: a forgotten password's mailed link, or one an administrator issues when the studio
 * has no SMTP. Only the token's hash is kept (like sessions and API keys); a link works once, for an hour.
 * Not versioned: no cached read depends on it (006's UNVERSIONED_TABLES lists it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table password_resets (
    id uuid primary key,
    user_id uuid not null references users(id) on delete cascade,
    token_hash text not null unique,
    expires_at timestamptz not null,
    used_at timestamptz,
    issued_by uuid references users(id) on delete set null,
    created_at timestamptz not null default now()
  )`.execute(db);
  await sql`create index password_resets_user on password_resets (user_id)`.execute(db);
}
