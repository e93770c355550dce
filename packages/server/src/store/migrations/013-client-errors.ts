import { sql, type Kysely } from 'kysely';

/**
 * Error reports and feedback from the web app, kept when no Sentry DSN is configured (the administrators'
 * "Client errors" page); the relay removes those older than 30 days as it adds new ones.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table client_errors (
    id uuid primary key,
    created_at timestamptz not null default now(),
    user_id uuid references users(id) on delete set null,
    kind text not null,
    event_id text,
    message text not null,
    url text,
    detail text
  )`.execute(db);
  await sql`create index client_errors_created on client_errors (created_at desc)`.execute(db);
}
