import { describe, expect, it } from 'vitest';
import { Float64, Int32, Int64, Table, Type, Utf8, tableFromIPC, tableToIPC, vectorFromArray } from 'apache-arrow';
import { int64ColumnsAsFloat64 } from '../src/map/arrow-numbers';

/** A table as the server sends it: through IPC, so batches and offsets are the real ones. */
const overTheWire = (t: Table) => tableFromIPC(tableToIPC(t, 'stream'));

describe('64-bit integer columns for the map', () => {
  it.each([
    ['small values and a null', [1n, null, -3n, 42n], [1, null, -3, 42]],
    ['values up to 2^53 stay exact', [2n ** 53n, -(2n ** 53n), 0n], [2 ** 53, -(2 ** 53), 0]],
  ])('turns a BIGINT column into doubles: %s', (_label, ints, expected) => {
    const table = overTheWire(new Table({ id: vectorFromArray(ints, new Int64()), name: vectorFromArray(ints.map((_, i) => `n${i}`), new Utf8()) }));
    const out = new Table(int64ColumnsAsFloat64(table));
    expect(out.schema.fields.map((f) => [f.name, f.type.typeId])).toEqual([['id', Type.Float], ['name', Type.Utf8]]);
    expect(out.getChild('id')!.toArray().length).toBe(expected.length);
    expect([...out.getChild('id')!].map((v) => v)).toEqual(expected);
    expect([...out.getChild('name')!]).toEqual(ints.map((_, i) => `n${i}`));
  });

  it('keeps each batch (offsets included) when the table has several', () => {
    const a = new Table({ v: vectorFromArray([1n, 2n], new Int64()) });
    const b = new Table({ v: vectorFromArray([3n, null, 5n], new Int64()) });
    const table = overTheWire(a.concat(b));
    const batches = int64ColumnsAsFloat64(table);
    expect(batches.map((x) => x.numRows)).toEqual(table.batches.map((x) => x.numRows));
    expect([...new Table(batches).getChild('v')!]).toEqual([1, 2, 3, null, 5]);
  });

  it('hands back the same batches when no column is 64-bit', () => {
    const table = overTheWire(new Table({ x: vectorFromArray([1.5, 2.5], new Float64()), n: vectorFromArray([1, 2], new Int32()) }));
    expect(int64ColumnsAsFloat64(table)).toBe(table.batches);
  });
});
