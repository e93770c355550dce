/**
 * PostgreSQL's text COPY stream (`COPY (…) TO STDOUT`: tab-separated fields, `\N` for NULL, backslash
 * escapes) read into Arrow batches. The warehouse writes text as fast as it writes anything (the binary
 * format cost it a fifth more on a 1M-row table: more bytes, a send function per value), and reading the
 * digits here costs less than that on the studio's side. Numbers are parsed to the nearest double as
 * DuckDB's cast of the same text would (exact digits up to 2^53 scaled by at most 10^22 is one correctly
 * rounded operation; anything else through Number()); dates and timestamps are ISO (the session sets
 * DateStyle) with any UTC offset. See copy-arrow.ts for the plan and the batching.
 */
import { CopyToArrow, quoteIdent, type ArrowColumnPlan, type ColumnBuffers } from './copy-arrow';

/** `COPY` of `sql` in the text format with its columns renamed c0…cN and selected per plan. */
export function textCopySql(sql: string, plans: readonly ArrowColumnPlan[]): string {
  const names = plans.map((_p, k) => quoteIdent(`c${k}`)).join(', ');
  return `COPY (SELECT ${plans.map((p) => p.select).join(', ')} FROM (${sql}) AS studio_q(${names})) TO STDOUT`;
}

const TAB = 0x09;
const NEWLINE = 0x0a;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const DAY_MICROS = 86_400_000_000;
/** DuckDB's infinities: dates ±(2^31 - 1); timestamps int64 max and min + 1. */
const DATE_INFINITY = 0x7fffffff;
const TWO32 = 2 ** 32;
/** Exact powers of ten as doubles (10^22 is the largest). */
const POW10 = Array.from({ length: 23 }, (_x, k) => 10 ** k);

/** Days since 1970-01-01 of a proleptic Gregorian date (astronomical years: 1 BC is 0). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The field's bytes as text (rare paths only: big numbers, odd spellings). */
const latin1 = (b: Buffer, p: number, q: number) => b.toString('latin1', p, q);

/** A decimal number's text ('-12.5', '1e-05', 'NaN', 'Infinity') as the nearest double. */
function decimalAt(b: Buffer, p: number, q: number): number {
  let k = p;
  let negative = false;
  if (b[k] === MINUS || b[k] === PLUS) negative = b[k++] === MINUS;
  let m = 0;
  let digits = 0;
  let scale = 0;
  let dot = false;
  for (; k < q; k++) {
    const c = b[k]!;
    if (c === DOT) {
      if (dot) return Number(latin1(b, p, q));
      dot = true;
      continue;
    }
    const digit = c - ZERO;
    if (digit < 0 || digit > 9) break;
    // Leading zeros do not count towards the digits a double holds exactly.
    if (m !== 0 || digit !== 0) digits++;
    m = m * 10 + digit;
    if (dot) scale--;
  }
  let e = scale;
  if (k < q) {
    const c = b[k];
    if (c !== 0x65 && c !== 0x45) return Number(latin1(b, p, q)); // NaN, Infinity and anything unforeseen
    k++;
    let expNegative = false;
    if (b[k] === MINUS || b[k] === PLUS) expNegative = b[k++] === MINUS;
    let x = 0;
    for (; k < q; k++) {
      const digit = b[k]! - ZERO;
      if (digit < 0 || digit > 9) return Number(latin1(b, p, q));
      x = x * 10 + digit;
    }
    e += expNegative ? -x : x;
  }
  if (digits > 15 || e < -22 || e > 22) return Number(latin1(b, p, q));
  const v = e >= 0 ? m * POW10[e]! : m / POW10[-e]!;
  return negative ? -v : v;
}

/** An integer's text, exact when it fits 2^53 (int2, int4, oid always do). */
function integerAt(b: Buffer, p: number, q: number): number {
  let k = p;
  const negative = b[k] === MINUS;
  if (negative) k++;
  let v = 0;
  for (; k < q; k++) v = v * 10 + (b[k]! - ZERO);
  return negative ? -v : v;
}

/** A 64-bit integer's text into two 32-bit words (little-endian), through a double when exact, else a BigInt. */
function int64At(col: ColumnBuffers, row: number, b: Buffer, p: number, q: number): void {
  if (q - p <= 15) setInt64(col, row, integerAt(b, p, q));
  else setBig(col, row, BigInt(latin1(b, p, q)));
}

