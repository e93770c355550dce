import { Field, Float64, Int32, RecordBatch, Schema, Struct, Type, makeData, type Data, type DataType, type Table } from 'apache-arrow';

/** Whether a column holds 64-bit integers, which Arrow JS reads as BigInt. */
const isInt64 = (type: DataType) => type.typeId === Type.Int && (type as unknown as { bitWidth: number }).bitWidth === 64;

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** Whether every value of the column's chunks fits a 32-bit integer (nulls hold whatever: they are not read). */
function fitsInt32(chunks: Data[]): boolean {
  for (const data of chunks) {
    const ints = data.values as BigInt64Array | BigUint64Array;
    for (let i = 0; i < data.length; i++) {
      const v = Number(ints[data.offset + i]!);
      if (v < INT32_MIN || v > INT32_MAX) return false;
    }
  }
  return true;
}

/** One 64-bit integer column chunk as 32-bit integers or doubles: same nulls; doubles exact up to 2^53. */
function int64Chunk(data: Data, to: 'int32' | 'float64'): Data<Int32 | Float64> {
  const ints = data.values as BigInt64Array | BigUint64Array;
  const common = { length: data.length, nullCount: data.nullCount, nullBitmap: data.nullBitmap, offset: 0 };
  if (to === 'int32') {
    const out = new Int32Array(data.length);
    for (let i = 0; i < data.length; i++) out[i] = Number(ints[data.offset + i]!);
    return makeData({ type: new Int32(), ...common, data: out });
  }
  const out = new Float64Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = Number(ints[data.offset + i]!);
  return makeData({ type: new Float64(), ...common, data: out });
}

/**
 * kepler.gl computes scales, filters and histograms with JS numbers; a BIGINT column (DuckDB reads any
 * integer CSV column as one) comes out of Arrow as BigInt and fails there ("Cannot convert a BigInt
 * value to a number"), so coloring or filtering by such a field did nothing. The map turns those
 * columns into numbers, chunk by chunk (typed-array passes, no row objects): 32-bit integers when every
 * value fits, so kepler still sees an integer field (tooltips and legends without decimals), doubles
 * otherwise, exact up to 2^53. Tables without such columns are returned as they are.
 */
export function int64ColumnsAsNumbers(table: Table): RecordBatch[] {
  const fields = table.schema.fields;
  if (!fields.some((f) => isInt64(f.type))) return table.batches;
  const target = fields.map((f, i) => (isInt64(f.type) ? (fitsInt32(table.batches.map((b) => b.data.children[i]!)) ? 'int32' : 'float64') : null));
  const schema = new Schema(
    fields.map((f, i) => (target[i] ? new Field(f.name, target[i] === 'int32' ? new Int32() : new Float64(), f.nullable, f.metadata) : f)),
    table.schema.metadata,
  );
  return table.batches.map((batch) => {
    const children = batch.data.children.map((child, i) => (target[i] ? int64Chunk(child, target[i]) : child));
    return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: batch.numRows, nullCount: 0, children }));
  });
}
