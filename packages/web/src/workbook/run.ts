import { checkPipeline } from '@studio/pipeline';
import type { StudioClient, TempView } from '@studio/client';
import type { StepCell, SqlCell, WorkbookCell, WorkbookState } from '@studio/schema';
import { inputProblem, makesTable, readsOf } from './cells';

/** Rows shown under a cell. */
export const PREVIEW_ROWS = 100;
/** A view this close to its expiry is made again rather than named: a cell's run must not outlive its input. */
const VIEW_MARGIN_MS = 10_000;

export interface Column {
  name: string;
  type: string;
}

/** What a table-making cell made: where later cells find it, its size and first rows, and how it ran. */
export interface CellResult {
  key: string;
  /** What later cells name: a temporary view, or the dataset itself for a dataset step. */
  ref: string;
  /** When `ref` stops answering (ms since epoch); null for a dataset. */
  expiresAt: number | null;
  rowCount: number;
  columns: Column[];
  rows: Record<string, unknown>[];
  ms: number;
  /** Where it ran: DuckDB, or a warehouse (a step pushed down to it). */
  engine: string;
  /** The connection this result can be computed on (a live dataset, or steps over one): later steps push down there. */
  live: string | null;
}

export type CellStatus =
  | { state: 'idle' }
  | { state: 'stale'; reason: string }
  | { state: 'running'; since: number }
  | { state: 'done'; result: CellResult }
  | { state: 'error'; message: string };

type Client = Pick<StudioClient, 'pipelines' | 'datasets'>;

/** What a cell computes, without its name or layout: cells that compute the same read the same cache entry. */
function contentOf(cell: StepCell | SqlCell): unknown {
  return cell.kind === 'step' ? ['step', cell.node] : ['sql', cell.query];
}

/**
 * Runs a workbook's cells and keeps their results by content: a cell's key is what it computes plus the
 * keys of the cells it reads, so editing a cell changes its key and the keys of the cells below that read
 * it, and only those run again; every other cell answers from the cache. Results live in temporary views
 * (60 s, catalog §9): one whose view has expired is run again when a cell below needs it.
 */
export class WorkbookRunner {
  private readonly cache = new Map<string, CellResult>();
  /** How many times each cell (by id) has run: what a user sees as "ran N times", and what tests read. */
  readonly runs = new Map<string, number>();
  /** The temporary view each cell (by id) made last: its next run supersedes it (`replaces`) unless a cell still reads it. */
  private readonly lastView = new Map<string, string>();

  constructor(
    private readonly client: Client,
    private readonly now: () => number = Date.now,
    /**
     * Live views of this runner from which a cell run again supersedes its last one: below it, an edit undone finds
     * its results still there; from it on, the server's limit of views a user (STUDIO_TEMP_VIEWS_PER_USER, 20 by
     * default) is not met by results nobody reads. Half the default limit.
     */
    private readonly supersedeFrom = 10,
  ) {}

  /** Keys by state: states are immutable, and a render asks for the same state's keys once per cell. */
  private readonly keyCache = new WeakMap<WorkbookState, Map<string, string>>();

  /** The key of every table-making cell whose inputs are all keyed; others are missing (they cannot run yet). */
  keysOf(state: WorkbookState): Map<string, string> {
    let keys = this.keyCache.get(state);
    if (!keys) this.keyCache.set(state, (keys = this.computeKeys(state)));
    return keys;
  }

  private computeKeys(state: WorkbookState): Map<string, string> {
    const keys = new Map<string, string>();
    const byName = new Map<string, string>();
    for (const cell of state.cells) {
      if (!makesTable(cell) || inputProblem(cell, state)) continue;
      const inputs = readsOf(cell, state).map((n) => byName.get(n.toLowerCase()));
      if (inputs.some((k) => k === undefined)) continue;
      const key = JSON.stringify([contentOf(cell as StepCell | SqlCell), cell.kind === 'sql' ? readsOf(cell, state).map((n, i) => [n.toLowerCase(), inputs[i]]) : inputs]);
      keys.set(cell.id, key);
      byName.set(cell.name.toLowerCase(), key);
    }
    return keys;
  }

  /** The cached result of a cell as it is now, if it has run with this content and these inputs. */
  cached(cell: WorkbookCell, state: WorkbookState): CellResult | undefined {
    const key = this.keysOf(state).get(cell.id);
    return key === undefined ? undefined : this.cache.get(key);
  }

