import { describe, expect, it } from 'vitest';
import { Float64, Int32, Int64, Table, Type, Utf8, tableFromIPC, tableToIPC, vectorFromArray } from 'apache-arrow';
import { int64ColumnsAsNumbers } from '../src/map/arrow-numbers';

/** A table as the server sends it: through IPC, so batches and offsets are the real ones. */
const overTheWire = (t: Table) => tableFromIPC(tableToIPC(t, 'stream'));

describe('64-bit integer columns for the map', () => {
  it.each([
    ['small values and a null: 32-bit integers', [1n, null, -3n, 42n], [1, null, -3, 42], Type.Int],
    ['the 32-bit bounds: still integers', [2n ** 31n - 1n, -(2n ** 31n)], [2 ** 31 - 1, -(2 ** 31)], Type.Int],
    ['one value past 32 bits: doubles', [2n ** 31n, 1n], [2 ** 31, 1], Type.Float],
    ['values up to 2^53 stay exact', [2n ** 53n, -(2n ** 53n), 0n], [2 ** 53, -(2 ** 53), 0], Type.Float],
  ])('turns a BIGINT column into JS numbers: %s', (_label, ints, expected, typeId) => {
    const table = overTheWire(new Table({ id: vectorFromArray(ints, new Int64()), name: vectorFromArray(ints.map((_, i) => `n${i}`), new Utf8()) }));
    const out = new Table(int64ColumnsAsNumbers(table));
    expect(out.schema.fields.map((f) => [f.name, f.type.typeId])).toEqual([['id', typeId], ['name', Type.Utf8]]);
    if (typeId === Type.Int) expect((out.schema.fields[0]!.type as Int32).bitWidth).toBe(32);
    expect(out.getChild('id')!.toArray().length).toBe(expected.length);
    expect([...out.getChild('id')!].map((v) => v)).toEqual(expected);
    expect([...out.getChild('name')!]).toEqual(ints.map((_, i) => `n${i}`));
  });

  it('keeps each batch (offsets included) when the table has several', () => {
    const a = new Table({ v: vectorFromArray([1n, 2n], new Int64()) });
    const b = new Table({ v: vectorFromArray([3n, null, 2n ** 40n], new Int64()) });
    const table = overTheWire(a.concat(b));
    const batches = int64ColumnsAsNumbers(table);
    expect(batches.map((x) => x.numRows)).toEqual(table.batches.map((x) => x.numRows));
    // A value past 32 bits in the second batch makes the whole column doubles.
    expect(batches.map((x) => x.schema.fields[0]!.type.typeId)).toEqual([Type.Float, Type.Float]);
    expect([...new Table(batches).getChild('v')!]).toEqual([1, 2, 3, null, 2 ** 40]);
  });

  it('hands back the same batches when no column is 64-bit', () => {
    const table = overTheWire(new Table({ x: vectorFromArray([1.5, 2.5], new Float64()), n: vectorFromArray([1, 2], new Int32()) }));
    expect(int64ColumnsAsNumbers(table)).toBe(table.batches);
  });
});
