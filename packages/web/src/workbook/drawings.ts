import type { ChartCell } from '@studio/schema';
import type { EChartsOption } from '../analytics/echarts';

/** Rows a chart or map cell reads from its source. */
export const DRAWN_ROWS = 5000;

const num = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN);
const label = (v: unknown) => (v === null || v === undefined ? '(empty)' : String(v));

/** The ECharts option of a chart cell over its source's rows; null until its columns are picked. */
export function chartCellOption(cell: Pick<ChartCell, 'chart' | 'x' | 'y'>, rows: Record<string, unknown>[]): EChartsOption | null {
  if (!cell.x || !cell.y) return null;
  const tooltip = { trigger: cell.chart === 'pie' || cell.chart === 'scatter' ? 'item' : 'axis' };
  if (cell.chart === 'pie') {
    return { tooltip, legend: { bottom: 0, type: 'scroll' }, series: [{ type: 'pie', radius: ['35%', '70%'], data: rows.map((r) => ({ name: label(r[cell.x]), value: num(r[cell.y]) })) }] };
  }
  if (cell.chart === 'scatter') {
    return {
      tooltip, grid: { left: 56, right: 16, top: 16, bottom: 40 },
      xAxis: { type: 'value', name: cell.x, nameLocation: 'middle', nameGap: 28, scale: true }, yAxis: { type: 'value', name: cell.y, scale: true },
      series: [{ type: 'scatter', symbolSize: 6, data: rows.map((r) => [num(r[cell.x]), num(r[cell.y])]) }],
    };
  }
  return {
    tooltip, grid: { left: 64, right: 16, top: 24, bottom: 48 },
    xAxis: { type: 'category', data: rows.map((r) => label(r[cell.x])), name: cell.x, nameLocation: 'middle', nameGap: 28 },
    yAxis: { type: 'value', name: cell.y },
    series: [{ type: cell.chart, name: cell.y, data: rows.map((r) => num(r[cell.y])) }],
  };
}