/** An integer held exactly in a double (|v| < 2^53) into the column's two 32-bit words. */
function setInt64(col: ColumnBuffers, row: number, v: number): void {
  const hi = Math.floor(v / TWO32);
  col.u32[row * 2] = v - hi * TWO32;
  col.i32[row * 2 + 1] = hi;
}

function setBig(col: ColumnBuffers, row: number, v: bigint): void {
  col.u32[row * 2] = Number(BigInt.asUintN(32, v));
  col.i32[row * 2 + 1] = Number(BigInt.asIntN(32, v >> 32n));
}

/**
 * 'YYYY-MM-DD' at `p` (more year digits past 9999; ' BC' at the end of the field, whose end is `q`): days
 * since 1970-01-01 and the index after the date. Year y BC is the astronomical year 1 - y.
 */
function dateAt(b: Buffer, p: number, q: number): [number, number] {
  let k = p;
  let y = 0;
  while (b[k] !== MINUS) y = y * 10 + (b[k++]! - ZERO);
  const m = (b[k + 1]! - ZERO) * 10 + (b[k + 2]! - ZERO);
  const d = (b[k + 4]! - ZERO) * 10 + (b[k + 5]! - ZERO);
  const bc = b[q - 1] === 0x43 && b[q - 2] === 0x42 && b[q - 3] === 0x20;
  return [daysFromCivil(bc ? 1 - y : y, m, d), k + 6];
}

function dateField(b: Buffer, p: number, q: number): number {
  if (b[p] === 0x69) return DATE_INFINITY; // 'infinity'
  if (b[p] === MINUS && b[p + 1] === 0x69) return -DATE_INFINITY;
  return dateAt(b, p, q)[0];
}

/** 'YYYY-MM-DD HH:MM:SS[.ffffff][±HH[:MM[:SS]]][ BC]' into microseconds since 1970 (UTC), written to `row`. */
function timestampField(col: ColumnBuffers, row: number, b: Buffer, p: number, q: number): void {
  if (b[p] === 0x69) return setBig(col, row, 0x7fffffffffffffffn); // 'infinity'
  if (b[p] === MINUS && b[p + 1] === 0x69) return setBig(col, row, -0x7fffffffffffffffn);
  const [days, t] = dateAt(b, p, q);
  const end = b[q - 1] === 0x43 ? q - 3 : q; // before ' BC'
  // A space, then HH:MM:SS.
  const hh = (b[t + 1]! - ZERO) * 10 + (b[t + 2]! - ZERO);
  const mi = (b[t + 4]! - ZERO) * 10 + (b[t + 5]! - ZERO);
  const ss = (b[t + 7]! - ZERO) * 10 + (b[t + 8]! - ZERO);
  let k = t + 9;
  let micros = 0;
  if (b[k] === DOT) {
    let scale = 100_000;
    for (k++; k < end && b[k]! >= ZERO && b[k]! <= ZERO + 9; k++) {
      micros += (b[k]! - ZERO) * scale;
      scale /= 10;
    }
  }
  let offset = 0;
  if (k < end && (b[k] === PLUS || b[k] === MINUS)) {
    const sign = b[k] === MINUS ? -1 : 1;
    const oh = (b[k + 1]! - ZERO) * 10 + (b[k + 2]! - ZERO);
    const om = b[k + 3] === 0x3a ? (b[k + 4]! - ZERO) * 10 + (b[k + 5]! - ZERO) : 0;
    const os = b[k + 3] === 0x3a && b[k + 6] === 0x3a ? (b[k + 7]! - ZERO) * 10 + (b[k + 8]! - ZERO) : 0;
    offset = sign * (oh * 3600 + om * 60 + os);
  }
  const secondOfDay = hh * 3600 + mi * 60 + ss - offset;
  // Exact in a double for about 1685..2255; other instants are summed as integers.
  if (days > -104_000 && days < 104_000) setInt64(col, row, days * DAY_MICROS + secondOfDay * 1_000_000 + micros);
  else setBig(col, row, BigInt(days) * BigInt(DAY_MICROS) + BigInt(secondOfDay * 1_000_000 + micros));
}

