import { AsyncLocalStorage } from 'node:async_hooks';
import { sql, type Transaction } from 'kysely';
import type { Database } from './tables';
import type { Db } from './db';

/**
 * A unit of work: a request's writes and their audit record commit in one transaction, or none of
 * them does. Services keep one `db` handle; inside `run`, that handle answers with the unit's
 * transaction (found through AsyncLocalStorage), so no service signature carries a transaction.
 *
 * - A service's own `db.transaction().execute(fn)` inside a unit becomes a savepoint: it stays atomic,
 *   and a failure inside it leaves the unit usable, exactly as it did on its own.
 * - Work that outlives the unit (a heartbeat timer, an ingestion carried on after the answer) inherits
 *   the async context, but the unit is closed by then: it runs on the pool like any other work.
 * - On PGlite (one connection) a unit holds the catalog for its whole length, so routes whose handlers
 *   spend time outside the catalog (DuckDB, scrypt, the network) opt out and open a short unit around
 *   their writes (`RouteDef.transaction`).
 */
interface Unit {
  trx: Transaction<Database>;
  open: boolean;
  savepoints: number;
  /** Side effects outside the catalog (deleting files) that must happen only once the writes are kept. */
  afterCommit: (() => Promise<unknown>)[];
}

/** Kysely methods that answer a new Kysely over the same connection (kept by services as their own handle). */
const DERIVING = new Set(['withTables', 'withPlugin', 'withoutPlugins', 'withSchema']);

/** The unit of work behind a `db` handle made by `unitOfWork`. */
const UNIT_OF_WORK = Symbol('unitOfWork');

export interface UnitOfWork {
  /** The handle every service uses: the current unit's transaction inside `run`, the pool outside. */
  db: Db;
  /** Runs `fn` in a unit: commits when it resolves, rolls back when it throws. Nested calls join the outer unit. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** True inside a unit that has not finished. */
  active(): boolean;
  /** Runs `effect` once the current unit has committed (not at all if it rolls back); at once outside a unit. */
  afterCommit(effect: () => Promise<unknown>): Promise<void>;
}

/**
 * Runs `fn` in the unit of work behind `db` (see `unitOfWork`): for services that write more than one
 * row outside a request's own unit (work carried on after the answer, routes that opt out). A `db`
 * that is not a unit's handle (a test's own) runs `fn` as it is.
 */
export function atomically<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  const units = (db as unknown as { [UNIT_OF_WORK]?: UnitOfWork })[UNIT_OF_WORK];
  return units ? units.run(fn) : fn();
}

export function unitOfWork(base: Db): UnitOfWork {
  const current = new AsyncLocalStorage<Unit>();
  const openUnit = () => {
    const unit = current.getStore();
    return unit?.open ? unit : null;
  };

  /** `db.transaction()` inside a unit: a savepoint on the unit's transaction. */
  const nestedTransaction = (unit: Unit) => {
    const builder = {
      setIsolationLevel: () => builder,
      setAccessMode: () => builder,
      async execute<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
        const name = sql.id(`unit_sp_${++unit.savepoints}`);
        await sql`savepoint ${name}`.execute(unit.trx);
        try {
          const result = await fn(unit.trx);
          await sql`release savepoint ${name}`.execute(unit.trx);
          return result;
        } catch (e) {
          await sql`rollback to savepoint ${name}`.execute(unit.trx);
          throw e;
        }
      },
    };
    return builder;
  };

  /**
   * A handle that resolves, at each use, to the open unit's transaction or to the pool. Handles derived
   * once and kept (`db.withTables<…>()` in a service's constructor) resolve the same way, or their
   * queries would wait on the pool while the unit holds PGlite's one connection: a deadlock.
   */
  const handle = (resolve: (unit: Unit | null) => Db): Db =>
    new Proxy(base, {
      get(_target, prop) {
        const unit = openUnit();
        if (prop === UNIT_OF_WORK) return units;
        if (unit && prop === 'transaction') return () => nestedTransaction(unit);
        if (typeof prop === 'string' && DERIVING.has(prop)) {
          return (...args: unknown[]) => handle((u) => (resolve(u) as unknown as Record<string, (...a: unknown[]) => Db>)[prop]!(...args));
        }
        const active = resolve(unit);
        const value = Reflect.get(active, prop, active) as unknown;
        // Kysely keeps its state in #private fields: methods must run on the real object, not the proxy.
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(active) : value;
      },
    }) as Db;
  const db = handle((unit) => (unit ? unit.trx : base));

  const units: UnitOfWork = {
    db,
    active: () => openUnit() !== null,
    async afterCommit(effect) {
      const unit = openUnit();
      if (unit) unit.afterCommit.push(effect);
      else await effect();
    },
    async run<T>(fn: () => Promise<T>): Promise<T> {
      if (openUnit()) return fn();
      let done: Unit | null = null;
      const result = await base.transaction().execute(async (trx) => {
        const unit: Unit = { trx, open: true, savepoints: 0, afterCommit: [] };
        done = unit;
        try {
          return await current.run(unit, fn);
        } finally {
          // Closed before the commit: anything still running from this unit (timers, work carried on
          // after the answer) goes to the pool from here on, never to a finished transaction.
          unit.open = false;
        }
      });
      // Outside the unit's context, so that effects which touch the catalog use the pool.
      // The writes are kept: an effect that fails (a file already gone) must not turn them into an error.
      for (const effect of (done as Unit | null)?.afterCommit ?? []) {
        await current.exit(effect).catch((e: unknown) => console.warn(`after commit: ${e instanceof Error ? e.message : String(e)}`));
      }
      return result;
    },
  };
  return units;
}
