import { badInput } from '@studio/schema';

/**
 * The most lists a column may nest: DuckDB's Parquet reader takes time exponential in it (one row of 20 nested
 * lists read in 0.14 s, 24 in 2.0 s, 26 in 17.6 s), while DESCRIBE reads only the footer (16 ms at 26). JSON
 * uploads are typed to the same depth (read_json's maximum_depth).
 */
export const LIST_MAX_DEPTH = 16;

/**
 * The deepest nesting of lists in a DuckDB type as DESCRIBE writes it: "INTEGER[][]" 2, "STRUCT(a INTEGER[])[]" 2,
 * "STRUCT(a INTEGER[], b INTEGER[])" 1 (siblings do not add up). Quoted field names are skipped.
 */
export function listDepth(type: string): number {
  // One frame per open parenthesis: the deepest of its members so far, and the member being read.
  const frames = [{ best: 0, current: 0 }];
  for (let i = 0; i < type.length; i++) {
    const c = type[i]!;
    const top = frames[frames.length - 1]!;
    if (c === '"') {
      i = type.indexOf('"', i + 1);
      if (i < 0) break;
    } else if (c === '(') frames.push({ best: 0, current: 0 });
    else if (c === ',') {
      top.best = Math.max(top.best, top.current);
      top.current = 0;
    } else if (c === ')' && frames.length > 1) {
      frames.pop();
      const parent = frames[frames.length - 1]!;
      parent.current = Math.max(parent.current, top.best, top.current);
    } else if (c === '[') {
      top.current++;
      i = Math.max(i, type.indexOf(']', i));
    }
  }
  const root = frames[0]!;
  return Math.max(root.best, root.current);
}

/** 422 for the first column whose lists nest past {@link LIST_MAX_DEPTH}, before any row is read. */
export function assertListDepth(columns: { name: string; type: string }[], label: string): void {
  for (const { name, type } of columns) {
    const depth = listDepth(type);
    if (depth > LIST_MAX_DEPTH) throw badInput(`Could not read ${label}: column '${name}' nests lists ${depth} deep; the studio reads at most ${LIST_MAX_DEPTH}`);
  }
}
