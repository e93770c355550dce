import type { DuckDBConnection } from '@duckdb/node-api';
import { executeDuckDB } from '@studio/pipeline';
import { buildTemplateQuery, canonicalJson, parseParameters, runQuery, templateOf, type ResultCache } from '@studio/analytics';
import { CSV_EXPORT_MAX_ROWS, StudioError, measureName, notFound, type DashboardState, type Parameter, type SpreadsheetForm, type Widget, type WidgetResult } from '@studio/schema';
import { csvField, csvLine, spreadsheetField } from '../csv-text';
import type { Caller } from '../../http/caller';
import { compileForCaller, type DatasetReads, type PipelineDeps, type PushDown } from '../pipelines';
import type { AnalyticsService } from '../analytics';
import fs from 'node:fs/promises';
import { checkedValues, parameterValuesPlan, planWidget, type WidgetRun } from './widget-pipeline';
import { analyticParameters, analyticResult } from './analytic-widgets';
import { assertGroup } from '../analytics';
import { sharedRun } from '../shared-runs';

type Compiled = Awaited<ReturnType<typeof compileForCaller>>;

/** What a compiled query's answer depends on: its text and values, and, pushed down, the connection as saved. */
const queryKeyOf = (c: Compiled | null | undefined) =>
  !c ? null : c.pushDown ? [c.pushDown.connection.id, String(c.pushDown.connection.updated_at), c.pushDown.sql, c.pushDown.values] : [c.sql, c.params];

export interface WidgetRunOptions {
  /** Aborts when every reader waiting for the widget has gone. */
  signal?: AbortSignal;
  /** The request's Cache-Control: `no-cache` recomputes. */
  cacheControl?: string;
  /** Dataset checks shared with the other widgets of the same request. */
  reads?: DatasetReads;
}

/** Status of a computation cancelled because every request waiting for it went away (nginx's "client closed"). */
const READERS_LEFT = 499;

/** A JSON-friendly type name of a value, for columns of a widget result. */
const typeOf = (v: unknown) => (v === null || v === undefined ? 'null' : typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'boolean' : 'string');

/**
 * Runs dashboard widgets. `grantee` is whose access the queries run under: the dashboard's owner for a
 * saved, shared or published dashboard (its readers get what the owner chose to show, nothing more),
 * the editor for a draft widget. Every dataset read is checked against the grantee on each run, so a
 * dataset the owner can no longer read fails that widget only (404 in its place).
 */
export class DashboardWidgets {
  constructor(
    private readonly services: PipelineDeps & { analytics: AnalyticsService },
    private readonly cache: () => ResultCache,
    private readonly opts: { timeoutMs: number; now?: () => Date },
  ) {}

  private today(): Date {
    return this.opts.now?.() ?? new Date();
  }

  /** Over live datasets of one warehouse, the widget's query is compiled for that warehouse (push-down). */
  private compile(grantee: Caller, node: unknown, reads?: DatasetReads): Promise<Compiled> {
    return compileForCaller(this.services, grantee, node, { pushDown: true, reads });
  }

  /** One query on DuckDB, or pushed down to its warehouse, cancelled after the widget time limit (and when `signal` aborts). */
  private async execute(compiled: Compiled, signal?: AbortSignal): Promise<Record<string, unknown>[]> {
    if (compiled.pushDown) return this.pushedDown(compiled.pushDown, signal);
    return this.withTimeout(signal, (c) => executeDuckDB(c, compiled));
  }

  /** Runs on the warehouse into a file of its own, read back with DuckDB, the file removed after. */
  private async pushedDown(p: PushDown, signal?: AbortSignal): Promise<Record<string, unknown>[]> {
    const file = await this.services.executions.pushDownFile();
    const timeout = AbortSignal.timeout(this.opts.timeoutMs);
    let rows: string;
    try {
      rows = await this.services.executions.warehouseRows(p.connection, p.sql, p.values, file, signal ? AbortSignal.any([signal, timeout]) : timeout);
    } catch (e) {
      await fs.rm(file, { force: true });
      if (timeout.aborted) throw new StudioError(504, `The widget query took longer than ${Math.round(this.opts.timeoutMs / 1000)} s and was cancelled`);
      if (signal?.aborted) throw new StudioError(READERS_LEFT, 'The widget query was cancelled: its readers left');
      throw e;
    }
    try {
      return await this.withTimeout(signal, (c) => executeDuckDB(c, { sql: rows, params: [] }, { keepPrepared: false }));
    } finally {
      await fs.rm(file, { force: true });
    }
  }

