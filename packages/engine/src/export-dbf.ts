import { quoteIdent, quoteLiteral } from './sql';
import type { Attribute, AttributeValue } from './export-rows';
import { TextBytes } from './export-vectors';
import type { PooledConnection } from './pool';

/**
 * The attribute table of a Shapefile download (dBase III, as ogr2ogr writes it with a UTF-8 .cpg): one field per
 * attribute, its name cut to dBase's 10 bytes (the full names go in the zip's columns.csv), text fields as wide
 * as the longest value up to dBase's 254 bytes (longer values cut, counted for notes.txt).
 */

/** dBase's limits: a field name's bytes, a character field's bytes, the fields of a table. */
export const DBF_NAME_BYTES = 10;
export const DBF_TEXT_BYTES = 254;
export const DBF_MAX_FIELDS = 255;

export interface DbfField {
  attribute: Attribute;
  /** The name written in the .dbf (at most 10 bytes, unique regardless of case). */
  name: string;
  type: 'C' | 'N' | 'D' | 'L';
  width: number;
  decimals: number;
}

/** `s` cut to at most `bytes` UTF-8 bytes, never inside a character. */
export function cutUtf8(s: string | Buffer, bytes: number): Buffer {
  const b = typeof s === 'string' ? Buffer.from(s, 'utf8') : s;
  if (b.length <= bytes) return b;
  let end = bytes;
  while (end > 0 && (b[end]! & 0xc0) === 0x80) end--;
  return b.subarray(0, end);
}

/** dBase field names: cut to 10 bytes, made unique (case-insensitively) with a `_N` suffix as GDAL does. */
export function dbfNames(names: string[]): string[] {
  const taken = new Set<string>();
  return names.map((original, i) => {
    const clean = original.replace(/\0/g, '') || `field_${i + 1}`;
    let name = cutUtf8(clean, DBF_NAME_BYTES).toString('utf8');
    for (let n = 1; taken.has(name.toLowerCase()); n++) name = cutUtf8(clean, DBF_NAME_BYTES - String(n).length - 1).toString('utf8') + `_${n}`;
    taken.add(name.toLowerCase());
    return name;
  });
}

/**
 * The fields of the rows' attributes, text and integer widths measured in one pass of DuckDB over the file (a
 * fixed-width record must know them before the first row).
 */
export async function dbfFields(acquire: () => Promise<PooledConnection>, file: string, attributes: Attribute[]): Promise<DbfField[]> {
  const measured = attributes.map((a, i) => {
    const c = quoteIdent(a.name);
    if (a.kind === 'integer') return `max(length(CAST(TRY_CAST(${c} AS BIGINT) AS VARCHAR))) AS w${i}`;
    if (a.kind === 'text') return `max(strlen(CAST(${c} AS VARCHAR))) AS w${i}`;
    return `NULL AS w${i}`;
  });
  const widths: Record<string, unknown> = {};
  if (attributes.length) {
    const pooled = await acquire();
    try {
      Object.assign(widths, (await pooled.connection.runAndReadAll(`SELECT ${measured.join(', ')} FROM read_parquet(${quoteLiteral(file)})`)).getRowObjectsJS()[0]);
    } finally {
      pooled.release();
    }
  }
  const names = dbfNames(attributes.map((a) => a.name));
  return attributes.map((attribute, i) => {
    const w = Math.max(1, Number(widths[`w${i}`] ?? 1));
    const name = names[i]!;
    switch (attribute.kind) {
      case 'integer':
        return { attribute, name, type: 'N', width: Math.min(w, 20), decimals: 0 };
      case 'real':
        // GDAL's default for a Real field; any double's shortest text, fixed-point or with an exponent, fits in 24.
        return { attribute, name, type: 'N', width: 24, decimals: 15 };
      case 'boolean':
        return { attribute, name, type: 'L', width: 1, decimals: 0 };
      case 'date':
        return { attribute, name, type: 'D', width: 8, decimals: 0 };
      case 'datetime':
        // dBase has no date-time: ISO 8601 text in UTC, as the GeoJSON and CSV downloads write it.
        return { attribute, name, type: 'C', width: 24, decimals: 0 };
      case 'text':
        return { attribute, name, type: 'C', width: Math.min(w, DBF_TEXT_BYTES), decimals: 0 };
    }
  });
}

/** The .dbf header for `records` rows (written with 0 first, then again once the count is known). */
export function dbfHeader(fields: DbfField[], records: number): Buffer {
  const headerLength = 32 + 32 * fields.length + 1;
  const b = Buffer.alloc(headerLength);
  const now = new Date();
  b[0] = 0x03;
  b[1] = now.getUTCFullYear() - 1900;
  b[2] = now.getUTCMonth() + 1;
  b[3] = now.getUTCDate();
  b.writeUInt32LE(records, 4);
  b.writeUInt16LE(headerLength, 8);
  b.writeUInt16LE(dbfRecordLength(fields), 10);
  fields.forEach((f, i) => {
    const at = 32 + 32 * i;
    Buffer.from(f.name, 'utf8').copy(b, at, 0, 10);
    b[at + 11] = f.type.charCodeAt(0);
    b[at + 16] = f.width;
    b[at + 17] = f.decimals;
  });
  b[headerLength - 1] = 0x0d;
  return b;
}

