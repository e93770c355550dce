import type { DatabaseSync, StatementSync, SQLInputValue } from 'node:sqlite';

/**
 * Rows inserted many to a statement (`INSERT … VALUES (…), (…), …`): node:sqlite's cost is per call, not per
 * row, so 1M rows one call each took three times as long as in calls of a hundred (6.2 s against 1.9 s at load 20).
 * `add` takes one row's values (or `value` each of them, then `endRow`, allocating nothing); `flush` writes what is
 * left (call it before the transaction ends).
 */
export class BatchedInsert {
  private readonly full: StatementSync;
  private readonly rowsPerCall: number;
  private readonly pending: SQLInputValue[] = [];

  /** `into`: the table and its columns, e.g. `"t" (a, b)`; `width`: the number of columns. */
  constructor(
    private readonly db: DatabaseSync,
    private readonly into: string,
    private readonly width: number,
  ) {
    // Well below SQLite's 32,766 parameters a statement.
    this.rowsPerCall = Math.max(1, Math.min(100, Math.floor(30_000 / width)));
    this.full = db.prepare(this.sql(this.rowsPerCall));
  }

  private sql(rows: number): string {
    const row = `(${new Array(this.width).fill('?').join(', ')})`;
    return `INSERT INTO ${this.into} VALUES ${new Array(rows).fill(row).join(', ')}`;
  }

  add(...values: SQLInputValue[]): void {
    for (const v of values) this.pending.push(v);
    this.endRow();
  }

  value(v: SQLInputValue): void {
    this.pending.push(v);
  }

  endRow(): void {
    if (this.pending.length === this.rowsPerCall * this.width) {
      this.full.run(...this.pending);
      this.pending.length = 0;
    }
  }

  flush(): void {
    if (!this.pending.length) return;
    this.db.prepare(this.sql(this.pending.length / this.width)).run(...this.pending);
    this.pending.length = 0;
  }
}
