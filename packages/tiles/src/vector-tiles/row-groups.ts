import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { StudioError } from '@studio/schema';

export type Row = DuckDBValue[];

export const CANCELLED = () => new StudioError(499, 'The request was cancelled');

/**
 * A query's rows in DuckDB's chunks, one array of rows a chunk. The next chunk is asked for before the caller
 * works on this one: DuckDB produces it on its own thread meanwhile. Stops with a 499 once `signal` fires.
 */
export async function* chunksOf(c: DuckDBConnection, sql: string, signal?: AbortSignal): AsyncGenerator<Row[]> {
  const result = await c.stream(sql);
  let next = result.fetchChunk();
  try {
    for (;;) {
      const chunk = await next;
      if (!chunk || chunk.rowCount === 0) return;
      if (signal?.aborted) throw CANCELLED();
      next = result.fetchChunk();
      yield chunk.getRows();
    }
  } finally {
    // A read still in flight on early exit settles before the connection is reused; its error, if any, is
    // the one already thrown (the loop stopped on it) or belongs to a read nobody wants any more.
    await next.catch(() => undefined);
  }
}

export interface Group {
  a: number;
  b: number;
  rows: Row[];
}

/**
 * Rows arriving grouped by a key of two numbers (a tile's x and y, a block's): holds the open group, at most
 * `cap` rows of it, and hands a group over when a row of another key arrives. A key seen again after its
 * group closed would write a tile twice (the order the tiler relies on broke): that throws.
 */
export class GroupedRows {
  /** Groups that had more rows than the cap. */
  capped = 0;
  private open: Group | null = null;
  private readonly closed = new Set<number>();

  constructor(private readonly cap: number) {}

  /** Adds a row of group (a, b); answers the group this closed, if any. */
  push(a: number, b: number, row: Row): Group | null {
    let done: Group | null = null;
    if (!this.open || this.open.a !== a || this.open.b !== b) {
      done = this.end();
      const key = a * 2 ** 26 + b;
      if (this.closed.has(key)) throw new Error(`Tile rows out of order at ${a}/${b}`);
      this.closed.add(key);
      this.open = { a, b, rows: [] };
    }
    const rows = this.open.rows;
    if (rows.length < this.cap) rows.push(row);
    else if (rows.length === this.cap) {
      this.capped++;
      rows.push(row); // one past the cap marks the group as counted; dropped when it closes
    }
    return done;
  }

  /** Closes the open group: answers it (its rows within the cap), or null when none is open. */
  end(): Group | null {
    const group = this.open;
    this.open = null;
    if (group && group.rows.length > this.cap) group.rows.length = this.cap;
    return group;
  }
}