export const dbfRecordLength = (fields: DbfField[]) => 1 + fields.reduce((n, f) => n + f.width, 0);

/** What writing the records found: text values cut per field, values a field's type could not hold. */
export interface DbfNotes {
  cut: number[];
  dropped: number[];
}

/**
 * ASCII text into `out` at `pos`, a byte a character: for a record's short values a JavaScript loop costs less than
 * a native write a value (1M points: writeDbfRecord was half the Shapefile download's JavaScript time). Answers how
 * many characters it wrote before the first one that is not ASCII (`s.length` when all were).
 */
function writeAscii(out: Buffer, pos: number, s: string, max: number): number {
  const n = Math.min(s.length, max);
  for (let k = 0; k < n; k++) {
    const c = s.charCodeAt(k);
    if (c >= 0x80) return k;
    out[pos + k] = c;
  }
  return n;
}

/** 10^k for k = 0..15, each exact in a double. */
const POW10 = Array.from({ length: 16 }, (_, k) => Number(`1e${k}`));

/**
 * A number's text right-aligned in out[start, end), written digit by digit: String() a value was most of a 1M-point
 * Shapefile download's JavaScript time. Fixed-point with the fewest decimals (at most 15, a Real field's) that read
 * back as the same double: n / 10^k equals |v| with n and 10^k both exact in a double, so the text's correctly
 * rounded value is v — the text String() writes, for all but the few values this cannot write. Answers false when it
 * cannot (more decimals, not below 2^53, not finite, wider than the field): the caller writes String(v) then.
 */
function writeNumber(out: Buffer, start: number, end: number, v: number): boolean {
  const negative = v < 0;
  const a = negative ? -v : v;
  let k = 0;
  let n = 0;
  for (; ; k++) {
    if (k > 15) return false;
    const scaled = a * POW10[k]!;
    if (!(scaled <= Number.MAX_SAFE_INTEGER)) return false;
    n = Math.round(scaled);
    if (n / POW10[k]! === a) break;
  }
  let digits = 1;
  while (digits < 16 && n >= POW10[digits]!) digits++;
  const length = Math.max(digits - k, 1) + (k ? k + 1 : 0) + (negative ? 1 : 0);
  if (length > end - start) return false;
  let p = end;
  for (let d = 0; d < k; d++) {
    const digit = n % 10;
    out[--p] = 0x30 + digit;
    n = (n - digit) / 10;
  }
  if (k) out[--p] = 0x2e; // '.'
  do {
    const digit = n % 10;
    out[--p] = 0x30 + digit;
    n = (n - digit) / 10;
  } while (n > 0);
  if (negative) out[--p] = 0x2d; // '-'
  return true;
}

/**
 * Row `r`'s record into `out` at `at` (already filled with spaces: a null is blanks), its values read from the chunk's
 * columns (`columns[i][r]`, the fields' order; a text field's may be its vector's bytes), so no row is made to write it.
 */
export function writeDbfRecord(out: Buffer, at: number, fields: DbfField[], columns: (ArrayLike<AttributeValue> | TextBytes)[], r: number, notes: DbfNotes): void {
  let pos = at + 1;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    const column = columns[i]!;
    if (column instanceof TextBytes) {
      // UTF-8 cut to the field's bytes, never inside a character, as below.
      if (column.copy(r, out, pos, f.width) > f.width) notes.cut[i]!++;
      pos += f.width;
      continue;
    }
    const v = column[r];
    if (v !== null && v !== undefined) {
      let text: string | null = null;
      let right = false;
      switch (f.type) {
        case 'N': {
          if (typeof v === 'number' && !Number.isFinite(v)) break;
          const exact = typeof v === 'bigint' ? v >= -Number.MAX_SAFE_INTEGER && v <= Number.MAX_SAFE_INTEGER : typeof v === 'number';
          if (exact && writeNumber(out, pos, pos + f.width, Number(v))) {
            pos += f.width;
            continue;
          }
          text = String(v);
          // A small double's fixed-point text may pass the 24 characters (-0.0000021686143678828925): its exponent
          // form is never longer than 24, and readers take it (GDAL reads numbers with strtod).
          if (typeof v === 'number' && text.length > f.width) text = v.toExponential();
          right = true;
          break;
        }
        case 'L':
          text = v ? 'T' : 'F';
          break;
        case 'D': {
          const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(String(v));
          text = m ? `${m[1]}${m[2]}${m[3]}` : null;
          break;
        }
        case 'C': {
          const s = String(v);
          if (s.length <= f.width && writeAscii(out, pos, s, f.width) === s.length) break;
          // Not ASCII, or too long: UTF-8 cut to the field's bytes, never inside a character (Buffer#write
          // writes whole characters only; the rest of the field stays blank).
          if (Buffer.byteLength(s, 'utf8') > f.width) notes.cut[i]!++;
          out.fill(0x20, pos, pos + f.width);
          out.write(s, pos, f.width, 'utf8');
          break;
        }
      }
      if (f.type !== 'C') {
        if (text === null || text.length > f.width) notes.dropped[i]!++;
        else writeAscii(out, right ? pos + f.width - text.length : pos, text, text.length);
      }
    }
    pos += f.width;
  }
}
