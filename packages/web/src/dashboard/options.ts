import { widgetShape, type Widget, type WidgetResult } from '@studio/schema';
import type { EChartsOption } from '../analytics/echarts';

/** A number as the widget's options say: plain, compact (1.2k), percent (of 1) or currency. */
export function formatNumber(v: unknown, o: Widget['options']): string {
  if (typeof v !== 'number') return v === null || v === undefined ? '–' : String(v);
  const digits = { minimumFractionDigits: o.decimals, maximumFractionDigits: o.decimals };
  switch (o.numberFormat) {
    case 'compact': return new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: Math.max(1, o.decimals) }).format(v);
    case 'percent': return new Intl.NumberFormat('en', { style: 'percent', ...digits }).format(v);
    case 'currency': return new Intl.NumberFormat('en', { style: 'currency', currency: 'USD', ...digits }).format(v);
    default: return new Intl.NumberFormat('en', digits).format(v);
  }
}

/** Change against the previous period, as a fraction (null when there is nothing to compare with). */
export function change(now: unknown, before: unknown): number | null {
  return typeof now === 'number' && typeof before === 'number' && before !== 0 ? (now - before) / Math.abs(before) : null;
}

/** Result columns of period starts as epoch milliseconds (the analytic sets' templates answer them so). */
const EPOCH_COLUMN = /epoch_?ms$/i;
const plainLabel = (v: unknown) => (v === null || v === undefined ? '(empty)' : String(v).replace(/T00:00:00(\.000)?Z$/, ''));
/** An axis value as text: dates without a midnight time, epoch-millisecond periods as days. */
export const labelOf = (column: string | undefined) => (v: unknown) =>
  typeof v === 'number' && column && EPOCH_COLUMN.test(column) ? new Date(v).toISOString().slice(0, 10) : plainLabel(v);

/** The ECharts option of a chart widget from its rows: dimensions first, then measures (as the server answers). */
export function chartOption(w: Widget, r: WidgetResult): EChartsOption {
  const shape = widgetShape(w);
  const nDims = shape.dimensions.length;
  const label = labelOf(shape.dimensions[0]);
  const seriesLabel = labelOf(shape.dimensions[1]);
  const fmt = (v: unknown) => formatNumber(v, w.options);
  // Axis ticks fall between the values (0.5 on a count axis): they keep the digits they need.
  const tick = (v: unknown) => formatNumber(v, typeof v === 'number' && !Number.isInteger(v) ? { ...w.options, decimals: Math.max(w.options.decimals, 2) } : w.options);
  const axisNames = { xAxis: { name: w.options.xTitle ?? shape.dimensions[0] ?? '', nameLocation: 'middle', nameGap: 28 }, yAxis: { name: w.options.yTitle ?? r.columns[nDims]?.name ?? '', axisLabel: { formatter: tick } } };
  const tooltip = { trigger: w.kind === 'pie' || w.kind === 'scatter' || w.kind === 'heatmap' ? 'item' : 'axis', valueFormatter: fmt };
  if (w.kind === 'pie') {
    return { tooltip, legend: { bottom: 0, type: 'scroll' }, series: [{ type: 'pie', radius: ['35%', '70%'], data: r.rows.map((row) => ({ name: label(row[0]), value: row[1] })) }] };
  }
  if (w.kind === 'scatter') {
    return { tooltip, grid: { left: 56, right: 16, top: 16, bottom: 40 }, xAxis: { type: 'value', name: w.options.xTitle ?? shape.columns[0], nameLocation: 'middle', nameGap: 28, scale: true }, yAxis: { type: 'value', name: w.options.yTitle ?? shape.columns[1], scale: true }, series: [{ type: 'scatter', symbolSize: 6, data: r.rows.map((row) => [row[0], row[1]]) }] };
  }
  if (w.kind === 'heatmap' && nDims === 2) {
    const xs = [...new Set(r.rows.map((row) => label(row[0])))];
    const ys = [...new Set(r.rows.map((row) => seriesLabel(row[1])))];
    const values = r.rows.map((row) => Number(row[2]) || 0);
    return {
      tooltip, grid: { left: 96, right: 16, top: 16, bottom: 64 },
      xAxis: { type: 'category', data: xs, name: axisNames.xAxis.name, nameLocation: 'middle', nameGap: 40 }, yAxis: { type: 'category', data: ys, name: w.options.yTitle ?? shape.dimensions[1] },
      visualMap: { min: Math.min(0, ...values), max: Math.max(1, ...values), calculable: true, orient: 'horizontal', left: 'center', bottom: 0, itemHeight: 80 },
      series: [{ type: 'heatmap', data: r.rows.map((row) => [xs.indexOf(label(row[0])), ys.indexOf(seriesLabel(row[1])), row[2]]) }],
    };
  }
  const type = w.kind === 'line' || w.kind === 'area' ? 'line' : 'bar';
  const base = { tooltip, grid: { left: 64, right: 16, top: 24, bottom: 48 }, ...axisNames };
  if (nDims === 2) {
    // Two dimensions: the second is the series (stacked for stacked bars and areas).
    const xs = [...new Set(r.rows.map((row) => label(row[0])))];
    const names = [...new Set(r.rows.map((row) => seriesLabel(row[1])))];
    const stack = w.kind === 'stackedBar' || w.kind === 'area' ? 'total' : undefined;
    return {
      ...base, legend: { top: 0, type: 'scroll' },
      xAxis: { ...axisNames.xAxis, type: 'category', data: xs },
      yAxis: { ...axisNames.yAxis, type: 'value' },
      series: names.map((name) => ({
        type, name, stack, ...(w.kind === 'area' ? { areaStyle: {} } : {}),
        data: xs.map((x) => r.rows.find((row) => label(row[0]) === x && seriesLabel(row[1]) === name)?.[2] ?? null),
      })),
    };
  }
  return {
    ...base,
    xAxis: { ...axisNames.xAxis, type: 'category', data: r.rows.map((row) => label(row[0])) },
    yAxis: { ...axisNames.yAxis, type: 'value' },
    series: r.columns.slice(nDims).map((c, n) => ({
      type, name: c.name, ...(w.kind === 'area' ? { areaStyle: {} } : {}), ...(w.kind === 'histogram' ? { barCategoryGap: '2%' } : {}),
      data: r.rows.map((row) => row[nDims + n]),
    })),
  };
}
