import { sql, type Kysely } from 'kysely';
import { versionTable } from './006-catalog-version';

/**
 * Requests for an edit lock ("Ask for edit", #50), kept where the locks are so any node answers the holder's
 * polling. One pending request per person and record (a second ask is the first); answered ones are kept a
 * day for the asker's page to read the answer, then pruned on the next ask.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table lock_requests (
    id uuid primary key,
    resource_id uuid not null references resources(id) on delete cascade,
    requester_id uuid not null references users(id) on delete cascade,
    status text not null default 'pending' check (status in ('pending', 'granted', 'declined')),
    created_at timestamptz not null default now(),
    answered_at timestamptz
  )`.execute(db);
  await sql`create unique index lock_requests_one_pending on lock_requests (resource_id, requester_id) where status = 'pending'`.execute(db);
  await versionTable(db, 'lock_requests');
}
