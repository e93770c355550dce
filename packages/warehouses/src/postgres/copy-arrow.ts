/**
 * The COPY reader into Arrow's shared parts (the text format's rows are read in text-arrow.ts): the plan of a query's
 * columns (which PostgreSQL types are read natively and as what Arrow type, the rest selected as their
 * output text), the columns' typed buffers, and the batching into Arrow IPC. Built for the push-down
 * answers that a map loads whole (#14: a 1M-row result over HTTP at COPY speed): nothing is created per
 * row; values go from the wire bytes into typed buffers reused from batch to batch.
 *
 * The plan keeps each column as the text path (CSV typed by DuckDB) would type it; TIME columns, whose
 * text DuckDB re-formats, are left to that text path (`arrowPlan` answers null).
 */
import { Bool, DateDay, Field, Float32, Float64, Int16, Int32, Int64, RecordBatch, RecordBatchStreamWriter, Schema, Struct, TimeUnit, Timestamp, Utf8, makeData, type Data, type DataType } from 'apache-arrow';

/**
 * What one column holds and how a COPY reader fills it: integers, floats, numerics (as the nearest double),
 * `oid` widened to int64 (DuckDB's BIGINT for oid), days and microseconds since 1970-01-01, booleans, text.
 */
export type Reader = 'int16' | 'int32' | 'int64' | 'oid' | 'float32' | 'float64' | 'numeric' | 'date' | 'timestamp' | 'bool' | 'text';

export interface ArrowColumnPlan {
  name: string;
  /** The column as COPY selects it. */
  select: string;
  arrow: DataType;
  reader: Reader;
}

export const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Arrow type and reader per PostgreSQL type oid, matching DuckDB's typing of the same column's text. */
function nativeOf(oid: number): { arrow: DataType; reader: Reader } | 'text-path' | null {
  switch (oid) {
    case 16:
      return { arrow: new Bool(), reader: 'bool' };
    case 21:
      return { arrow: new Int16(), reader: 'int16' };
    case 23:
      return { arrow: new Int32(), reader: 'int32' };
    case 20:
      return { arrow: new Int64(), reader: 'int64' };
    case 26:
      return { arrow: new Int64(), reader: 'oid' };
    case 700:
      return { arrow: new Float32(), reader: 'float32' };
    case 701:
      return { arrow: new Float64(), reader: 'float64' };
    // numeric as DuckDB types its text: a double, correctly rounded (parsed here; a ::float8 cast on the
    // warehouse cost a quarter of a 1M-row COPY on its one core).
    case 1700:
      return { arrow: new Float64(), reader: 'numeric' };
    case 1082:
      return { arrow: new DateDay(), reader: 'date' };
    case 1114:
      return { arrow: new Timestamp(TimeUnit.MICROSECOND), reader: 'timestamp' };
    case 1184:
      return { arrow: new Timestamp(TimeUnit.MICROSECOND, 'UTC'), reader: 'timestamp' };
    // text, varchar, char (padded, as its output function gives it), name.
    case 25:
    case 1043:
    case 1042:
    case 19:
      return { arrow: new Utf8(), reader: 'text' };
    // TIME: DuckDB re-formats its text; the text path types it.
    case 1083:
      return null;
    default:
      return 'text-path';
  }
}

/**
 * The COPY select list and Arrow schema of a query whose result columns have these names and type oids,
 * or null when a column is read only by the text path. Repeated names get `_1`, `_2`, … as the text path's.
 */
export function arrowPlan(fields: readonly { name: string; dataTypeID: number }[]): ArrowColumnPlan[] | null {
  const plans: ArrowColumnPlan[] = [];
  for (let k = 0; k < fields.length; k++) {
    const f = fields[k]!;
    const native = nativeOf(f.dataTypeID);
    if (native === null) return null;
    const name = f.name || `column${k}`;
    const before = fields.slice(0, k).filter((g) => (g.name || '') === f.name).length;
    // Columns are addressed by position (c0…): the user's names may repeat or be empty.
    const col = `studio_q.${quoteIdent(`c${k}`)}`;
    // Any other type is read as its output text, as COPY writes it (and the text path reads it).
    const { arrow, reader } = native === 'text-path' ? { arrow: new Utf8(), reader: 'text' as const } : native;
    plans.push({ name: before ? `${name}_${before}` : name, select: col, arrow, reader });
  }
  return plans;
}