  /**
   * Runs the cells that need it, top to bottom, reporting each cell's status as it changes. With `only`,
   * that cell and the cells below that read it (directly or not); otherwise every cell. A cell whose
   * result is cached is not run again.
   */
  async run(state: WorkbookState, report: (id: string, status: CellStatus) => void, opts: { only?: string; signal?: AbortSignal } = {}): Promise<void> {
    const wanted = opts.only ? this.dependentsOf(state, opts.only) : new Set(state.cells.map((c) => c.id));
    const failed = new Set<string>();
    for (const cell of state.cells) {
      if (!wanted.has(cell.id) || !makesTable(cell)) continue;
      if (opts.signal?.aborted) return;
      const problem = inputProblem(cell, state);
      const blocked = readsOf(cell, state).find((n) => failed.has(n.toLowerCase()));
      if (problem || blocked) {
        failed.add(cell.name.toLowerCase());
        report(cell.id, problem ? { state: 'error', message: problem } : { state: 'stale', reason: `Waiting for ${blocked} to run without errors` });
        continue;
      }
      try {
        const result = await this.resultWithFreshViews(cell as StepCell | SqlCell, state, report, opts.signal);
        report(cell.id, { state: 'done', result });
      } catch (e) {
        failed.add(cell.name.toLowerCase());
        if (opts.signal?.aborted) return report(cell.id, { state: 'stale', reason: 'Cancelled: run it again' });
        report(cell.id, { state: 'error', message: messageOf(e) });
      }
    }
  }

  /** `id` and the cells below it that read it, directly or through others. */
  dependentsOf(state: WorkbookState, id: string): Set<string> {
    const out = new Set<string>([id]);
    const names = new Set<string>();
    const start = state.cells.find((c) => c.id === id);
    if (start) names.add(start.name.toLowerCase());
    for (const cell of state.cells) {
      if (readsOf(cell, state).some((n) => names.has(n.toLowerCase()))) {
        out.add(cell.id);
        names.add(cell.name.toLowerCase());
      }
    }
    return out;
  }

  /**
   * `resultOf`, once more when a view it named had gone before its time (another API node answered, or the
   * server restarted): results that name that view are forgotten, and so made again.
   */
  private async resultWithFreshViews(cell: StepCell | SqlCell, state: WorkbookState, report: (id: string, status: CellStatus) => void, signal?: AbortSignal): Promise<CellResult> {
    try {
      return await this.resultOf(cell, state, report, signal);
    } catch (e) {
      const gone = vanishedView(e);
      if (!gone) throw e;
      for (const [key, r] of this.cache) if (r.ref === gone) this.cache.delete(key);
      return this.resultOf(cell, state, report, signal);
    }
  }

  /** A cell's result whose reference still answers: from the cache, or run now (its inputs first, if needed). */
  private async resultOf(cell: StepCell | SqlCell, state: WorkbookState, report: (id: string, status: CellStatus) => void, signal?: AbortSignal): Promise<CellResult> {
    const key = this.keysOf(state).get(cell.id);
    if (key === undefined) throw new Error(inputProblem(cell, state) ?? `${cell.name} cannot run yet`);
    const known = this.cache.get(key);
    if (known && (known.expiresAt === null || known.expiresAt - this.now() > VIEW_MARGIN_MS)) return known;
    const inputs: CellResult[] = [];
    for (const name of readsOf(cell, state)) {
      const input = state.cells.find((c) => c.name.toLowerCase() === name.toLowerCase()) as StepCell | SqlCell;
      inputs.push(await this.resultOf(input, state, report, signal));
    }
    report(cell.id, { state: 'running', since: Date.now() });
    const started = performance.now();
    const replaces = this.supersededView(cell.id, state);
    let made: Made;
    try {
      made = cell.kind === 'step' ? await this.runStep(cell, state, inputs, signal, replaces) : await this.runSql(cell, state, readsOf(cell, state), inputs, signal, replaces);
    } catch (e) {
      // A run that found an input's view gone is not a run of this cell: the inputs are made again first.
      // Nor is a run cancelled before it answered.
      if (!vanishedView(e) && !signal?.aborted) this.countRun(cell.id);
      throw e;
    }
    this.countRun(cell.id);
    if (replaces) for (const [k, r] of this.cache) if (r.ref === replaces) this.cache.delete(k);
    if (made.expiresAt !== null) this.lastView.set(cell.id, made.ref);
    const result: CellResult = { key, ...made, ms: performance.now() - started };
    this.cache.set(key, result);
    return result;
  }

