import { Field, Float64, RecordBatch, Schema, Struct, Type, makeData, type Data, type DataType, type Table } from 'apache-arrow';

/** Whether a column holds 64-bit integers, which Arrow JS reads as BigInt. */
const isInt64 = (type: DataType) => type.typeId === Type.Int && (type as unknown as { bitWidth: number }).bitWidth === 64;

/** One 64-bit integer column chunk as doubles: same nulls, values exact up to 2^53. */
function int64ChunkAsFloat64(data: Data): Data<Float64> {
  const ints = data.values as BigInt64Array | BigUint64Array;
  const doubles = new Float64Array(data.length);
  for (let i = 0; i < data.length; i++) doubles[i] = Number(ints[data.offset + i]!);
  return makeData({ type: new Float64(), length: data.length, nullCount: data.nullCount, nullBitmap: data.nullBitmap, offset: 0, data: doubles }) as Data<Float64>;
}

/**
 * kepler.gl computes scales, filters and histograms with JS numbers; a BIGINT column (DuckDB reads any
 * integer CSV column as one) comes out of Arrow as BigInt and fails there ("Cannot convert a BigInt
 * value to a number"), so coloring or filtering by such a field did nothing. The map turns those
 * columns into doubles, chunk by chunk (one typed-array pass, no row objects); counts, ids and
 * measures stay exact up to 2^53. Tables without such columns are returned as they are.
 */
export function int64ColumnsAsFloat64(table: Table): RecordBatch[] {
  const fields = table.schema.fields;
  if (!fields.some((f) => isInt64(f.type))) return table.batches;
  const schema = new Schema(
    fields.map((f) => (isInt64(f.type) ? new Field(f.name, new Float64(), f.nullable, f.metadata) : f)),
    table.schema.metadata,
  );
  return table.batches.map((batch) => {
    const children = batch.data.children.map((child, i) => (isInt64(fields[i]!.type) ? int64ChunkAsFloat64(child) : child));
    return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: batch.numRows, nullCount: 0, children }));
  });
}
