/**
 * PostgreSQL's binary COPY stream (`COPY (…) TO STDOUT (FORMAT binary)`) straight to Arrow IPC record
 * batches, as the rows arrive: no CSV text written, parsed and cast, and nothing created per row (values
 * are read from the wire bytes into the columns' typed buffers). Built for the push-down answers that a
 * map loads whole (#14: a 1M-row result over HTTP at COPY speed).
 *
 * Only types whose binary form is fixed and simple are read natively (numeric too, to the nearest double);
 * any other type (JSON, UUID, intervals, arrays…) is selected as its output text, so each column is
 * read the way the text path (CSV through DuckDB) would have typed it. TIME columns, whose text DuckDB
 * re-formats, are left to that text path (`arrowPlan` answers null): both paths answer the same values.
 */
import { Bool, DateDay, Field, Float32, Float64, Int16, Int32, Int64, RecordBatch, RecordBatchStreamWriter, Schema, Struct, TimeUnit, Timestamp, Utf8, makeData, type Data, type DataType } from 'apache-arrow';

/**
 * How one column's binary values are read: big-endian integers and IEEE floats as they are; `oid` (uint32)
 * widened to int64 (DuckDB's BIGINT for oid); `date` days and `timestamp` microseconds moved from
 * PostgreSQL's epoch (2000-01-01) to Arrow's (1970-01-01); text as its UTF-8 bytes.
 */
type Reader = 'int16' | 'int32' | 'int64' | 'oid' | 'float32' | 'float64' | 'numeric' | 'date' | 'timestamp' | 'bool' | 'text';

export interface ArrowColumnPlan {
  name: string;
  /** The column as COPY selects it (its output text where the binary form is not read natively). */
  select: string;
  arrow: DataType;
  reader: Reader;
}

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

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
    // numeric as DuckDB types its text: a double, correctly rounded (read here; a cast in PostgreSQL cost a
    // quarter of a 1M-row COPY on the warehouse's one core).
    case 1700:
      return { arrow: new Float64(), reader: 'numeric' };
    case 1082:
      return { arrow: new DateDay(), reader: 'date' };
    case 1114:
      return { arrow: new Timestamp(TimeUnit.MICROSECOND), reader: 'timestamp' };
    case 1184:
      return { arrow: new Timestamp(TimeUnit.MICROSECOND, 'UTC'), reader: 'timestamp' };
    // text, varchar, char (padded, as its output function gives it), name: their binary form is the text.
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
    // The type's output function, as COPY CSV writes it: `::text` differs for some (inet keeps its mask).
    const asText = `CASE WHEN ${col} IS NULL THEN NULL ELSE format('%s', ${col}) END`;
    if (native === 'text-path') plans.push({ name: before ? `${name}_${before}` : name, select: asText, arrow: new Utf8(), reader: 'text' });
    else plans.push({ name: before ? `${name}_${before}` : name, select: col, arrow: native.arrow, reader: native.reader });
  }
  return plans;
}

/** `COPY` of `sql` with its columns renamed c0…cN and selected per plan. */
export function binaryCopySql(sql: string, plans: readonly ArrowColumnPlan[]): string {
  const names = plans.map((_p, k) => quoteIdent(`c${k}`)).join(', ');
  return `COPY (SELECT ${plans.map((p) => p.select).join(', ')} FROM (${sql}) AS studio_q(${names})) TO STDOUT (FORMAT binary)`;
}

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const DAYS_2000 = 10957; // 1970-01-01 .. 2000-01-01
const MICROS_2000 = 946_684_800_000_000;
const MICROS_2000_HI = Math.floor(MICROS_2000 / 2 ** 32);
const MICROS_2000_LO = MICROS_2000 % 2 ** 32;
const WIDTH: Record<Reader, number> = { int16: 2, int32: 4, int64: 8, oid: 8, float32: 4, float64: 8, numeric: 8, date: 4, timestamp: 8, bool: 1, text: 0 };
/** Exact powers of ten as doubles (10^22 is the largest). */
const POW10 = Array.from({ length: 23 }, (_x, k) => 10 ** k);
const NUMERIC_NEG = 0x4000;
const NUMERIC_NAN = 0xc000;
const NUMERIC_PINF = 0xd000;
const NUMERIC_NINF = 0xf000;