  private liveViews(): number {
    const live = new Set<string>();
    for (const r of this.cache.values()) if (r.expiresAt !== null && r.expiresAt > this.now()) live.add(r.ref);
    return live.size;
  }

  /**
   * The view the cell's last run made, if no cell of `state` still reads it (cells computing the same share a
   * result) and the runner holds `supersedeFrom` live views or more: the server drops it once the new one is written,
   * so a large workbook edited and run again within a view's 60 s keeps about one view a cell instead of meeting the
   * per-user limit.
   */
  private supersededView(id: string, state: WorkbookState): string | undefined {
    const last = this.lastView.get(id);
    if (last === undefined || this.liveViews() < this.supersedeFrom) return undefined;
    for (const key of this.keysOf(state).values()) if (this.cache.get(key)?.ref === last) return undefined;
    return last;
  }

  private countRun(id: string): void {
    this.runs.set(id, (this.runs.get(id) ?? 0) + 1);
  }

  private async runStep(cell: StepCell, state: WorkbookState, inputs: CellResult[], signal?: AbortSignal, replaces?: string): Promise<Made> {
    // Over live datasets of one warehouse, the step goes with the steps it reads, so the warehouse runs the
    // chain (push-down); a tile join reads tiles, not tables: its inputs go in as the hex-tile steps.
    const live = liveOf(cell, inputs);
    const input =
      cell.node.type === 'tileJoin' ? cell.inputs.map((n) => tileNodeOf(state, n))
      : live ? cell.inputs.map((n) => chainOf(state, n))
      : inputs.map((r) => ({ type: 'dataset', uuid: r.ref, input: [] }));
    const pipeline = { ...cell.node, input };
    const checked = checkPipeline(pipeline);
    // The node's own validator speaks: its inputs are views already checked, so its path is the step's.
    if (!checked.ok) throw new Error(checked.message);
    // A dataset is named as it is: copying it into a view would cost a scan and buy nothing. Its schema
    // and row count are in its record; its first rows come from its preview.
    if (cell.node.type === 'dataset') {
      const uuid = String(cell.node.uuid);
      const [dataset, preview] = await Promise.all([this.client.datasets.get(uuid), this.client.datasets.preview(uuid, 0, PREVIEW_ROWS, signal)]);
      const columns = dataset.metadata.columns.map((c) => ({ name: c.name, type: c.duckdbType }));
      const connection = dataset.type === 'sql' ? dataset.dataConnectionId : null;
      return { ref: uuid, expiresAt: null, rowCount: dataset.metadata.rowCount ?? preview.total, columns, rows: preview.items, engine: 'DuckDB', live: connection };
    }
    try {
      return { ...madeOf(await this.client.pipelines.materialize(pipeline, { preview: PREVIEW_ROWS, signal, replaces })), live };
    } catch (e) {
      // What the warehouse's dialect lacks (H3 functions, …: 409) runs on DuckDB over the inputs' results.
      if (!live || (e as { status?: number }).status !== 409) throw e;
      const local = { ...cell.node, input: inputs.map((r) => ({ type: 'dataset', uuid: r.ref, input: [] })) };
      return { ...overFetched(madeOf(await this.client.pipelines.materialize(local, { preview: PREVIEW_ROWS, signal, replaces })), inputs), live: null };
    }
  }

  /**
   * SQL cells run on DuckDB over the cells' results; when every cell they name lives on one warehouse, in
   * that warehouse's dialect over the cells' pipelines (the server falls back to DuckDB when it cannot).
   */
  private async runSql(cell: SqlCell, state: WorkbookState, names: string[], inputs: CellResult[], signal?: AbortSignal, replaces?: string): Promise<Made> {
    const tables = Object.fromEntries(names.map((n, i) => [n, inputs[i]!.ref]));
    const live = inputs[0]?.live ?? null;
    const pipelines = live && inputs.every((r) => r.live === live) ? Object.fromEntries(names.map((n) => [n, chainOf(state, n)])) : undefined;
    return { ...overFetched(madeOf(await this.client.pipelines.materializeSql(cell.query, tables, { preview: PREVIEW_ROWS, signal, pipelines, replaces })), inputs), live: null };
  }

