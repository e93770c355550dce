/** A DuckDB-style size ("512MB", "2GB", "1.5GiB") in bytes: the units are powers of 1024, as DuckDB reads them. */
export function bytesOf(size: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|kib|mb|mib|gb|gib|tb|tib)?\s*$/i.exec(size);
  if (!m) throw new Error(`Not a memory size: ${size}`);
  const unit = (m[2] ?? 'b').toLowerCase();
  const scale = unit.startsWith('k') ? 2 ** 10 : unit.startsWith('m') ? 2 ** 20 : unit.startsWith('g') ? 2 ** 30 : unit.startsWith('t') ? 2 ** 40 : 1;
  return Number(m[1]) * scale;
}
