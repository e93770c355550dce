import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ExecutionService, EXECUTION_INTERRUPTED, STALE_RUNNING_MS } from '../src/services/executions';
import { STORES, useStudio } from './harness';

/**
 * Query executions a node was running when it stopped (a crash, a kill) end as failures saying so: at
 * the next sweep of any node once their heartbeat is stale, and at once when their own node starts again;
 * a live node's running execution is left alone.
 */
describe.each(STORES)('executions left running on %s', (kind) => {
  const { ctx, as } = useStudio(kind);
  const table = () => ctx.s.services.db.withTables<{ query_executions: Record<string, unknown> }>();

  /** An execution row as a node running it leaves it: running, with its node and last heartbeat. */
  const running = async (node: string, beatAgoMs: number) => {
    const id = randomUUID();
    const beat = new Date(Date.now() - beatAgoMs);
    await table()
      .insertInto('query_executions')
      .values({ id, owner_id: ctx.cast.users.owner.id, status: 'running', query: 'select 1', cache_key: `k-${id}`, started_at: beat, node_id: node, heartbeat_at: beat })
      .execute();
    return id;
  };
  const read = async (id: string) => (await as('owner', 'GET', `/v1/data-queries/${id}`)).json().item as { status: string; errorMessage: string | null };
  const nodeAs = (nodeId: string) => {
    const s = ctx.s.services;
    return new ExecutionService(s.db, s.engine, s.access, s.secrets, s.sandbox, s.reach, undefined, undefined, nodeId);
  };

  it('the sweep fails an execution whose node stopped beating, and leaves a live one running', async () => {
    const lost = await running('node-gone', STALE_RUNNING_MS + 60_000);
    const live = await running('node-alive', 10_000);
    expect(await nodeAs('node-sweeping').failInterrupted()).toBeGreaterThanOrEqual(1);
    expect(await read(lost)).toMatchObject({ status: 'failure', errorMessage: EXECUTION_INTERRUPTED });
    expect((await read(live)).status).toBe('running');
  });

  it("a node starting again fails its own running executions at once, not another node's", async () => {
    const mine = await running('node-restarting', 1000);
    const theirs = await running('node-busy', 1000);
    await nodeAs('node-restarting').failInterrupted({ ownOnly: true });
    expect(await read(mine)).toMatchObject({ status: 'failure', errorMessage: EXECUTION_INTERRUPTED });
    expect((await read(theirs)).status).toBe('running');
  });
});