  /**
   * The result of the cell named `name` with a view that still answers: the cached one, or run again (with
   * its inputs, if they have expired too) for a save, a download or a drawing some time after the run.
   */
  async fresh(state: WorkbookState, name: string, signal?: AbortSignal): Promise<CellResult> {
    const cell = state.cells.find((c) => c.name.toLowerCase() === name.toLowerCase());
    if (!cell || !makesTable(cell)) throw new Error(`${name} is not a cell that makes a table`);
    return this.resultWithFreshViews(cell as StepCell | SqlCell, state, () => undefined, signal);
  }

  /** A cell's result as an Arrow IPC stream (at most `limit` rows), for kepler.gl in a map cell. */
  async arrowOf(state: WorkbookState, name: string, limit: number, signal?: AbortSignal): Promise<Uint8Array> {
    const result = await this.fresh(state, name, signal);
    return (await this.client.pipelines.arrow({ type: 'limit', length: limit, input: [{ type: 'dataset', uuid: result.ref, input: [] }] }, signal)).bytes;
  }

  /** Rows of a cell's result for a chart (at most `limit`). */
  async rowsOf(state: WorkbookState, name: string, limit: number, signal?: AbortSignal): Promise<Record<string, unknown>[]> {
    const result = await this.fresh(state, name, signal);
    return this.client.pipelines.rows({ type: 'limit', length: limit, input: [{ type: 'dataset', uuid: result.ref, input: [] }] }, signal);
  }
}

const TILE_STEPS = new Set(['hexTile', 'tileExtract', 'tileJoin']);

/** The pipeline node of a hex-tile step (with its own tile inputs), for a tile join that reads it. */
function tileNodeOf(state: WorkbookState, name: string): unknown {
  const cell = state.cells.find((c) => c.name.toLowerCase() === name.toLowerCase());
  if (cell?.kind !== 'step' || !TILE_STEPS.has(cell.node.type)) throw new Error(`A tile join reads hex tile steps (hex tile, tile extract or tile join): ${name} is not one`);
  return chainOf(state, name);
}

/** The temporary view an error says has gone (expired, or made on another API node), if it says so. */
function vanishedView(e: unknown): string | undefined {
  return /Temporary view (temp_[a-z0-9]{6}) not found or expired/.exec(e instanceof Error ? e.message : '')?.[1];
}

/** What running a cell made, before it is timed and keyed. */
type Made = Omit<CellResult, 'key' | 'ms'>;

function madeOf(view: TempView): Omit<Made, 'live'> {
  const engine = !view.engine || view.engine === 'duckdb' ? 'DuckDB' : `${view.engine}${WAREHOUSE_SUFFIX}`;
  return { ref: view.name, expiresAt: Date.parse(view.expiresAt), rowCount: view.rowCount, columns: view.columns ?? [], rows: view.rows ?? [], engine };
}

const WAREHOUSE_SUFFIX = ' (warehouse)';

/**
 * A result DuckDB computed over inputs a warehouse computed says so: those inputs' rows were fetched from the
 * warehouse into the studio (their temporary views), so the user knows the cell did not run where its inputs did.
 */
function overFetched<M extends { engine: string }>(made: M, inputs: CellResult[]): M {
  const warehouses = [...new Set(inputs.filter((r) => r.engine.endsWith(WAREHOUSE_SUFFIX)).map((r) => r.engine.slice(0, -WAREHOUSE_SUFFIX.length)))];
  if (made.engine !== 'DuckDB' || !warehouses.length) return made;
  return { ...made, engine: `DuckDB, over results fetched from ${warehouses.join(' and ')}` };
}

/** Steps a warehouse dialect compiles (the others need the studio's engine: H3, tiles, inline rows). */
const PUSHED_DOWN = new Set(['select', 'filter', 'group', 'sort', 'limit', 'join']);

/** The connection a step can run on with its inputs: every input lives on that one warehouse. */
function liveOf(cell: StepCell, inputs: CellResult[]): string | null {
  const first = inputs[0]?.live ?? null;
  return PUSHED_DOWN.has(cell.node.type) && first && inputs.every((r) => r.live === first) ? first : null;
}

/** A step cell's whole pipeline, its inputs' steps inlined down to the datasets (what a warehouse runs). */
function chainOf(state: WorkbookState, name: string): unknown {
  const cell = state.cells.find((c) => c.name.toLowerCase() === name.toLowerCase());
  if (cell?.kind !== 'step') throw new Error(`${name} is not a step`);
  return { ...cell.node, input: cell.inputs.map((n) => chainOf(state, n)) };
}

function messageOf(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const details = (e as { details?: unknown }).details;
  return typeof details === 'string' && details && !message.includes(details) ? `${message}: ${details}` : message;
}
