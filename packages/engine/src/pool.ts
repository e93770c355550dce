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
  /** Connections lent out and not yet returned (one handed from a borrower straight to a waiter stays lent). */
  private lent = 0;
  private readonly allReturned: (() => void)[] = [];
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
    if (conn) this.lent++;
    else conn = await new Promise<DuckDBConnection>((resolve) => this.waiters.push(resolve));
    let released = false;
    const c = conn;
    return {
      connection: c,
      release: () => {
        if (released) return;
        released = true;
        const next = this.waiters.shift();
        if (next) return next(c);
        this.idle.push(c);
        if (--this.lent === 0) for (const done of this.allReturned.splice(0)) done();
      },
    };
  }

  /** How many connections are lent out now. */
  get lentCount(): number {
    return this.lent;
  }

  /**
   * Interrupts the queries running on lent connections and waits until every connection is back, for at most
   * `timeoutMs`: DuckDB closed under a running query takes the whole process down with it.
   */
  async drain(timeoutMs: number): Promise<void> {
    if (this.lent === 0) return;
    for (const c of this.all) if (!this.idle.includes(c)) c.interrupt();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref?.();
      this.allReturned.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  close(): void {
    this.closed = true;
    for (const c of this.all) c.closeSync();
    this.all.length = 0;
    this.idle.length = 0;
  }
}
