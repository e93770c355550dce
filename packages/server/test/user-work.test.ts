import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs/promises';
import path from 'node:path';
import { STORES, seedCast, startStudio, type Cast, type TestStudio } from './harness';

/**
 * User SQL runs in worker processes, bounded (#45): a query that crashes DuckDB, runs too long or takes too much
 * memory costs its own request, and the studio (its health route, other users' queries) goes on.
 */

/** Runs forever unless stopped: DuckDB checks for interrupts between its chunks. */
const ENDLESS = 'WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 10000000000) SELECT count(*) AS n FROM r';
/** The reproduction: DuckDB's JSON reader recurses 200,000 levels and overflows its native stack (SIGSEGV). */
const STACK_CRASH = "SELECT json_structure(repeat('[', 200000) || repeat(']', 200000)) AS s";

describe.each(STORES)('user work out of the API process on %s', (kind) => {
  let s: TestStudio;
  let cast: Cast;
  const as = (who: keyof Cast['tokens'], method: string, url: string, payload?: unknown) =>
    s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: cast.tokens[who] } });
  const query = (who: keyof Cast['tokens'], q: string) => as(who, 'POST', '/v1/data-queries/json', { query: q });
  const healthy = async () => expect((await s.app.inject({ method: 'GET', url: '/v1/health' })).statusCode).toBe(200);

  beforeAll(async () => {
    s = await startStudio(kind, {
      userWork: { sqlWorkers: 2, sqlTimeoutMs: 2000, sqlSpill: '256MB', workerMemoryBytes: 2 ** 30, perUser: { running: 1, queued: 1 }, tempViewsPerUser: 2, convertTimeoutMs: 5000 },
    });
    cast = await seedCast(s);
  });
  afterAll(async () => s?.dispose());

  it('a query that crashes the engine ends its worker, not the server: 500 with a message, then the next query runs', async () => {
    const before = s.services.sandbox.workerProcesses;
    const crashed = await query('viewer', STACK_CRASH);
    expect(crashed.statusCode).toBe(500);
    expect(crashed.json().message).toMatch(/data engine stopped.*nothing was saved/);
    await healthy();
    const next = await query('viewer', 'SELECT 41 + 1 AS n');
    expect(next.statusCode).toBe(200);
    expect(next.json().items).toEqual([{ n: 42 }]);
    expect(s.services.sandbox.workerProcesses.some((pid) => !before.includes(pid))).toBe(true);
  });

  it('a query past STUDIO_SQL_TIMEOUT_MS is stopped with 422 and says so; another user is answered meanwhile', async () => {
    // Both worker processes started, so the other user's query finds one free.
    await Promise.all([query('owner', 'SELECT 1 AS n'), query('colleague', 'SELECT 2 AS n')]);
    let settled = false;
    const long = query('viewer', ENDLESS).finally(() => (settled = true));
    const other = await query('outsider', 'SELECT 7 AS n');
    expect(other.statusCode).toBe(200);
    expect(settled).toBe(false);
    const stopped = await long;
    expect(stopped.statusCode).toBe(422);
    expect(stopped.json().message).toMatch(/^The query ran longer than 2 s and was stopped \(STUDIO_SQL_TIMEOUT_MS\)/);
    await healthy();
  });

  it("one user's queries past those running and waiting get 429; another user's still run", async () => {
    const first = query('editor', ENDLESS);
    const second = query('editor', ENDLESS);
    // Once one runs its endless copy and the other waits its turn (each query passes the gate for its compile,
    // its parameters and its run), the third finds the line full.
    const gate = (s.services.sandbox as unknown as { gate: { load(id: string): { running: number; waiting: number } } }).gate;
    const full = () => {
      const { running, waiting } = gate.load(cast.users.editor.id);
      return running === 1 && waiting === 1;
    };
    for (let seen = 0, i = 0; seen < 3 && i < 500; i++) {
      seen = full() ? seen + 1 : 0;
      await new Promise((r) => setTimeout(r, 20));
    }
    const third = await query('editor', 'SELECT 1 AS n');
    expect(third.statusCode).toBe(429);
    expect(third.json().message).toBe('Too many queries of yours at once: 1 run and 1 wait; try again when one has ended');
    expect((await query('colleague', 'SELECT 2 AS n')).statusCode).toBe(200);
    expect((await first).statusCode).toBe(422);
    expect((await second).statusCode).toBe(422);
    expect((await query('editor', 'SELECT 3 AS n')).statusCode).toBe(200);
  });

  it('one user keeps at most STUDIO_TEMP_VIEWS_PER_USER temporary views; another user is not held back', async () => {
    const view = (who: keyof Cast['tokens']) => as(who, 'POST', '/v1/query/sql', { query: 'SELECT 1 AS one' });
    expect((await view('owner')).statusCode).toBe(201);
    expect((await view('owner')).statusCode).toBe(201);
    const refused = await view('owner');
    expect(refused.statusCode).toBe(429);
    expect(refused.json().message).toBe('Too many temporary views of yours (at most 2 at once); they expire 60 s after creation');
    expect((await view('colleague')).statusCode).toBe(201);
  });

  it("a view made to replace one of the caller's own (a workbook cell run again) does not count, and the replaced one is gone", async () => {
    const make = (who: keyof Cast['tokens'], replaces?: string) =>
      as(who, 'POST', `/v1/query/sql${replaces ? `?replaces=${replaces}` : ''}`, { query: 'SELECT 1 AS one' });
    const data = (who: keyof Cast['tokens'], name: string) => as(who, 'GET', `/v1/query/views/${name}/data`);
    const first = (await make('viewer')).json().item.name as string;
    const second = (await make('viewer')).json().item.name as string;
    expect((await make('viewer')).statusCode).toBe(429);
    const third = await make('viewer', first);
    expect(third.statusCode).toBe(201);
    expect((await data('viewer', first)).statusCode).toBe(404);
    expect((await data('viewer', second)).statusCode).toBe(200);
    expect((await data('viewer', third.json().item.name)).statusCode).toBe(200);
    // Another user's view is not the caller's to replace: the limit holds, and that view still answers its maker.
    const theirs = (await make('outsider')).json().item.name as string;
    expect((await make('viewer', theirs)).statusCode).toBe(429);
    expect((await data('outsider', theirs)).statusCode).toBe(200);
    const malformed = await make('viewer', 'temp_../x');
    expect(malformed.statusCode).toBe(422);
    expect(malformed.json().message).toMatch(/replaces names a temporary view/);
  });

  /** SQL that recurses, multiplies rows, nests or asks for more memory than there is: each ends in its own answer. */
  it.each([
    ['a recursive CTE that never ends', ENDLESS, [422]],
    ['a five-way cross join', 'SELECT count(*) AS n FROM range(200) a, range(200) b, range(200) c, range(200) d, range(200) e', [422]],
    ['an expression nested 100,000 deep', `SELECT ${'('.repeat(100_000)}1${')'.repeat(100_000)} AS n`, [422, 500]],
    ['subqueries nested 5,000 deep', `SELECT ${'(SELECT '.repeat(5000)}1${')'.repeat(5000)} AS n`, [422, 500]],
    ['a string of 4 GB', "SELECT length(repeat('x', 4000000000)) AS n", [422]],
    ['a list of a billion values', 'SELECT len(list(i)) AS n FROM range(1000000000) t(i)', [422]],
  ])('%s: its own answer with a message, and the studio goes on', async (_name, q, statuses) => {
    const res = await query('outsider', q);
    expect(statuses).toContain(res.statusCode);
    expect(res.json().message).toEqual(expect.any(String));
    expect(JSON.stringify(res.json())).not.toMatch(/\/tmp\/|studio-test-/);
    await healthy();
    expect((await query('outsider', 'SELECT 1 AS n')).json().items).toEqual([{ n: 1 }]);
  });

  it("nothing a killed worker was writing is left behind: the workers' folders hold only live workers", async () => {
    const root = path.join(s.dataDir, 'tmp', 'sandbox');
    const live = s.services.sandbox.workerProcesses;
    const folders = await fs.readdir(root).catch(() => [] as string[]);
    expect(folders.length).toBeLessThanOrEqual(live.length);
  });
});

describe.each(STORES)('a worker past its memory cap on %s', (kind) => {
  let s: TestStudio;
  let cast: Cast;

  beforeAll(async () => {
    // Below what a worker holds once DuckDB runs a query: the first look at its memory while busy kills it.
    s = await startStudio(kind, {
      userWork: { sqlWorkers: 1, sqlTimeoutMs: 20_000, sqlSpill: '256MB', workerMemoryBytes: 40 * 2 ** 20, perUser: { running: 2, queued: 10 }, tempViewsPerUser: 20, convertTimeoutMs: 5000 },
    });
    cast = await seedCast(s);
  });
  afterAll(async () => s?.dispose());

  it('is killed and its request answered 422 naming the cap; the server goes on', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/v1/data-queries/json', payload: { query: ENDLESS }, headers: { authorization: cast.tokens.viewer } });
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toBe('The work needed more than 40 MB of memory and was stopped; nothing was saved');
    expect((await s.app.inject({ method: 'GET', url: '/v1/health' })).statusCode).toBe(200);
  });
});
