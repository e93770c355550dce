import { sql, type Kysely } from 'kysely';
import { execStatements } from '../exec-statements';

/**
 * Tables whose writes never change what a list shows, and that are written on the read path (a
 * session on sign-in, an API key's last use, the audit trail of every write): they do not move the
 * catalog version, or every read would invalidate every cached list.
 */
// `jobs` (011) is listed for its progress writes, `client_errors` (013) for the web app's error reports (no list
// shows them from the cache); both came after this migration ran, so listing them here changes no catalog.
export const UNVERSIONED_TABLES = ['sessions', 'api_keys', 'audit_log', 'kysely_migration', 'kysely_migration_lock', 'catalog_version', 'jobs', 'client_errors', 'password_resets'];

/**
 * Makes writes to `table` move the catalog version (see `up`). Later migrations that create a table
 * call this for it; the store test fails for any table that neither does nor is listed above.
 */
export async function versionTable(db: Kysely<unknown>, table: string): Promise<void> {
  if (!/^[a-z_]+$/.test(table)) throw new Error(`not a catalog table name: ${table}`);
  await sql
    .raw(`create constraint trigger ${table}_catalog_version after insert or update or delete on ${table} deferrable initially deferred for each row execute function studio_bump_catalog_version()`)
    .execute(db);
}

/**
 * The catalog version: one counter that every committed write to the catalog moves, read by each API
 * node before it answers a list from its memory (services/list-cache.ts). The trigger is a deferred
 * constraint trigger, so it runs at commit, last in the transaction: the new version becomes visible in
 * the same instant as the data it stands for, on every node reading this database, and a transaction
 * takes the counter's row lock only just before it commits (it never waits on another lock while
 * holding it, so it cannot deadlock). A transaction moves the version once, however many rows it wrote.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await execStatements(db, `
    create table catalog_version (
      id boolean primary key default true check (id),
      version bigint not null
    );
    insert into catalog_version (id, version) values (true, 0)
  `);
  await sql
    .raw(`
      create function studio_bump_catalog_version() returns trigger language plpgsql as $$
      begin
        if current_setting('studio.catalog_version_moved', true) is distinct from txid_current()::text then
          perform set_config('studio.catalog_version_moved', txid_current()::text, true);
          update catalog_version set version = version + 1;
        end if;
        return null;
      end
      $$`)
    .execute(db);
  const { rows } = await sql<{ table_name: string }>`
    select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'
  `.execute(db);
  for (const { table_name } of rows) if (!UNVERSIONED_TABLES.includes(table_name)) await versionTable(db, table_name);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop function if exists studio_bump_catalog_version() cascade').execute(db);
  await execStatements(db, 'drop table if exists catalog_version');
}