/**
 * A numeric's binary form (ndigits, weight, sign, dscale, then base-10000 digits) as the double nearest its
 * value, as DuckDB's cast of its text gives: exact integer digits up to 2^53 scaled by at most 10^22 is one
 * correctly rounded operation (Clinger's fast path); anything else goes through its decimal text.
 */
function numericAt(view: DataView, p: number): number {
  const ndigits = view.getInt16(p);
  const weight = view.getInt16(p + 2);
  const sign = view.getUint16(p + 4);
  if (sign === NUMERIC_NAN) return NaN;
  if (sign === NUMERIC_PINF) return Infinity;
  if (sign === NUMERIC_NINF) return -Infinity;
  let m = 0;
  let exact = true;
  for (let k = 0; k < ndigits; k++) {
    if (m > 900719925474) exact = false; // m * 10000 + 9999 could pass 2^53
    m = m * 10000 + view.getInt16(p + 8 + 2 * k);
  }
  const e = 4 * (weight - ndigits + 1);
  let v: number;
  if (exact && e >= -22 && e <= 22) v = e >= 0 ? m * POW10[e]! : m / POW10[-e]!;
  else {
    let digits = '';
    for (let k = 0; k < ndigits; k++) digits += String(view.getInt16(p + 8 + 2 * k)).padStart(4, '0');
    v = Number(`${digits || '0'}e${e}`);
  }
  return sign === NUMERIC_NEG ? -v : v;
}

/**
 * One column's buffers for a batch, reused from batch to batch (each serialised batch is copied out).
 * Every typed view is a property of its own, so each read site in the decoder sees one array kind.
 */
class ColumnBuffers {
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
 * Feeds binary COPY data (any chunking) and answers Arrow IPC stream bytes: the schema first, then one
 * record batch per `batchRows` rows; `end()` closes the stream. `rows` counts the rows read so far.
 */
export class BinaryCopyToArrow {
  rows = 0;
  private readonly schema: Schema;
  private readonly columns: ColumnBuffers[];
  private readonly hasText: boolean;
  private readonly writer = new RecordBatchStreamWriter();
  private pending: Buffer | null = null;
  private readonly ready: Uint8Array[] = [];
  private view: DataView | null = null;
  private viewOf: Buffer | null = null;
  private headerRead = false;
  private ended = false;
  private held = 0;

  constructor(
    plans: readonly ArrowColumnPlan[],
    private readonly batchRows = 65536,
  ) {
    this.schema = new Schema(plans.map((p) => new Field(p.name, p.arrow, true)));
    this.columns = plans.map((p) => new ColumnBuffers(p.reader, p.arrow, batchRows));
    this.hasText = plans.some((p) => p.reader === 'text');
  }

  /** Reads what `chunk` completes; answers the IPC bytes of the batches it filled (often none). */
  push(chunk: Buffer): Uint8Array[] {
    this.write(chunk, 0, chunk.length);
    return this.takeReady();
  }

  /** The IPC bytes of the batches filled since the last call. */
  takeReady(): Uint8Array[] {
    return this.ready.splice(0);
  }