  private async withTimeout<T>(signal: AbortSignal | undefined, work: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    return this.services.engine.withConnection(async (c: DuckDBConnection) => {
      let timedOut = false;
      const stop = () => c.interrupt();
      const timer = setTimeout(() => {
        timedOut = true;
        stop();
      }, this.opts.timeoutMs);
      signal?.addEventListener('abort', stop);
      try {
        return await work(c);
      } catch (e) {
        if (timedOut) throw new StudioError(504, `The widget query took longer than ${Math.round(this.opts.timeoutMs / 1000)} s and was cancelled`);
        // Every reader waiting for it left: nobody reads this answer, but it is not a server fault.
        if (signal?.aborted) throw new StudioError(READERS_LEFT, 'The widget query was cancelled: its readers left');
        throw e;
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', stop);
      }
    });
  }

  /**
   * A widget's rows for one set of parameter values and cross-filters, cached per dataset version.
   * `reads` shares dataset checks with the other widgets of the same request.
   */
  async run(grantee: Caller, state: Pick<DashboardState, 'parameters'>, widget: Widget, run: WidgetRun, opts: WidgetRunOptions = {}): Promise<WidgetResult> {
    if (widget.analytic) return analyticResult(widget, await this.templateRows(grantee, state, widget, run, opts), run);
    const plan = planWidget(widget, state.parameters, run, this.today());
    const [main, count, previous] = await Promise.all([plan.main, plan.count, plan.previous].map((node) => node && this.compile(grantee, node, opts.reads)));
    const key = { datasets: main!.datasetVersions, query: [main, count, previous].map(queryKeyOf) };
    return this.shared(key, opts, (signal) => this.cache().widget(
      key,
      async () => {
        // The rows, a table's total and a KPI's previous period are independent queries: run at once.
        const [rows, counted, before] = await Promise.all([this.execute(main!, signal), count && this.execute(count, signal), previous && this.execute(previous, signal)]);
        const names = columnNames(widget, rows);
        const result: WidgetResult = {
          columns: names.map((name) => ({ name, type: typeOf(rows.find((r) => r[name] !== null)?.[name]) })),
          rows: rows.map((r) => names.map((n) => r[n] ?? null)),
        };
        if (counted) result.total = Number(counted[0]?.total ?? 0);
        if (before) {
          const prev = before[0];
          result.previous = prev ? names.map((n) => prev[n] ?? null) : null;
        }
        return result;
      },
      { cacheControl: opts.cacheControl },
    ));
  }

  /** Checks the parameter values every widget of a request is bound to (422 naming the parameter) before any runs. */
  checkParameters(widgets: Widget[], state: Pick<DashboardState, 'parameters'>, given: Record<string, string>): void {
    const today = this.today();
    for (const w of widgets) checkedValues(w, state.parameters, given, today);
  }

  /**
   * One computation for identical concurrent requests (the cache joins them), cancelled only when all of
   * them have gone; a request that asks for no cache gets a run of its own.
   */
  private shared<T>(key: unknown, opts: { signal?: AbortSignal; cacheControl?: string }, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const own = /no-(cache|store)/i.test(opts.cacheControl ?? '');
    const shareKey = own ? `own:${Math.random()}` : `widget:${canonicalJson(key)}`;
    return sharedRun(shareKey, opts.signal, work).catch((e: unknown) => {
      // Joined a computation its last readers had just cancelled (a reload lands in that instant): run again.
      if (e instanceof StudioError && e.status === READERS_LEFT && !opts.signal?.aborted) return sharedRun(shareKey, opts.signal, work);
      throw e;
    });
  }

