import type { DuckDBConnection } from '@duckdb/node-api';
import { executeDuckDB } from '@studio/pipeline';
import type { ResultCache } from '@studio/analytics';
import { CSV_EXPORT_MAX_ROWS, StudioError, notFound, type DashboardState, type Parameter, type Widget, type WidgetResult } from '@studio/schema';
import type { Caller } from '../../http/caller';
import type { CoreServices } from '../index';
import { compileForCaller } from '../pipelines';
import { measureName, parameterValuesPlan, planWidget, type WidgetRun } from './widget-pipeline';

type Compiled = Awaited<ReturnType<typeof compileForCaller>>;

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
    private readonly services: CoreServices,
    private readonly cache: () => ResultCache,
    private readonly opts: { timeoutMs: number; now?: () => Date },
  ) {}

  private today(): Date {
    return this.opts.now?.() ?? new Date();
  }

  private compile(grantee: Caller, node: unknown): Promise<Compiled> {
    return compileForCaller(this.services, grantee, node);
  }

  /** One compiled query on DuckDB, cancelled after the widget time limit (and when `signal` aborts). */
  private async execute(compiled: Compiled, signal?: AbortSignal): Promise<Record<string, unknown>[]> {
    return this.services.engine.withConnection(async (c: DuckDBConnection) => {
      let timedOut = false;
      const stop = () => c.interrupt();
      const timer = setTimeout(() => {
        timedOut = true;
        stop();
      }, this.opts.timeoutMs);
      signal?.addEventListener('abort', stop);
      try {
        return await executeDuckDB(c, compiled);
      } catch (e) {
        if (timedOut) throw new StudioError(504, `The widget query took longer than ${Math.round(this.opts.timeoutMs / 1000)} s and was cancelled`);
        throw e;
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', stop);
      }
    });
  }

  /** A widget's rows for one set of parameter values and cross-filters, cached per dataset version. */
  async run(grantee: Caller, state: Pick<DashboardState, 'parameters'>, widget: Widget, run: WidgetRun, opts: { signal?: AbortSignal; cacheControl?: string } = {}): Promise<WidgetResult> {
    const plan = planWidget(widget, state.parameters, run, this.today());
    const main = await this.compile(grantee, plan.main);
    const count = plan.count && (await this.compile(grantee, plan.count));
    const previous = plan.previous && (await this.compile(grantee, plan.previous));
    const key = { datasets: main.datasetVersions, query: [main.sql, main.params, count?.sql, count?.params, previous?.sql, previous?.params] };
    return this.cache().widget(
      key,
      async () => {
        const rows = await this.execute(main, opts.signal);
        const names = columnNames(widget, rows);
        const result: WidgetResult = {
          columns: names.map((name) => ({ name, type: typeOf(rows.find((r) => r[name] !== null)?.[name]) })),
          rows: rows.map((r) => names.map((n) => r[n] ?? null)),
        };
        if (count) result.total = Number((await this.execute(count, opts.signal))[0]?.total ?? 0);
        if (previous) {
          const prev = (await this.execute(previous, opts.signal))[0];
          result.previous = prev ? names.map((n) => prev[n] ?? null) : null;
        }
        return result;
      },
      { cacheControl: opts.cacheControl },
    );
  }

  /** A widget's rows as CSV (up to CSV_EXPORT_MAX_ROWS), streamed from the engine. */
  async csv(grantee: Caller, state: Pick<DashboardState, 'parameters'>, widget: Widget, run: WidgetRun, signal: AbortSignal): Promise<AsyncGenerator<Uint8Array>> {
    const plan = planWidget(widget, state.parameters, run, this.today(), { csvLimit: CSV_EXPORT_MAX_ROWS });
    const compiled = await this.compile(grantee, plan.main);
    return this.services.engine.csvStream({ sql: compiled.sql, params: compiled.params }, { signal });
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
