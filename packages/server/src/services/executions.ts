import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ColumnType, Selectable } from 'kysely';
import { listValue, type DuckDBValue } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral, type Engine } from '@studio/engine';
import { duckdbQueryError } from '@studio/pipeline';
import { datasetFileFor } from './dataset-tables';
import { Id, StudioError, badInput, isStudioError, notFound, bestEffort } from '@studio/schema';
import type { Db } from '../store/db';
import type { Caller } from '../http/caller';
import type { Secrets } from '../auth/secrets';
import type { AccessService } from './access';
import type { ResourceRow } from './records';
import { datasetAttrs } from './datasets';
import type { SqlSandbox } from './sql-sandbox';
import type { NetworkReach } from './network-reach';
import { storedConnection } from './connections';
import { DEFAULT_DRIVER_SETTINGS, driverFor, storageDriverFor, type DriverSettings, type DriverTarget, type StorageDriver, type WarehouseDriver } from '@studio/warehouses';

/** catalog §9: default cache max age, 31 days. */
export const DEFAULT_CACHE_MAX_AGE_SECONDS = 2_678_400;

export type ExecutionStatus = 'queued' | 'running' | 'success' | 'failure' | 'cancelled';
export type ParamValue = string | number | boolean | null | (string | number | boolean | null)[];
export type ParamValues = Record<string, ParamValue>;

/** The table of migration 005. */
interface QueryExecutionsTable {
  id: string;
  owner_id: string;
  status: ExecutionStatus;
  query: string;
  parameters: ColumnType<unknown, string, string>;
  connection_id: string | null;
  template_id: string | null;
  template_version: number | null;
  dataset_id: string | null;
  record_id: string | null;
  cache_key: string;
  storage_key: string | null;
  row_count: ColumnType<string | number | null, number | null, number | null>;
  columns: ColumnType<unknown, string | null, string | null>;
  error_message: string | null;
  created_at: ColumnType<Date, Date | undefined, Date>;
  started_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  finished_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  cache_expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The node running it, and when it last said it still does (while running). */
  node_id: ColumnType<string | null, string | null | undefined, string | null>;
  heartbeat_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}
export type ExecutionRow = Selectable<QueryExecutionsTable>;

/** What one run is: the text as written (kept), and how to produce its Parquet result. */
export interface Plan {
  query: string;
  parameters: ParamValues;
  connectionId?: string | null;
  templateId?: string | null;
  templateVersion?: number | null;
  datasetId?: string | null;
  recordId?: string | null;
  /** Everything the result depends on (checked SQL with resolved files, or connection and text). */
  cacheBasis: unknown;
  /** Writes the result as Parquet to `file`; answers the row count. */
  produce: (file: string, signal: AbortSignal) => Promise<number>;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** The execution as the wire has it (catalog §3 query result: queryExecutionId, cache expiry). */
export function executionWire(row: ExecutionRow, fromCache = false) {
  return {
    queryExecutionId: row.id,
    id: row.id,
    status: row.status,
    query: row.query,
    parameters: row.parameters as ParamValues,
    connectionId: row.connection_id,
    queryTemplateId: row.template_id,
    templateVersion: row.template_version,
    datasetId: row.dataset_id,
    recordId: row.record_id,
    rowCount: row.row_count === null ? null : Number(row.row_count),
    columns: (row.columns ?? null) as { name: string; type: string }[] | null,
    errorMessage: row.error_message,
    createdAt: new Date(row.created_at).toISOString(),
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
    cacheExpiresAt: iso(row.cache_expires_at),
    fromCache,
  };
}

/** A JSON parameter value as a DuckDB value: whole numbers as BIGINT, lists as LIST. */
function duckValue(v: ParamValue): DuckDBValue {
  if (Array.isArray(v)) return listValue(v.map((x) => duckValue(x)));
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  return v;
}

/**
 * An execution running this long without a heartbeat lost the node running it: two beats missed, plus half
 * an interval for a slow catalog (as datasets pending, services/datasets.ts).
 */
export const STALE_RUNNING_MS = 5 * 60 * 1000;
const HEARTBEAT_MS = STALE_RUNNING_MS / 2.5;
export const EXECUTION_INTERRUPTED = 'The query was interrupted: the server running it stopped. Run it again';

/** What makes two runs the same for the result cache: what they compute, from which template and for which record. */
const cacheKeyOf = (plan: Plan) =>
  createHash('sha256')
    .update(JSON.stringify([plan.cacheBasis, plan.templateId ?? null, plan.templateVersion ?? null, plan.datasetId ?? null, plan.recordId ?? null]))
    .digest('hex');

export class ExecutionService {
  constructor(
    private readonly db: Db,
    private readonly engine: Engine,
    private readonly access: AccessService,
    private readonly secrets: Secrets,
    private readonly sandbox: SqlSandbox,
    private readonly reach: NetworkReach,
    private readonly driverSettings: DriverSettings = DEFAULT_DRIVER_SETTINGS,
    readonly cacheMaxAgeSeconds = DEFAULT_CACHE_MAX_AGE_SECONDS,
    private readonly nodeId = 'node',
  ) {}

