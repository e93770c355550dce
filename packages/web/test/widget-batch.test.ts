import { beforeAll, describe, expect, it } from 'vitest';
import { StudioClient } from '@studio/client';
import { DASHBOARD_STATE_VERSION, type DashboardState, type Widget, type WidgetBatchBody } from '@studio/schema';
import { widgetBatcher, type SendBatch, type WidgetAsk } from '../src/dashboard/widget-batch';
import { useRealStudio } from './real-studio';

/** The dashboard page's widget batches against a real studio: what goes out, and what each widget gets. */
describe('widget batches', () => {
  const { ctx, tokenOf } = useRealStudio();
  let client: StudioClient;
  let dashId: string;

  const widget = (id: string, kind: Widget['kind'], datasetId: string, query: Partial<NonNullable<Widget['query']>>): Widget => ({
    id, kind, title: id, parameterIds: [], options: { numberFormat: 'number', decimals: 0 },
    query: { datasetId, dimensions: [], measures: [], columns: [], filters: [], limit: 1000, ...query },
  });

  beforeAll(async () => {
    client = new StudioClient({ baseUrl: ctx.address, token: tokenOf('owner') });
    const up = await fetch(`${ctx.address}/v1/datasets/data?name=Shops`, { method: 'POST', headers: { authorization: `Bearer ${tokenOf('owner')}`, 'content-type': 'text/csv' }, body: 'shop,kind,sales\nA,Cafe,10\nB,Cafe,20\nC,Fuel,5\n' });
    const datasetId = ((await up.json()) as { item: { id: string } }).item.id;
    const state: DashboardState = {
      version: DASHBOARD_STATE_VERSION,
      parameters: [],
      layout: [],
      widgets: [
        widget('by-kind', 'bar', datasetId, { dimensions: ['kind'], measures: [{ fn: 'sum', column: 'sales' }] }),
        widget('total', 'kpi', datasetId, { measures: [{ fn: 'sum', column: 'sales' }], limit: 1 }),
        widget('rows', 'table', datasetId, { columns: ['shop', 'sales'] }),
      ],
    };
    const made = await fetch(`${ctx.address}/v1/dashboards`, { method: 'POST', headers: { authorization: `Bearer ${tokenOf('owner')}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Shops', latestState: state }) });
    dashId = ((await made.json()) as { item: { id: string } }).item.id;
  }, 120_000);

  /** The real batch call, with what each request carried and its signal kept. */
  const recorder = () => {
    const sent: { body: WidgetBatchBody; signal: AbortSignal }[] = [];
    const send: SendBatch = (body, onLine, signal) => {
      sent.push({ body, signal });
      return client.dashboards.runWidgets(dashId, body, onLine, signal);
    };
    return { sent, run: widgetBatcher(send) };
  };
  const ask = (widgetId: string, extra: Partial<WidgetAsk> = {}): WidgetAsk => ({ widgetId, parameters: {}, crossFilters: [], page: 0, ...extra });

  it('the widgets asked in one turn go as one request, each answered with its own rows', async () => {
    const { sent, run } = recorder();
    const signal = new AbortController().signal;
    const [bar, total, rows] = await Promise.all([run(ask('by-kind'), signal), run(ask('total'), signal), run(ask('rows'), signal)]);
    expect(sent.map((s) => s.body.widgets.map((w) => w.id))).toEqual([['by-kind', 'total', 'rows']]);
    expect(bar.rows).toEqual([['Cafe', 30], ['Fuel', 5]]);
    expect(total.rows).toEqual([[35]]);
    expect(rows.total).toBe(3);
  });

  it('different cross-filters go as separate requests; the same widget asked twice waits on one line', async () => {
    const { sent, run } = recorder();
    const signal = new AbortController().signal;
    const fuel = { crossFilters: [{ widgetId: 'by-kind', column: 'kind', value: 'Fuel' }] };
    const [all, again, onlyFuel] = await Promise.all([run(ask('total'), signal), run(ask('total'), signal), run(ask('total', fuel), signal)]);
    expect(sent.map((s) => s.body.widgets.length)).toEqual([1, 1]);
    expect([all.rows, again.rows, onlyFuel.rows]).toEqual([[[35]], [[35]], [[5]]]);
  });

  it("a widget's own error rejects it alone, with the server's status and message", async () => {
    const { run } = recorder();
    const signal = new AbortController().signal;
    const [missing, total] = await Promise.allSettled([run(ask('no-such-widget'), signal), run(ask('total'), signal)]);
    expect(missing.status === 'rejected' && (missing.reason as { status: number; message: string })).toMatchObject({ status: 404, message: 'Widget not found' });
    expect(total.status === 'fulfilled' && total.value.rows).toEqual([[35]]);
  });

  it('a widget that stops waiting is rejected at once; the request is cancelled only when none waits', async () => {
    const { sent, run } = recorder();
    const one = new AbortController();
    const other = new AbortController();
    const first = run(ask('by-kind'), one.signal);
    const second = run(ask('total'), other.signal);
    await new Promise((r) => setTimeout(r, 0));
    one.abort();
    await expect(first).rejects.toMatchObject({ name: 'AbortError' });
    expect(sent[0]!.signal.aborted).toBe(false);
    expect((await second).rows).toEqual([[35]]);

    const both = [new AbortController(), new AbortController()];
    const third = run(ask('rows'), both[0]!.signal);
    const fourth = run(ask('total', { page: 1 }), both[1]!.signal);
    await new Promise((r) => setTimeout(r, 0));
    for (const c of both) c.abort();
    await expect(third).rejects.toMatchObject({ name: 'AbortError' });
    await expect(fourth).rejects.toMatchObject({ name: 'AbortError' });
    expect(sent[1]!.signal.aborted).toBe(true);
  });
});
