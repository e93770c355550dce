import { sql, type Kysely } from 'kysely';

/**
 * Pinned data (#51): the snapshots' list and the retention pass ask which versions pin a snapshot
 * (`pins @> [{snapshotId}]`, services/dataset-snapshots.ts); without an index each asks every version of every record.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index record_versions_pins on record_versions using gin (pins jsonb_path_ops)`.execute(db);
}
