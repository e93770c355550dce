import { describe, expect, it } from 'vitest';
import { StudioClient } from '@studio/client';
import { parseWorkbookState, type WorkbookCell, type WorkbookState } from '@studio/schema';
import { WorkbookRunner, type CellStatus } from '../src/workbook/run';
import { reduce } from '../src/workbook/cells';
import { useRealStudio } from './real-studio';
import { useWarehouse, warehouseConnection } from '../../server/test/harness';

const STORES = 'store,category,sales,lat,lng\nA,food,10,37.77,-122.41\nB,food,30,37.78,-122.42\nC,fuel,5,37.79,-122.43\nD,toys,7,37.80,-122.44\n';

/**
 * The workbook's runner against a real studio: each cell runs once, its result kept by content; an edit
 * runs the edited cell and the cells below that read it, nothing else; a bad step stops only what reads it.
 */
describe('WorkbookRunner', () => {
  const { ctx, tokenOf } = useRealStudio();
  const database = useWarehouse('wb_run', "create table sales (store text, category text, amount int); insert into sales values ('A', 'food', 10), ('B', 'food', 30), ('C', 'fuel', 5)");
  const studio = () => new StudioClient({ baseUrl: ctx.address, token: tokenOf('owner') });
  const upload = async () => {
    const res = await ctx.s.app.inject({ method: 'POST', url: '/v1/datasets/data?name=stores', headers: { authorization: ctx.cast.tokens.owner, 'content-type': 'text/csv' }, payload: STORES });
    return res.json().item.id as string;
  };
  const step = (id: string, name: string, node: Record<string, unknown>, inputs: string[] = []): WorkbookCell => ({ id, name, kind: 'step', collapsed: false, node: node as { type: string }, inputs });
  const workbook = (datasetId: string): WorkbookState =>
    parseWorkbookState({
      version: 1,
      cells: [
        step('c1', 'stores', { type: 'dataset', uuid: datasetId }),
        step('c2', 'no_toys', { type: 'filter', expression: "category != 'toys'" }, ['stores']),
        step('c3', 'by_category', { type: 'group', by: ['category'], expressions: ['sum(sales) AS total', 'count(*) AS n'] }, ['no_toys']),
        { id: 'c4', name: 'top', kind: 'sql', collapsed: false, query: 'select category, total from by_category order by total desc limit 1' },
        step('c5', 'sorted', { type: 'sort', by: ['store'] }, ['stores']),
        { id: 'c6', name: 'notes', kind: 'markdown', collapsed: false, text: '# Stores' },
      ],
    });
  const runAll = async (runner: WorkbookRunner, state: WorkbookState, only?: string) => {
    const seen: Record<string, CellStatus> = {};
    await runner.run(state, (id, s) => (seen[id] = s), { only });
    return seen;
  };
  const rowsOf = (s: CellStatus | undefined) => (s?.state === 'done' ? s.result.rows : s);

  it('runs every cell once, with the rows, types and counts each one made', async () => {
    const runner = new WorkbookRunner(studio());
    const state = workbook(await upload());
    const seen = await runAll(runner, state);
    expect(rowsOf(seen.c3)).toEqual([{ category: 'food', total: 40, n: 2 }, { category: 'fuel', total: 5, n: 1 }].map((r) => expect.objectContaining(r)).slice(0, 2).length === 2 ? expect.arrayContaining([expect.objectContaining({ category: 'food', total: 40, n: 2 }), expect.objectContaining({ category: 'fuel', total: 5, n: 1 })]) : []);
    expect(rowsOf(seen.c4)).toEqual([{ category: 'food', total: 40 }]);
    const first = seen.c1?.state === 'done' ? seen.c1.result : null;
    expect(first).toMatchObject({ rowCount: 4, ref: state.cells[0]!.kind === 'step' ? state.cells[0]!.node.uuid : '', expiresAt: null, engine: 'DuckDB' });
    expect(first!.columns.map((c) => c.name)).toEqual(['store', 'category', 'sales', 'lat', 'lng']);
    expect(seen.c2?.state === 'done' && seen.c2.result).toMatchObject({ rowCount: 3, ref: expect.stringMatching(/^temp_/) });
    expect(seen.c6).toBeUndefined();
    expect([...runner.runs]).toEqual([['c1', 1], ['c2', 1], ['c3', 1], ['c4', 1], ['c5', 1]]);
  });

  it('runs again only the edited cell and the cells below that read it', async () => {
    const runner = new WorkbookRunner(studio());
    const state = workbook(await upload());
    await runAll(runner, state);
    const filter = state.cells[1]!;
    const edited = reduce(state, { type: 'update', cell: { ...filter, node: { type: 'filter', expression: "category != 'fuel'" } } as WorkbookCell });
    const seen = await runAll(runner, edited, 'c2');
    expect(Object.keys(seen).sort()).toEqual(['c2', 'c3', 'c4']);
    expect(rowsOf(seen.c4)).toEqual([{ category: 'food', total: 40 }]);
    expect(Object.fromEntries(runner.runs)).toEqual({ c1: 1, c2: 2, c3: 2, c4: 2, c5: 1 });
    // Running everything now runs nothing: every cell's content and inputs are as they ran.
    await runAll(runner, edited);
    expect(Object.fromEntries(runner.runs)).toEqual({ c1: 1, c2: 2, c3: 2, c4: 2, c5: 1 });
    // Back to the first filter: its results are still known.
    await runAll(runner, state);
    expect(Object.fromEntries(runner.runs)).toEqual({ c1: 1, c2: 2, c3: 2, c4: 2, c5: 1 });
  });

  it('from its threshold of live views, a cell run again supersedes its last view: the server drops it, the cache forgets it', async () => {
    const runner = new WorkbookRunner(studio(), Date.now, 0);
    const state = workbook(await upload());
    const seen = await runAll(runner, state);
    const before = seen.c2?.state === 'done' ? seen.c2.result.ref : '';
    const ownerId = ctx.cast.users.owner.id;
    expect(() => ctx.s.services.tempViews.fileOf(ownerId, before)).not.toThrow();
    const edited = reduce(state, { type: 'update', cell: { ...state.cells[1]!, node: { type: 'filter', expression: "category != 'fuel'" } } as WorkbookCell });
    const again = await runAll(runner, edited, 'c2');
    expect(rowsOf(again.c4)).toEqual([{ category: 'food', total: 40 }]);
    expect(() => ctx.s.services.tempViews.fileOf(ownerId, before)).toThrow(/not found or expired/);
    // Undoing the edit runs the filter again (its old view is gone) instead of naming a view that no longer answers.
    const back = await runAll(runner, state, 'c2');
    expect(rowsOf(back.c4)).toEqual([{ category: 'food', total: 40 }]);
    expect(Object.fromEntries(runner.runs)).toMatchObject({ c2: 3, c3: 3, c4: 3 });
  });

  it("shows an invalid step's validator message and leaves the cells that read it stale", async () => {
    const runner = new WorkbookRunner(studio());
    const state = workbook(await upload());
    const broken = reduce(state, { type: 'update', cell: { ...state.cells[1]!, node: { type: 'limit', length: 0 } } as WorkbookCell });
    const seen = await runAll(runner, broken);
    expect(seen.c2).toEqual({ state: 'error', message: 'limit node: length must be an integer above 0' });
    expect(seen.c3).toEqual({ state: 'stale', reason: 'Waiting for no_toys to run without errors' });
    expect(seen.c4).toEqual({ state: 'stale', reason: 'Waiting for by_category to run without errors' });
    expect(seen.c5?.state).toBe('done');
  });

  it('refuses a cell that reads a later or a missing cell, by name', async () => {
    const runner = new WorkbookRunner(studio());
    const state = workbook(await upload());
    const later = reduce(state, { type: 'update', cell: { ...state.cells[1]!, inputs: ['sorted'] } as WorkbookCell });
    expect((await runAll(runner, later)).c2).toEqual({ state: 'error', message: 'no_toys reads sorted, which comes after it: move sorted above' });
    const missing = reduce(state, { type: 'update', cell: { ...state.cells[1]!, inputs: ['nowhere'] } as WorkbookCell });
    expect((await runAll(runner, missing)).c2).toEqual({ state: 'error', message: 'no_toys reads nowhere, which is not a cell of this workbook' });
  });

  it('makes an input again when its view has gone, and says so in its run count', async () => {
    const runner = new WorkbookRunner(studio());
    const state = workbook(await upload());
    const seen = await runAll(runner, state);
    const view = seen.c3?.state === 'done' ? seen.c3.result.ref : '';
    await ctx.s.services.tempViews.drop(view);
    const sql = state.cells[3]!;
    const edited = reduce(state, { type: 'update', cell: { ...sql, query: 'select count(*) as k from by_category' } as WorkbookCell });
    const again = await runAll(runner, edited, 'c4');
    expect(rowsOf(again.c4)).toEqual([{ k: 2 }]);
    expect(Object.fromEntries(runner.runs)).toMatchObject({ c2: 1, c3: 2, c4: 2 });
  });

  it('pushes steps over a live dataset down to its warehouse, and says where each cell ran', async () => {
    const owner = { authorization: ctx.cast.tokens.owner };
    const conn = await ctx.s.app.inject({ method: 'POST', url: '/v1/data-connections', headers: owner, payload: { name: 'wh', ...warehouseConnection(database) } });
    const live = await ctx.s.app.inject({ method: 'POST', url: '/v1/datasets/query', headers: owner, payload: { name: 'live sales', connectionId: conn.json().item.id, query: 'select * from sales', live: true } });
    expect(live.statusCode, live.body).toBe(201);
    // The warehouse changes after the snapshot: a pushed-down step sees the new row, DuckDB over the snapshot would not.
    const { Client } = (await import('pg')).default;
    const { host, port, user } = warehouseConnection(database);
    const pg = new Client({ host, port, user, database });
    await pg.connect();
    await pg.query("insert into sales values ('D', 'toys', 70)");
    await pg.end();
    const state = parseWorkbookState({
      version: 1,
      cells: [
        step('c1', 'sales', { type: 'dataset', uuid: live.json().item.id }),
        step('c2', 'big', { type: 'filter', expression: 'amount > 6' }, ['sales']),
        step('c3', 'by_category', { type: 'group', by: ['category'], expressions: ['sum(amount) AS total'] }, ['big']),
        step('c4', 'hexes', { type: 'select', expressions: ['category', 'h3_latlng_to_cell(1.0, 2.0, 5) AS hex'] }, ['by_category']),
        // initcap is PostgreSQL's, not DuckDB's: this cell runs on the warehouse or not at all.
        { id: 'c5', name: 'top', kind: 'sql', collapsed: false, query: 'select initcap(category) as category from by_category order by total desc limit 1' },
        { id: 'c6', name: 'mixed', kind: 'sql', collapsed: false, query: 'select count(*) as n from hexes join by_category using (category)' },
      ],
    });
    const seen = await runAll(new WorkbookRunner(studio()), state);
    const where = Object.fromEntries(Object.entries(seen).map(([id, s]) => [id, s.state === 'done' ? s.result.engine : s]));
    // A cell DuckDB computed over a warehouse's results says they were fetched (the H3 step falls back, the mixed join).
    const fetched = 'DuckDB, over results fetched from postgres';
    expect(where).toEqual({ c1: 'DuckDB', c2: 'postgres (warehouse)', c3: 'postgres (warehouse)', c4: fetched, c5: 'postgres (warehouse)', c6: fetched });
    expect(rowsOf(seen.c5)).toEqual([{ category: 'Toys' }]);
    // food and toys: fuel (5) is under the filter.
    expect(rowsOf(seen.c6)).toEqual([{ n: 2 }]);
  });

  it("keeps SQL away from files and extensions: the sandbox's refusal shows in the cell", async () => {
    const runner = new WorkbookRunner(studio());
    const state = workbook(await upload());
    const evil = reduce(state, { type: 'update', cell: { ...state.cells[3]!, query: "select * from read_csv('/etc/passwd')" } as WorkbookCell });
    const seen = await runAll(runner, evil, 'c4');
    expect(seen.c4).toEqual({ state: 'error', message: expect.stringContaining('Table functions are not allowed in queries: read_csv') });
  });
});
