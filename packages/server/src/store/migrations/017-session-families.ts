import { sql, type Kysely } from 'kysely';

/**
 * Sign-in sessions as token families (OAuth 2.0 Security BCP §4.14): every session a refresh makes keeps the
 * `family_id` of the sign-in it descends from, and a rotated session is kept (`rotated_at` set, its access
 * token no longer accepted) until its refresh token would have expired, so that a rotated refresh token
 * presented again is recognised as reuse and ends the whole family. Existing sessions start families of
 * their own.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table sessions add column family_id uuid`.execute(db);
  await sql`update sessions set family_id = id`.execute(db);
  await sql`alter table sessions alter column family_id set not null`.execute(db);
  await sql`alter table sessions add column rotated_at timestamptz`.execute(db);
  await sql`create index sessions_family on sessions (family_id)`.execute(db);
}
