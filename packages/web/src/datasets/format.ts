/** Byte counts for people: 0 B, 12.3 kB, 4.5 MB. */
export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/** Counts with thousands separators; a dash when unknown. */
export const formatCount = (n: number | null | undefined): string => (n === null || n === undefined ? '—' : n.toLocaleString('en-US'));

/** A statistic (min, max, mean): numbers rounded to what a table can show, strings as they are. */
export function formatStat(v: number | string | null | undefined): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'string') return v;
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  return Math.abs(v) >= 1e6 || Math.abs(v) < 1e-4 ? v.toPrecision(6) : String(Number(v.toPrecision(8)));
}

/** One preview cell as text: null stays visible as "null", nested values as JSON. */
export function formatCell(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}