export const WIDTH: Record<Reader, number> = { int16: 2, int32: 4, int64: 8, oid: 8, float32: 4, float64: 8, numeric: 8, date: 4, timestamp: 8, bool: 1, text: 0 };
/**
 * One column's buffers for a batch, reused from batch to batch (each serialised batch is copied out).
 * Every typed view is a property of its own, so each read site in the decoder sees one array kind.
 */
export class ColumnBuffers {
  readonly i16: Int16Array;
  readonly i32: Int32Array;
  readonly u32: Uint32Array;
  readonly f32: Float32Array;
  readonly f64: Float64Array;
  readonly bytes: Uint8Array;
  readonly offsets: Int32Array;
  /** Text bytes (grown as needed); `used` of them hold this batch's values. */
  text: Uint8Array;
  used = 0;
  /** Validity bits, made once a null shows up in the batch (all set before it). */
  nulls: Uint8Array | null = null;

  constructor(
    readonly reader: Reader,
    readonly type: DataType,
    private readonly capacity: number,
  ) {
    const fixed = new ArrayBuffer(reader === 'bool' ? Math.ceil(capacity / 8) : capacity * WIDTH[reader]);
    this.i16 = new Int16Array(fixed, 0, reader === 'int16' ? capacity : 0);
    const words = WIDTH[reader] >= 4 ? (capacity * WIDTH[reader]) / 4 : 0;
    this.i32 = new Int32Array(fixed, 0, words);
    this.u32 = new Uint32Array(fixed, 0, words);
    this.f32 = new Float32Array(fixed, 0, reader === 'float32' ? capacity : 0);
    this.f64 = new Float64Array(fixed, 0, reader === 'float64' || reader === 'numeric' ? capacity : 0);
    this.bytes = new Uint8Array(fixed);
    this.offsets = new Int32Array(reader === 'text' ? capacity + 1 : 0);
    this.text = new Uint8Array(reader === 'text' ? capacity * 16 : 0);
  }

  setNull(row: number): void {
    this.nulls ??= new Uint8Array(Math.ceil(this.capacity / 8)).fill(0xff);
    this.nulls[row >> 3]! &= ~(1 << (row & 7));
    if (this.reader === 'text') this.offsets[row + 1] = this.used;
    else if (this.reader !== 'bool') this.bytes.fill(0, row * WIDTH[this.reader], (row + 1) * WIDTH[this.reader]);
  }

  /** Room for `len` more text bytes. */
  reserve(len: number): Uint8Array {
    if (this.used + len > this.text.length) {
      let size = this.text.length * 2;
      while (size < this.used + len) size *= 2;
      const next = new Uint8Array(size);
      next.set(this.text.subarray(0, this.used));
      this.text = next;
    }
    return this.text;
  }

  /** Data over these buffers: valid until the batch is serialised. */
  finish(rows: number): Data {
    const nullBitmap = this.nulls ? this.nulls.subarray(0, Math.ceil(rows / 8)) : undefined;
    this.nulls = null;
    if (this.reader === 'text') {
      const out = makeData({ type: new Utf8(), length: rows, nullBitmap, valueOffsets: this.offsets.subarray(0, rows + 1), data: this.text.subarray(0, this.used) });
      this.used = 0;
      return out;
    }
    if (this.reader === 'bool') return makeData({ type: new Bool(), length: rows, nullBitmap, data: this.bytes.subarray(0, Math.ceil(rows / 8)) });
    const ctor = (this.type as unknown as { ArrayType: new (b: ArrayBuffer, o: number, l: number) => ArrayLike<number> }).ArrayType;
    return makeData({ type: this.type, length: rows, nullBitmap, data: new ctor(this.bytes.buffer as ArrayBuffer, 0, rows) } as never);
  }

