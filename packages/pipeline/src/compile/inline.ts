import { badInput } from '@studio/schema';
import type { SqlType } from './dialect';

/** Columnar form of inline data: one typed array per column, bound as one list parameter each. */
export type Columns = { name: string; type: SqlType; values: (string | number | boolean | null)[] }[];

/** RFC 4180-ish CSV: quoted fields with "" escapes, CRLF or LF, first row is the header. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') { field += '"'; i += 2; continue; }
        quoted = false; i++; continue;
      }
      field += c; i++; continue;
    }
    if (c === '"' && field.length === 0) { quoted = true; i++; continue; }
    if (c === ',') { row.push(field); field = ''; i++; continue; }
    if (c === '\n' || c === '\r') {
      row.push(field); field = '';
      rows.push(row); row = [];
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
      continue;
    }
    field += c; i++;
  }
  if (quoted) throw badInput('inline_data node: unterminated quoted CSV field');
  if (field.length > 0 || row.length > 0) { row.push(field); rows.push(row); }
  // Blank lines carry no row.
  return rows.filter((r) => !(r.length === 1 && r[0] === ''));
}

const INT = /^[+-]?\d+$/;
const NUM = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const BOOL = /^(?:true|false)$/i;
// ISO-8601 date or date-time without a zone, or with Z / an offset.
const TS = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;

function toTimestamp(s: string): string | null {
  const d = new Date(/[Zz]|[+-]\d{2}:?\d{2}$/.test(s) || s.length === 10 ? s : `${s.replace(' ', 'T')}Z`);
  if (Number.isNaN(d.getTime())) return null;
  // UTC wall-clock text, accepted by both engines' TIMESTAMP casts.
  return d.toISOString().replace('T', ' ').replace('Z', '');
}

/** Infers each column's type from its non-empty cells: integer, double, boolean, timestamp, else string. */
function inferColumn(cells: string[]): { type: SqlType; values: (string | number | boolean | null)[] } {
  const present = cells.filter((c) => c !== '');
  const all = (re: RegExp) => present.length > 0 && present.every((c) => re.test(c));
  if (all(INT) && present.every((c) => Number.isSafeInteger(Number(c)))) {
    return { type: 'bigint', values: cells.map((c) => (c === '' ? null : Number(c))) };
  }
  if (all(NUM)) return { type: 'double', values: cells.map((c) => (c === '' ? null : Number(c))) };
  if (all(BOOL)) return { type: 'boolean', values: cells.map((c) => (c === '' ? null : c.toLowerCase() === 'true')) };
  if (all(TS) && present.every((c) => toTimestamp(c) !== null)) {
    return { type: 'timestamp', values: cells.map((c) => (c === '' ? null : toTimestamp(c))) };
  }
  return { type: 'varchar', values: cells.map((c) => (c === '' ? null : c)) };
}

function checkNames(names: string[]): void {
  const seen = new Set<string>();
  names.forEach((name, i) => {
    if (name === '') throw badInput(`inline_data node: column ${i + 1} has no name`);
    if (seen.has(name)) throw badInput(`inline_data node: duplicate column name ${name}`);
    seen.add(name);
  });
}

export function csvColumns(text: string): Columns {
  const rows = parseCsv(text);
  const header = rows[0];
  if (!header) throw badInput('inline_data node: data must not be empty');
  const names = header.map((h) => h.trim());
  checkNames(names);
  const body = rows.slice(1);
  body.forEach((r, i) => {
    if (r.length !== names.length) {
      throw badInput(`inline_data node: CSV row ${i + 2} has ${r.length} fields, the header has ${names.length}`);
    }
  });
  return names.map((name, c) => ({ name, ...inferColumn(body.map((r) => r[c]!)) }));
}

/** JSON_OBJECT rows: columns in order of first appearance; a missing key is NULL. */
export function jsonColumns(rows: Record<string, unknown>[]): Columns {
  const names: string[] = [];
  const seen = new Set<string>();
  for (const r of rows) for (const k of Object.keys(r)) if (!seen.has(k)) { seen.add(k); names.push(k); }
  checkNames(names);
  return names.map((name) => {
    const vals = rows.map((r) => r[name] ?? null);
    const present = vals.filter((v) => v !== null);
    if (present.length > 0 && present.every((v) => typeof v === 'number' && Number.isSafeInteger(v))) {
      return { name, type: 'bigint' as const, values: vals as (number | null)[] };
    }
    if (present.length > 0 && present.every((v) => typeof v === 'number' && Number.isFinite(v))) {
      return { name, type: 'double' as const, values: vals as (number | null)[] };
    }
    if (present.length > 0 && present.every((v) => typeof v === 'boolean')) {
      return { name, type: 'boolean' as const, values: vals as (boolean | null)[] };
    }
    return {
      name,
      type: 'varchar' as const,
      values: vals.map((v) => (v === null ? null : typeof v === 'string' ? v : JSON.stringify(v))),
    };
  });
}
