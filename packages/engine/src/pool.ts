import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

/** A connection borrowed from the pool; call release() exactly once. */
export interface PooledConnection {
  connection: DuckDBConnection;
  release(): void;
}

/**
 * A few DuckDB connections over one instance. A connection runs one statement at a time (a streaming result
 * holds it until fully read), so concurrent requests each borrow their own.
 */
export class ConnectionPool {
  private readonly idle: DuckDBConnection[] = [];
  private readonly all: DuckDBConnection[] = [];
  private readonly waiters: ((c: DuckDBConnection) => void)[] = [];
  private closed = false;

  constructor(
    private readonly instance: DuckDBInstance,
    private readonly max: number,
    private readonly setup: (c: DuckDBConnection) => Promise<void>,
  ) {}

  async acquire(): Promise<PooledConnection> {
    if (this.closed) throw new Error('Engine is closed');
    let conn = this.idle.pop();
    if (!conn && this.all.length < this.max) {
      conn = await this.instance.connect();
      this.all.push(conn);
      await this.setup(conn);
    }
    if (!conn) conn = await new Promise<DuckDBConnection>((resolve) => this.waiters.push(resolve));
    let released = false;
    const c = conn;
    return {
      connection: c,
      release: () => {
        if (released) return;
        released = true;
        const next = this.waiters.shift();
        if (next) next(c);
        else this.idle.push(c);
      },
    };
  }

  close(): void {
    this.closed = true;
    for (const c of this.all) c.closeSync();
    this.all.length = 0;
    this.idle.length = 0;
  }
}