  private pushDownDir: Promise<unknown> | null = null;

  private get t() {
    return this.db.withTables<{ query_executions: QueryExecutionsTable }>();
  }

  /**
   * A plan over datasets on the embedded DuckDB: the SQL goes through the sandbox (tables are datasets the
   * caller reads, by id or name; `aliases` names more), `$name` parameters are bound by value.
   */
  async sandboxPlan(caller: Caller, query: string, values: ParamValues, aliases: Map<string, ResourceRow> = new Map()): Promise<Omit<Plan, 'query'>> {
    const as = { userId: caller.user.id };
    const safe = await this.sandbox.compile(query, (name) => this.datasetFile(caller, name, aliases), as);
    const bound = bindValues(await this.sandbox.parameterNames(safe, as), values);
    const params = Object.fromEntries(Object.entries(bound).map(([k, v]) => [k, duckValue(v)]));
    return {
      parameters: bound,
      cacheBasis: { engine: 'duckdb', sql: safe.sql, parameters: bound },
      produce: (file, signal) => this.sandbox.copyToParquet(safe, params, file, { ...as, signal }),
    };
  }

  /** A push-down plan on a warehouse connection the caller reads. */
  async connectionPlan(connection: ResourceRow, query: string, values: ParamValues): Promise<Omit<Plan, 'query'>> {
    const { driver, target } = this.driverOf(connection);
    const bound = bindValues(driver.parameterNames(query), values);
    return {
      parameters: bound,
      connectionId: connection.id,
      // The connection's settings are part of the key: a re-pointed connection is another warehouse.
      cacheBasis: { engine: target.type, connection: connection.id, updatedAt: iso(connection.updated_at as Date), query, bound },
      produce: (file, signal) => this.warehouseToParquet(driver, target, query, bound, file, signal),
    };
  }

  /** A new file name for a pushed-down result, in the engine's temp folder (removed at start if left behind). */
  async pushDownFile(): Promise<string> {
    const dir = path.join(this.engine.tmpDir, 'pushdown');
    // The folder is made once per process, not on every push-down.
    this.pushDownDir ??= fs.mkdir(dir, { recursive: true });
    await this.pushDownDir;
    return path.join(dir, `${randomUUID()}.rows`);
  }

  /** The driver of a saved database connection, and what it needs to reach it (its secrets opened here only). */
  driverOf(connection: ResourceRow): { driver: WarehouseDriver; target: DriverTarget } {
    const stored = storedConnection(connection);
    if (!stored) throw badInput('Not a database connection');
    return { driver: driverFor(stored.type), target: this.targetOf(stored.type, stored.config, this.credentialsOf(stored.credentials ?? null)) };
  }

  /** The driver of a saved storage connection (s3, gcs, planet), and what it needs to reach it. */
  storageOf(connection: ResourceRow): { driver: StorageDriver; target: DriverTarget } {
    const stored = storedConnection(connection);
    if (!stored) throw badInput('Could not parse data connection');
    return { driver: storageDriverFor(stored.type), target: this.targetOf(stored.type, stored.config, this.credentialsOf(stored.credentials ?? null)) };
  }

