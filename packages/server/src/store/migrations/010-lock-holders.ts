import type { Kysely } from 'kysely';
import { execStatements } from '../exec-statements';

/**
 * An edit lock is held by one browser tab, not by a user everywhere: the session it was taken in (signing
 * out releases it) and the tab (the same user's other tab sees it held and may take it over).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await execStatements(db, `
    alter table resources add column lock_session_id text;
    alter table resources add column lock_tab_id text;
    create index resources_lock_session on resources(lock_session_id) where lock_session_id is not null
  `);
}
