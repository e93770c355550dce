import type { Kysely } from 'kysely';
import { execStatements } from '../exec-statements';

/**
 * A running query execution says which node runs it and beats while it does: one left running by a node
 * that stopped (a crash, a kill) is failed by the sweep instead of answering "running" forever.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await execStatements(db, `
    alter table query_executions add column node_id text;
    alter table query_executions add column heartbeat_at timestamptz;
    create index query_executions_running on query_executions(status) where status in ('queued', 'running')
  `);
}