  /** What a driver needs for settings given as they are (an unsaved connection being tested). */
  targetOf(type: DriverTarget['type'], config: Record<string, unknown>, credentials: DriverTarget['credentials']): DriverTarget {
    return { type, config, credentials, reach: this.reach, settings: this.driverSettings };
  }

  /** Credentials are opened here only, for the driver; they never leave the service. */
  private credentialsOf(sealed: string | null): DriverTarget['credentials'] {
    if (!sealed) return null;
    return JSON.parse(this.secrets.decrypt(sealed)) as DriverTarget['credentials'];
  }

  /**
   * Runs a plan for the caller, or answers their cached execution of the same thing (unless `useCache` is
   * false). The execution is recorded whatever happens: success, failure, or cancelled when `signal` fires.
   */
  async execute(caller: Caller, plan: Plan, opts: { useCache: boolean; signal?: AbortSignal }): Promise<{ row: ExecutionRow; fromCache: boolean }> {
    const hit = opts.useCache ? await this.cachedRun(caller, plan) : null;
    if (hit) return { row: hit, fromCache: true };
    const id = await this.record(caller, plan);
    return { row: await this.run(id, plan, opts.signal ?? new AbortController().signal), fromCache: false };
  }

  /** The caller's unexpired successful run of the same plan whose result is still stored, if any. */
  async cachedRun(caller: Caller, plan: Plan): Promise<ExecutionRow | null> {
    const hit = await this.t
      .selectFrom('query_executions')
      .selectAll()
      .where('owner_id', '=', caller.user.id)
      .where('cache_key', '=', cacheKeyOf(plan))
      .where('status', '=', 'success')
      .where('cache_expires_at', '>', new Date())
      .orderBy('finished_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return hit?.storage_key && (await this.engine.store.exists(hit.storage_key)) ? hit : null;
  }

  /** Records a new execution of `plan`, queued; `id` names it (an asynchronous run shares its job's id). */
  async record(caller: Caller, plan: Plan, id: string = randomUUID()): Promise<string> {
    await this.t
      .insertInto('query_executions')
      .values({
        id,
        owner_id: caller.user.id,
        status: 'queued',
        query: plan.query,
        parameters: JSON.stringify(plan.parameters),
        connection_id: plan.connectionId ?? null,
        template_id: plan.templateId ?? null,
        template_version: plan.templateVersion ?? null,
        dataset_id: plan.datasetId ?? null,
        record_id: plan.recordId ?? null,
        cache_key: cacheKeyOf(plan),
      })
      .execute();
    return id;
  }

  /**
   * Runs a recorded execution on this node: running (with this node and a heartbeat), then its outcome.
   * Answers its row as it ended. An execution no longer queued or running (cancelled meanwhile) is not run.
   */
  async run(id: string, plan: Plan, signal: AbortSignal): Promise<ExecutionRow> {
    const started = new Date();
    const moved = await this.t
      .updateTable('query_executions')
      .set({ status: 'running', started_at: started, node_id: this.nodeId, heartbeat_at: started })
      .where('id', '=', id)
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) > 0) await this.produce(id, plan, signal);
    return this.row(id);
  }

  /** Ends an execution that never ran or was stopped (its job failed for good, or was cancelled), if still open. */
  async end(id: string, outcome: 'failure' | 'cancelled', message: string): Promise<void> {
    await this.t.updateTable('query_executions').set({ status: outcome, error_message: message, finished_at: new Date() }).where('id', '=', id).where('status', 'in', ['queued', 'running']).execute();
  }