  /** After serialising: bool bits are only ever set, so they start clear again. */
  reset(): void {
    if (this.reader === 'bool') this.bytes.fill(0);
  }
}


/** Text bytes a batch may hold before it is closed early (Utf8 offsets are Int32; batches stay small). */
const MAX_BATCH_TEXT_BYTES = 256 << 20;

/**
 * A COPY stream (any chunking) to Arrow IPC stream bytes: the schema first, then one record batch per
 * `batchRows` rows; `end()` closes the stream. Subclasses read their format's rows with `write()` and call
 * `rowDone()` after each; `rows` counts the rows read so far.
 */
export abstract class CopyToArrow {
  rows = 0;
  protected readonly columns: ColumnBuffers[];
  /** Rows held in the batch being filled. */
  protected held = 0;
  /** The end of the data was seen (the text format: the CopyDone the framing saw). */
  protected ended = false;
  /** Bytes of a row cut by the end of a call, joined with the next call's. */
  protected pending: Buffer | null = null;
  private readonly schema: Schema;
  private readonly hasText: boolean;
  private readonly writer = new RecordBatchStreamWriter();
  private readonly ready: Uint8Array[] = [];

  constructor(
    plans: readonly ArrowColumnPlan[],
    private readonly batchRows = 65536,
  ) {
    this.schema = new Schema(plans.map((p) => new Field(p.name, p.arrow, true)));
    this.columns = plans.map((p) => new ColumnBuffers(p.reader, p.arrow, batchRows));
    this.hasText = plans.some((p) => p.reader === 'text');
  }

  /**
   * Reads bytes [start, end) of `src` (a CopyData payload, or any piece of the stream); filled batches wait
   * in takeReady(). No allocation per call unless a row straddles two calls.
   */
  abstract write(src: Buffer, start: number, end: number): void;

  /** The framing saw the end of the COPY (CopyDone); formats without a trailer of their own end here. */
  streamDone(): void {}

  /** Reads what `chunk` completes; answers the IPC bytes of the batches it filled (often none). */
  push(chunk: Buffer): Uint8Array[] {
    this.write(chunk, 0, chunk.length);
    return this.takeReady();
  }

  /** The IPC bytes of the batches filled since the last call. */
  takeReady(): Uint8Array[] {
    return this.ready.splice(0);
  }

  /** The last batch and the end-of-stream marker; an empty result still carries its schema. */
  end(): Uint8Array[] {
    if (!this.ended || this.pending) throw new Error('The COPY stream ended early');
    const out = this.takeReady();
    if (this.held || !this.rows) out.push(...this.flush());
    this.writer.finish();
    out.push(...this.drain());
    return out;
  }

  /** Counts a row read into the columns; closes the batch when it is full. */
  protected rowDone(): void {
    this.rows++;
    this.held++;
    if (this.held >= this.batchRows || (this.hasText && this.columns.some((col) => col.used > MAX_BATCH_TEXT_BYTES))) this.ready.push(...this.flush());
  }

  private flush(): Uint8Array[] {
    const rows = this.held;
    this.held = 0;
    const children = this.columns.map((c) => c.finish(rows));
    this.writer.write(new RecordBatch(this.schema, makeData({ type: new Struct(this.schema.fields), length: rows, nullCount: 0, children })));
    const bytes = this.drain(); // copies: the columns' buffers are free again
    for (const c of this.columns) c.reset();
    return bytes;
  }

  /** The writer's pending bytes as one array (its sink holds views of the batch buffers and metadata). */
  private drain(): Uint8Array[] {
    const sink = (this.writer as unknown as { _sink: { _values: Uint8Array[] } })._sink;
    const parts = sink._values.splice(0);
    return parts.length ? [Buffer.concat(parts)] : [];
  }
}