  /**
   * Reads bytes [start, end) of `src` (a CopyData payload, or any piece of the stream); filled batches wait
   * in takeReady(). No allocation per call unless a row straddles two calls.
   */
  write(src: Buffer, start: number, end: number): void {
    let buf = src;
    if (this.pending) {
      buf = Buffer.concat([this.pending, src.subarray(start, end)]);
      start = 0;
      end = buf.length;
      this.pending = null;
    }
    let pos = start;
    if (!this.headerRead) {
      const size = end - pos;
      const seen = Math.min(size, SIGNATURE.length);
      if (!buf.subarray(pos, pos + seen).equals(SIGNATURE.subarray(0, seen)) || (size >= 19 && buf.readInt32BE(pos + 15) < 0)) throw new Error('Not a PostgreSQL binary COPY stream');
      if (size < 19 || size < 19 + buf.readInt32BE(pos + 15)) {
        this.pending = Buffer.from(buf.subarray(pos, end));
        return;
      }
      pos += 19 + buf.readInt32BE(pos + 15);
      this.headerRead = true;
    }
    const out = this.ready;
    // One view per received buffer, not per call (a call per row when fed CopyData payloads).
    if (this.viewOf !== buf) {
      this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
      this.viewOf = buf;
    }
    const view = this.view!;
    const columns = this.columns;
    const n = columns.length;
    while (pos + 2 <= end) {
      const count = view.getInt16(pos);
      if (count === -1) {
        this.ended = true;
        pos += 2;
        break;
      }
      if (count !== n) throw new Error(`COPY row of ${count} fields, expected ${n}`);
      // A row is read only once all of it is here: its fields' lengths are walked first.
      let q = pos + 2;
      for (let c = 0; c < n && q <= end; c++) q = q + 4 > end ? end + 1 : q + 4 + Math.max(view.getInt32(q), 0);
      if (q > end) break;
      const row = this.held;
      let p = pos + 2;
      for (let c = 0; c < n; c++) {
        const len = view.getInt32(p);
        p += 4;
        const col = columns[c]!;
        if (len < 0) {
          col.setNull(row);
          continue;
        }
        switch (col.reader) {
          case 'int16':
            col.i16[row] = view.getInt16(p);
            break;
          case 'int32':
            col.i32[row] = view.getInt32(p);
            break;
          case 'float32':
            col.f32[row] = view.getFloat32(p);
            break;
          case 'float64':
            col.f64[row] = view.getFloat64(p);
            break;
          case 'numeric':
            col.f64[row] = numericAt(view, p);
            break;
          case 'int64':
            col.u32[row * 2] = view.getUint32(p + 4);
            col.i32[row * 2 + 1] = view.getInt32(p);
            break;
          case 'oid':
            col.u32[row * 2] = view.getUint32(p);
            col.u32[row * 2 + 1] = 0;
            break;
          case 'date': {
            const days = view.getInt32(p);
            // ±infinity become DuckDB's: the ends of the range, -infinity one above PostgreSQL's.
            col.i32[row] = days === 0x7fffffff ? days : days === -0x80000000 ? -0x7fffffff : days + DAYS_2000;
            break;
          }
          case 'timestamp': {
            const hi = view.getInt32(p);
            const lo = view.getUint32(p + 4);
            if ((hi === 0x7fffffff && lo === 0xffffffff) || (hi === -0x80000000 && lo === 0)) {
              col.i32[row * 2 + 1] = hi;
              col.u32[row * 2] = hi < 0 ? 1 : lo; // DuckDB's -infinity is one above the int64 minimum
              break;
            }
            const sum = lo + MICROS_2000_LO;
            const carry = sum >= 2 ** 32 ? 1 : 0;
            col.u32[row * 2] = sum - carry * 2 ** 32;
            col.i32[row * 2 + 1] = hi + MICROS_2000_HI + carry;
            break;
          }
          case 'bool':
            if (buf[p]) col.bytes[row >> 3]! |= 1 << (row & 7);
            break;
          case 'text': {
            const text = col.reserve(len);
            const at = col.used;
            // Short strings by hand: a native copy costs more than the bytes it moves.
            if (len <= 24) for (let k = 0; k < len; k++) text[at + k] = buf[p + k]!;
            else buf.copy(text, at, p, p + len);
            col.used = at + len;
            col.offsets[row + 1] = col.used;
            break;
          }
        }
        p += len;
      }
      pos = p;
      this.rows++;
      this.held++;
      if (this.held >= this.batchRows || (this.hasText && columns.some((col) => col.used > MAX_BATCH_TEXT_BYTES))) out.push(...this.flush());
    }
    if (pos < end) this.pending = Buffer.from(buf.subarray(pos, end));
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