  /** Runs a recorded execution's plan to its Parquet result; success, failure or cancellation is written to its row. */
  private async produce(id: string, plan: Plan, signal: AbortSignal): Promise<void> {
    const work = path.join(this.engine.tmpDir, 'executions');
    await fs.mkdir(work, { recursive: true });
    const file = path.join(work, `${id}.parquet`);
    const heartbeat = setInterval(() => void bestEffort(this.t.updateTable('query_executions').set({ heartbeat_at: new Date() }).where('id', '=', id).where('status', '=', 'running').execute(), `The heartbeat of query execution ${id}`), HEARTBEAT_MS);
    heartbeat.unref();
    try {
      const rowCount = await plan.produce(file, signal);
      if (signal.aborted) throw new StudioError(499, 'The query was cancelled');
      const key = `executions/${id}.parquet`;
      await this.engine.store.put(key, file);
      const columns = await this.engine.query(`DESCRIBE SELECT * FROM read_parquet(${quoteLiteral(await this.engine.store.localPath(key))})`);
      const finished = new Date();
      await this.updateRunning(id, {
        status: 'success',
        storage_key: key,
        row_count: rowCount,
        columns: JSON.stringify(columns.map((c) => ({ name: String(c.column_name), type: String(c.column_type) }))),
        finished_at: finished,
        cache_expires_at: new Date(finished.getTime() + this.cacheMaxAgeSeconds * 1000),
      });
    } catch (e) {
      const cancelled = signal.aborted;
      const err = duckdbQueryError(e);
      const message = cancelled ? 'The query was cancelled' : isStudioError(err) ? err.message : (err as Error)?.message || 'The query failed';
      await this.updateRunning(id, { status: cancelled ? 'cancelled' : 'failure', error_message: message, finished_at: new Date() });
    } finally {
      clearInterval(heartbeat);
      await fs.rm(file, { force: true });
    }
  }