  /**
   * The rows of an analytic-set widget's template, over the grantee's bound data (their organization's
   * analytic-set config, else the built-in sample), cached with the analytic sets' own results.
   */
  private async templateRows(grantee: Caller, state: Pick<DashboardState, 'parameters'>, widget: Widget, run: WidgetRun, opts: { signal?: AbortSignal; cacheControl?: string }) {
    const source = widget.analytic!;
    assertGroup(source.groupId);
    templateOf(source.templateId);
    const values = checkedValues(widget, state.parameters, run.parameters, this.today());
    const bound = widget.parameterIds.map((id) => state.parameters.find((p) => p.id === id)).filter((p): p is Parameter => p !== undefined);
    const parameters = parseParameters(analyticParameters(source, bound, values));
    const analytics = this.services.analytics;
    const b = await analytics.binding(grantee, source.groupId);
    const built = buildTemplateQuery(source.templateId, parameters, b.tables);
    const key = { organization: b.orgId, groupId: source.groupId, datasets: b.datasets, templateId: source.templateId, parameters };
    return this.shared(key, opts, (signal) => analytics.cache.run(key, () => this.withTimeout(signal, (c) => runQuery(c, built)), { cacheControl: opts.cacheControl }));
  }

  /** A widget's rows as CSV (up to CSV_EXPORT_MAX_ROWS), streamed from the engine; `safe` for a spreadsheet (SpreadsheetForm). */
  async csv(grantee: Caller, state: Pick<DashboardState, 'parameters'>, widget: Widget, run: WidgetRun, signal: AbortSignal, spreadsheet?: SpreadsheetForm): Promise<AsyncGenerator<Uint8Array>> {
    if (widget.analytic) return csvOf(analyticResult(widget, await this.templateRows(grantee, state, widget, run, { signal }), run, { csv: true }), spreadsheet);
    const plan = planWidget(widget, state.parameters, run, this.today(), { csvLimit: CSV_EXPORT_MAX_ROWS });
    const compiled = await this.compile(grantee, plan.main);
    return this.services.engine.csvStream({ sql: compiled.sql, params: compiled.params }, { signal, spreadsheet });
  }

  /** The choices of a DYNAMIC or DYNAMIC_SQL parameter (distinct values, 1,000 at most), under the grantee's access. */
  async parameterValues(grantee: Caller, p: Parameter, search: string | undefined): Promise<string[]> {
    if (p.source.kind === 'STATIC') return p.source.values.filter((v) => !search || v.toLowerCase().includes(search.toLowerCase()));
    const plan = parameterValuesPlan(p, search)!;
    const compiled = await this.compile(grantee, plan.main);
    const key = { datasets: compiled.datasetVersions, query: [compiled.sql, compiled.params] };
    return this.cache().widget(key, async () => (await this.execute(compiled)).map((r) => String(r.value)));
  }
}

/** A widget result as CSV text (RFC 4180 quoting), one chunk: template results are aggregates, small. */
async function* csvOf(result: WidgetResult, spreadsheet?: SpreadsheetForm): AsyncGenerator<Uint8Array> {
  const field = spreadsheet === 'safe' ? spreadsheetField : csvField;
  const lines = [csvLine(result.columns.map((c) => c.name), field), ...result.rows.map((r) => csvLine(r, field))];
  yield new TextEncoder().encode(lines.join(''));
}

/** Column order of a result: dimensions then measures, or the listed columns (also when no row came back). */
function columnNames(widget: Widget, rows: Record<string, unknown>[]): string[] {
  const q = widget.query!;
  if (q.measures.length) return [...q.dimensions, ...q.measures.map(measureName)];
  if (q.columns.length) return q.columns;
  return rows[0] ? Object.keys(rows[0]) : [];
}

/** The widget of a saved state by id: 404 when the dashboard has none of that id. */
export function widgetOf(state: DashboardState, widgetId: string): Widget {
  const w = state.widgets.find((x) => x.id === widgetId);
  if (!w) throw notFound('Widget not found');
  return w;
}

/** The parameter of a saved state by id: 404 when the dashboard has none of that id. */
export function parameterOf(state: DashboardState, parameterId: string): Parameter {
  const p = state.parameters.find((x) => x.id === parameterId);
  if (!p) throw notFound('Parameter not found');
  return p;
}
