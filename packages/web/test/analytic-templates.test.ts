import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseDashboardState } from '@studio/schema';
import { client } from '../src/app/api';
import { initialParams } from '../src/analytics/AnalyticsView';
import { analyticDashboard, periodAsDays } from '../src/dashboard/analytic-templates';
import { useRealStudio } from './real-studio';
import { useSamplePanel } from '../../server/test/harness';

describe('periods as days', () => {
  it.each([
    [{ periodType: 'MONTHLY', start: '2024-01', end: '2024-02' }, '2024-01-01..2024-02-29'],
    [{ periodType: 'QUARTERLY', start: '2025-Q2', end: '2025-Q4' }, '2025-04-01..2025-12-31'],
    [{ periodType: 'DAILY', start: '2025-03-01', end: '2025-03-09' }, '2025-03-01..2025-03-09'],
  ] as const)('%j', (period, days) => expect(periodAsDays(period)).toBe(days));
});

describe('"Save as dashboard": one template per analytic-set view, against a real studio', () => {
  const { ctx, serve, tokenOf } = useRealStudio();
  const panel = useSamplePanel();
  afterEach(() => vi.unstubAllGlobals());

  it('every view makes a valid dashboard whose every widget answers rows from the server', async () => {
    ctx.s.services.analytics.sampleDir = panel().dir;
    serve();
    client.token = tokenOf('owner');
    const group = await client.analytics.sets('foot-traffic');
    expect(group.views.length).toBe(7);
    for (const view of group.views) {
      const { name, state } = analyticDashboard(group, view.id, initialParams(group, view.id));
      expect(name).toBe(view.title);
      const parsed = parseDashboardState(state);
      expect(parsed.widgets.length, view.id).toBe(view.charts.length);
      expect(parsed.layout.every((l) => l.x + l.w <= 12), view.id).toBe(true);
      for (const widget of parsed.widgets) {
        const result = await client.dashboards.runDraft(widget, parsed.parameters, {});
        expect(result.rows.length, `${view.id} / ${widget.id}`).toBeGreaterThan(0);
        // Charts get exactly their columns; tables and pivots every column of the template.
        if (widget.kind !== 'table' && widget.kind !== 'pivot') expect(result.columns.length, `${view.id} / ${widget.id}`).toBe(widget.analytic!.series ? 3 : 2);
      }
    }
  });

  it('the dashboard period narrows every widget: a shorter period answers fewer periods', async () => {
    ctx.s.services.analytics.sampleDir = panel().dir;
    serve();
    client.token = tokenOf('owner');
    const group = await client.analytics.sets('foot-traffic');
    const { state } = analyticDashboard(group, 'visitation-trends', initialParams(group, 'visitation-trends'));
    const widget = state.widgets.find((w) => w.id === 'trend-dwell')!;
    const whole = await client.dashboards.runDraft(widget, state.parameters, {});
    const from = state.parameters[0]!.defaultValue!.slice(0, 10);
    const short = await client.dashboards.runDraft(widget, state.parameters, { parameters: { period: `${from}..${from.slice(0, 8)}28` } });
    const periods = (r: typeof whole) => new Set(r.rows.map((row) => row[0])).size;
    expect(periods(whole)).toBeGreaterThan(1);
    expect(periods(short)).toBe(1);
  });
});