  /**
   * After a crash: executions left queued or running past STALE_RUNNING_MS without a heartbeat (every node
   * sweeps), or, at start, those this node was running (they died with its previous process), end as
   * failures saying so, instead of answering "running" forever.
   */
  async failInterrupted(opts: { now?: number; ownOnly?: boolean } = {}): Promise<number> {
    const now = opts.now ?? Date.now();
    let q = this.t
      .updateTable('query_executions')
      .set({ status: 'failure', error_message: EXECUTION_INTERRUPTED, finished_at: new Date(now) })
      .where('status', 'in', ['queued', 'running'])
      // An asynchronous run is a job of the same id: the job engine retries it on another node, and ends it.
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('jobs').select('jobs.id').whereRef('jobs.id', '=', 'query_executions.id').where('jobs.status', 'in', ['queued', 'running']))));
    q = opts.ownOnly
      ? q.where('node_id', '=', this.nodeId)
      : q.where((eb) => eb(eb.fn.coalesce('heartbeat_at', 'started_at', 'created_at'), '<', new Date(now - STALE_RUNNING_MS)));
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /** A run's outcome, written only while it is still running: one cancelled meanwhile (its job) stays cancelled. */
  private async updateRunning(id: string, set: Partial<{ [K in keyof QueryExecutionsTable]: unknown }>): Promise<void> {
    await this.t.updateTable('query_executions').set(set as never).where('id', '=', id).where('status', '=', 'running').execute();
  }

  /** One execution by id, whoever owns it (callers check visibility with `visible`). */
  get(id: string): Promise<ExecutionRow> {
    return this.row(id);
  }

  private async row(id: string): Promise<ExecutionRow> {
    return this.t.selectFrom('query_executions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  /** The caller's own execution (administrators in admin mode: any); others are not found. */
  async visible(caller: Caller, id: string, adminMode: boolean): Promise<ExecutionRow> {
    const row = Id.safeParse(id).success ? await this.t.selectFrom('query_executions').selectAll().where('id', '=', id).executeTakeFirst() : undefined;
    if (!row || (row.owner_id !== caller.user.id && !(adminMode && caller.isAdmin))) throw notFound('Query execution not found');
    return row;
  }

  /** An execution linked to a record (map, insight, workbook); read access on the record is checked by the route. */
  async ofRecord(recordId: string, executionId: string): Promise<ExecutionRow> {
    const row = Id.safeParse(executionId).success
      ? await this.t.selectFrom('query_executions').selectAll().where('id', '=', executionId).where('record_id', '=', recordId).executeTakeFirst()
      : undefined;
    if (!row) throw notFound('Query execution not found');
    return row;
  }

  async latestOfTemplate(recordId: string, templateId: string): Promise<ExecutionRow> {
    const row = Id.safeParse(templateId).success
      ? await this.t
          .selectFrom('query_executions')
          .selectAll()
          .where('record_id', '=', recordId)
          .where('template_id', '=', templateId)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(1)
          .executeTakeFirst()
      : undefined;
    if (!row) throw notFound('Query execution not found');
    return row;
  }

  async list(caller: Caller, page: { offset: number; limit: number }) {
    const q = this.t.selectFrom('query_executions').where('owner_id', '=', caller.user.id);
    const [rows, count] = await Promise.all([
      q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute(),
      q.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map((r) => executionWire(r)), total: Number(count.n) };
  }

  /** The stored result's key, for a successful execution whose file is still there. */
  async resultKey(row: ExecutionRow): Promise<string> {
    if (row.status !== 'success' || !row.storage_key) throw new StudioError(409, `Query execution has no result (status: ${row.status})`, row.error_message ?? undefined);
    if (!(await this.engine.store.exists(row.storage_key))) throw new StudioError(410, 'The query result has expired');
    return row.storage_key;
  }

  /** The first `limit` rows of a successful execution's result. */
  async previewResult(row: ExecutionRow, limit: number): Promise<Record<string, unknown>[]> {
    return this.engine.preview(await this.resultKey(row), { limit });
  }

  /** A successful execution's result as Arrow IPC or CSV; the engine stops reading when `signal` aborts. */
  async resultStream(row: ExecutionRow, format: 'arrow' | 'csv', signal: AbortSignal): Promise<AsyncGenerator<Uint8Array>> {
    const key = await this.resultKey(row);
    return format === 'arrow' ? this.engine.arrowStream(key, { signal }) : this.engine.csvStream(key, { signal });
  }

  /** Distinct values of one dataset column, the identifier quoted, the limit bound. */
  async distinct(dataset: ResourceRow, column: string, limit: number): Promise<unknown[]> {
    const a = datasetAttrs(dataset);
    if (a.status !== 'ready' || !a.storageKey) throw new StudioError(409, `Dataset ${dataset.name} is not ready (status: ${a.status})`);
    if (!a.metadata.columns.some((c) => c.name === column)) throw badInput(`Unknown column ${column}`);
    const file = await this.engine.store.localPath(a.storageKey);
    const col = quoteIdent(column);
    const rows = await this.engine.query(`SELECT DISTINCT ${col} AS value FROM read_parquet(${quoteLiteral(file)}) WHERE ${col} IS NOT NULL ORDER BY 1 LIMIT $1`, [limit]);
    return rows.map((r) => r.value);
  }

  /** Resolves a table name of user SQL to the Parquet file of a dataset the caller reads. */
  private datasetFile(caller: Caller, name: string, aliases: Map<string, ResourceRow>): Promise<string> {
    return datasetFileFor({ db: this.db, access: this.access, engine: this.engine }, caller, name, aliases);
  }

  /** COPY of checked SQL to Parquet on a pooled connection; an abort interrupts DuckDB. */
  private async copyToParquet(sql: string, params: Record<string, DuckDBValue>, file: string, signal: AbortSignal): Promise<number> {
    const pooled = await this.engine.connection();
    const stop = () => pooled.connection.interrupt();
    signal.addEventListener('abort', stop, { once: true });
    try {
      if (signal.aborted) throw new StudioError(499, 'The query was cancelled');
      const r = await pooled.connection.runAndReadAll(`COPY (${sql}) TO ${quoteLiteral(file)} (FORMAT parquet)`, Object.keys(params).length ? params : undefined);
      return Number(r.getRows()[0]?.[0] ?? 0);
    } finally {
      signal.removeEventListener('abort', stop);
      pooled.release();
    }
  }

  /** Warehouse rows (the warehouse's text) to typed Parquet: NDJSON keyed c0..cN, cast and renamed in DuckDB. */
  private async warehouseToParquet(driver: WarehouseDriver, target: DriverTarget, query: string, values: ParamValues, file: string, signal: AbortSignal): Promise<number> {
    const raw = `${file}.ndjson`;
    try {
      return await this.copyToParquet(await this.fetchRaw(driver, target, query, values, raw, signal), {}, file, signal);
    } finally {
      await fs.rm(raw, { force: true });
    }
  }

  /**
   * The warehouse's answer as it came (its CSV or NDJSON text, in `file`), and the DuckDB SELECT that reads
   * it typed: the drivers' column types cast, the columns renamed as the warehouse named them.
   */
  private async fetchRaw(driver: WarehouseDriver, target: DriverTarget, query: string, values: ParamValues, file: string, signal: AbortSignal): Promise<string> {
    const { columns, format } = await driver.fetch(target, query, values, file, signal);
    const select = columns.map((c, k) => `TRY_CAST(c${k} AS ${SAFE_TYPE.test(c.duckType) ? c.duckType : 'VARCHAR'}) AS ${quoteIdent(uniqueName(columns, k))}`).join(', ');
    const struct = columns.map((_c, k) => `c${k}: 'VARCHAR'`).join(', ');
    // PostgreSQL's COPY CSV: an unquoted empty field is NULL, a quoted one the empty string.
    const rows = format === 'csv'
      ? `read_csv(${quoteLiteral(file)}, header = false, auto_detect = false, delim = ',', quote = '"', escape = '"', allow_quoted_nulls = false, columns = {${struct}})`
      : `read_json(${quoteLiteral(file)}, format = 'newline_delimited', columns = {${struct}})`;
    return `SELECT ${select} FROM ${rows}`;
  }

  /**
   * A statement of the studio's own making run on the connection's warehouse, its answer left as the
   * warehouse sent it in `file` (the caller removes it): answers the DuckDB SELECT that reads it typed. For
   * answers read once (a pipeline's rows, a widget's), this spares writing and reading a Parquet copy.
   */
  async warehouseRows(connection: ResourceRow, sql: string, values: Record<string, unknown>, file: string, signal: AbortSignal): Promise<string> {
    const { driver, target } = this.driverOf(connection);
    return this.fetchRaw(driver, target, sql, values as ParamValues, file, signal);
  }

  /**
   * The same statement's answer straight as Arrow IPC bytes handed to `sink` as the warehouse sends rows,
   * where the connection's driver reads its wire format into Arrow (PostgreSQL); null, with nothing sent,
   * where it cannot (then warehouseRows answers).
   */
  async warehouseArrow(connection: ResourceRow, sql: string, values: Record<string, unknown>, sink: (bytes: Uint8Array) => Promise<void>, signal: AbortSignal): Promise<{ rowCount: number } | null> {
    const { driver, target } = this.driverOf(connection);
    if (!driver.fetchArrow) return null;
    return driver.fetchArrow(target, sql, values as ParamValues, sink, signal);
  }
}

/** A DuckDB type name as drivers give it (BIGINT, DECIMAL(18,3), TIMESTAMP WITH TIME ZONE): nothing else reaches the SQL. */
const SAFE_TYPE = /^[A-Z][A-Z_ ]*(\(\d+(, ?\d+)?\))?$/;

/** Column names as a warehouse answers them may repeat (select 1 as a, 2 as a); Parquet's may not. */
function uniqueName(columns: { name: string }[], k: number): string {
  const name = columns[k]!.name || `column${k}`;
  const before = columns.slice(0, k).filter((c) => c.name === name).length;
  return before ? `${name}_${before}` : name;
}


/** The values of the parameters a statement uses: every one must be given; extra ones are dropped. */
export function bindValues(names: string[], values: ParamValues): ParamValues {
  const out: ParamValues = {};
  for (const n of names) {
    if (/^\d+$/.test(n)) throw badInput('Use named parameters ($name), not positional ones');
    if (!(n in values)) throw badInput(`Missing value for parameter $${n}`);
    out[n] = values[n]!;
  }
  return out;
}