/** Text with COPY's escapes undone (`\\`, `\t`, `\n`, `\r`, `\b`, `\f`, `\v`, octal `\NNN`, hex `\xHH`). */
function textField(col: ColumnBuffers, row: number, b: Buffer, p: number, q: number): void {
  const out = col.reserve(q - p);
  let at = col.used;
  let k = p;
  // Plain bytes copied as they are scanned; the first backslash switches to undoing escapes.
  while (k < q && b[k] !== BACKSLASH) out[at++] = b[k++]!;
  for (; k < q; k++) {
    const c = b[k]!;
    if (c !== BACKSLASH || k + 1 >= q) {
      out[at++] = c;
      continue;
    }
    const n = b[++k]!;
    if (n === 0x6e) out[at++] = 0x0a;
    else if (n === 0x74) out[at++] = 0x09;
    else if (n === 0x72) out[at++] = 0x0d;
    else if (n === 0x62) out[at++] = 0x08;
    else if (n === 0x66) out[at++] = 0x0c;
    else if (n === 0x76) out[at++] = 0x0b;
    else if (n >= ZERO && n <= ZERO + 7) {
      let v = n - ZERO;
      for (let j = 0; j < 2 && k + 1 < q && b[k + 1]! >= ZERO && b[k + 1]! <= ZERO + 7; j++) v = v * 8 + (b[++k]! - ZERO);
      out[at++] = v & 0xff;
    } else if (n === 0x78 && k + 1 < q && isHex(b[k + 1]!)) {
      let v = hexValue(b[++k]!);
      if (k + 1 < q && isHex(b[k + 1]!)) v = v * 16 + hexValue(b[++k]!);
      out[at++] = v;
    } else out[at++] = n; // `\\` and any other escaped character stand for themselves
  }
  col.used = at;
  col.offsets[row + 1] = at;
}

const isHex = (c: number) => (c >= ZERO && c <= ZERO + 9) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const hexValue = (c: number) => (c <= ZERO + 9 ? c - ZERO : (c & 0xdf) - 0x41 + 10);

/** Feeds text COPY data (any chunking) and answers Arrow IPC stream bytes (see CopyToArrow). */
export class TextCopyToArrow extends CopyToArrow {
  write(src: Buffer, start: number, end: number): void {
    let buf = src;
    if (this.pending) {
      buf = Buffer.concat([this.pending, src.subarray(start, end)]);
      start = 0;
      end = buf.length;
      this.pending = null;
    }
    const columns = this.columns;
    const n = columns.length;
    let pos = start;
    // Rows end at a raw newline (one inside a value is escaped), so the whole rows of this call end at its
    // last newline: found once here, not once per row (a CopyData payload is exactly one row).
    const last = buf[end - 1] === NEWLINE ? end - 1 : buf.lastIndexOf(NEWLINE, end - 1);
    const whole = last >= pos ? last + 1 : pos;
    while (pos < whole) {
      const row = this.held;
      let p = pos;
      let q = p;
      for (let c = 0; c < n; c++) {
        q = p;
        while (buf[q] !== TAB && buf[q] !== NEWLINE) q++;
        if (c < n - 1 && buf[q] === NEWLINE) throw new Error(`COPY row of ${c + 1} fields, expected ${n}`);
        const col = columns[c]!;
        if (q - p === 2 && buf[p] === BACKSLASH && buf[p + 1] === 0x4e) col.setNull(row);
        else {
          switch (col.reader) {
            case 'int16':
              col.i16[row] = integerAt(buf, p, q);
              break;
            case 'int32':
              col.i32[row] = integerAt(buf, p, q);
              break;
            case 'int64':
              int64At(col, row, buf, p, q);
              break;
            case 'oid':
              col.u32[row * 2] = integerAt(buf, p, q);
              col.u32[row * 2 + 1] = 0;
              break;
            case 'float32':
              col.f32[row] = decimalAt(buf, p, q);
              break;
            case 'float64':
            case 'numeric':
              col.f64[row] = decimalAt(buf, p, q);
              break;
            case 'date':
              col.i32[row] = dateField(buf, p, q);
              break;
            case 'timestamp':
              timestampField(col, row, buf, p, q);
              break;
            case 'bool':
              if (buf[p] === 0x74) col.bytes[row >> 3]! |= 1 << (row & 7);
              break;
            case 'text':
              textField(col, row, buf, p, q);
              break;
          }
        }
        p = q + 1;
      }
      const eol = q;
      if (buf[eol] !== NEWLINE) throw new Error(`COPY row of more than ${n} fields`);
      pos = eol + 1;
      this.rowDone();
    }
    if (pos < end) this.pending = Buffer.from(buf.subarray(pos, end));
  }

  /** The text format has no trailer: the stream is whole when the framing saw CopyDone. */
  override streamDone(): void {
    this.ended = true;
  }
}
