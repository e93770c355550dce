/**
 * PostgreSQL's binary COPY stream (`COPY (…) TO STDOUT (FORMAT binary)`) read into Arrow batches: values
 * straight from their binary form (big-endian integers and IEEE floats, numerics to the nearest double,
 * days and microseconds moved from PostgreSQL's epoch, 2000-01-01, to 1970-01-01). See copy-arrow.ts.
 */
import { CopyToArrow, POW10, quoteIdent, type ArrowColumnPlan } from './copy-arrow';

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

/** Feeds binary COPY data (any chunking) and answers Arrow IPC stream bytes (see CopyToArrow). */
export class BinaryCopyToArrow extends CopyToArrow {
  private view: DataView | null = null;
  private viewOf: Buffer | null = null;
  private headerRead = false;

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
      this.rowDone();
    }
    if (pos < end) this.pending = Buffer.from(buf.subarray(pos, end));
  }
}
