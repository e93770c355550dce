import { describe, expect, it } from 'vitest';
import { STORES, useStudio } from './harness';

/**
 * A workbook's saved state (`{version: 1, cells}`, packages/schema/src/workbooks.ts) is checked by the server
 * as a dashboard's is: a state the studio cannot open is refused with 422 and the saved one stays; an
 * earlier version is brought to the current one before it is kept.
 */
const sql = (id: string, name: string, query: string) => ({ id, name, kind: 'sql', query, collapsed: false });
const V1 = { version: 1, cells: [sql('c1', 'stores', 'select 1 as n'), { id: 'c2', name: 'notes', kind: 'markdown', text: '# Notes', collapsed: false }] };

describe.each(STORES)('workbook state (%s)', (store) => {
  const { as, create } = useStudio(store);

  it('keeps a valid state and answers it as saved', async () => {
    const wb = await create('/v1/workbooks', { name: 'Stores', latestState: V1 });
    expect(wb.latestState).toEqual(V1);
    expect((await as('owner', 'GET', `/v1/workbooks/${wb.id}`)).json().item.latestState).toEqual(V1);
  });

  it('brings a version 0 state (a bare list of cells, inputs inside the node) to version 1', async () => {
    const v0 = [sql('c1', 'a', 'select 1'), { id: 'c2', name: 'b', kind: 'step', node: { type: 'limit', input: ['a'], props: { count: 5 } } }];
    const wb = await create('/v1/workbooks', { name: 'Old', latestState: v0 });
    expect(wb.latestState).toEqual({ version: 1, cells: [sql('c1', 'a', 'select 1'), { id: 'c2', name: 'b', kind: 'step', node: { type: 'limit', props: { count: 5 } }, inputs: ['a'], collapsed: false }] });
  });

  it.each([
    ['a cell of an unknown kind', { version: 1, cells: [{ id: 'c1', name: 'x', kind: 'video' }] }, /^Invalid workbook state: cells\.0/],
    ['two cells with one name', { version: 1, cells: [sql('c1', 'same', 'select 1'), sql('c2', 'SAME', 'select 2')] }, /Two cells are named SAME/],
    ['a cell name that is not a table name', { version: 1, cells: [sql('c1', 'my cell', 'select 1')] }, /Cell names are letters, digits and underscores/],
    ['a state from a newer studio', { version: 7, cells: [] }, /saved by a newer studio \(state version 7; this studio reads up to 1\)/],
    ['text', 'cells', /Invalid workbook state: not an object/],
  ])('refuses %s with 422 and keeps the saved state', async (_label, state, message) => {
    const wb = await create('/v1/workbooks', { name: 'Kept', latestState: V1 });
    const res = await as('owner', 'PUT', `/v1/workbooks/${wb.id}`, { latestState: state });
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toMatch(message);
    expect((await as('owner', 'GET', `/v1/workbooks/${wb.id}`)).json().item.latestState).toEqual(V1);
    const created = await as('owner', 'POST', '/v1/workbooks', { name: 'Refused', latestState: state });
    expect(created.statusCode).toBe(422);
  });
});
