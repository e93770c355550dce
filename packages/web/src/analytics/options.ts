import type { EChartsOption } from './echarts';

export type Row = Record<string, string | number | boolean | null>;

/** Cohort orders of the panel (place-visits §1, analytics-and-admin §9): charts keep them, never sort them. */
export const AGE_ORDER = ['18-24', '25-34', '35-44', '45-54', '55-64', 'Over 65'];
export const GENDER_ORDER = ['Female', 'Male'];
export const INCOME_ORDER = ['Under 25k', '25k-50k', '50k-100k', 'Over 100k'];
export const DAYPART_ORDER = ['Morning', 'Afternoon', 'Evening'];
export const COHORT_ORDERS: Record<string, string[]> = { age: AGE_ORDER, gender: GENDER_ORDER, income: INCOME_ORDER, cohortValue: DAYPART_ORDER };

/** Chart group limits (analytics-and-admin §9). */
export const LIMITS = { line: 20, journey: 40, daypart: 6 } as const;

const PALETTE = ['#2563eb', '#f97316', '#10b981', '#a855f7', '#ef4444', '#0ea5e9', '#eab308', '#14b8a6', '#ec4899', '#64748b'];

export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : v === null || v === undefined || v === '' ? null : Number.isFinite(Number(v)) ? Number(v) : null);
export const fmt = (v: unknown, digits = 1): string => {
  const n = num(v);
  return n === null ? '—' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
};

/** Distinct values in first-seen order, sorted by a known cohort order when there is one. */
export function distinct(rows: Row[], key: string): string[] {
  const seen: string[] = [];
  for (const r of rows) {
    const v = r[key];
    if (v !== null && v !== undefined && !seen.includes(String(v))) seen.push(String(v));
  }
  const order = COHORT_ORDERS[key];
  if (order) seen.sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
  return seen;
}

const base = (): EChartsOption => ({
  color: PALETTE,
  animation: false,
  textStyle: { fontFamily: 'system-ui, sans-serif' },
  grid: { left: 56, right: 24, top: 48, bottom: 48, containLabel: true },
});

const legend = { type: 'scroll', top: 8, left: 'center' };

/** Lines over time: one series per `series` value (at most `maxGroups`), x a period's epoch ms. */
export function lineOption(rows: Row[], x: string, y: string, series: string, yName: string, maxGroups: number = LIMITS.line): EChartsOption {
  const groups = distinct(rows, series).slice(0, maxGroups);
  return {
    ...base(),
    legend,
    tooltip: { trigger: 'axis', valueFormatter: (v: unknown) => fmt(v, 2) },
    xAxis: { type: 'time', name: 'Period', nameLocation: 'middle', nameGap: 30 },
    yAxis: { type: 'value', name: yName, nameLocation: 'middle', nameGap: 46 },
    series: groups.map((g) => ({
      name: g,
      type: 'line',
      showSymbol: true,
      symbolSize: 5,
      connectNulls: false,
      data: rows.filter((r) => String(r[series]) === g).map((r) => [num(r[x]), num(r[y])]),
    })),
  };
}

/** Bars by category: one series per `series` value (or one series), categories in their natural order. */
export function barOption(rows: Row[], x: string, y: string, opts: { series?: string; yName: string; xName?: string; maxGroups?: number; stack?: boolean; time?: boolean; percent?: boolean }): EChartsOption {
  const cats = opts.time ? distinct(rows, x).sort((a, b) => Number(a) - Number(b)) : distinct(rows, x);
  const groups = opts.series ? distinct(rows, opts.series).slice(0, opts.maxGroups ?? 40) : [opts.yName];
  const value = (cat: string, g: string) => {
    const r = rows.find((row) => String(row[x]) === cat && (!opts.series || String(row[opts.series]) === g));
    return r ? num(r[y]) : null;
  };
  // Periods: months (every label the 1st) read YYYY-MM, days YYYY-MM-DD.
  const days = opts.time ? cats.map((c) => new Date(Number(c)).toISOString().slice(0, 10)) : [];
  const monthly = days.every((d) => d.endsWith('-01'));
  const label = (c: string) => (opts.time ? new Date(Number(c)).toISOString().slice(0, monthly ? 7 : 10) : c);
  return {
    ...base(),
    legend: opts.series ? legend : undefined,
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: (v: unknown) => `${fmt(v, 2)}${opts.percent ? ' %' : ''}` },
    xAxis: { type: 'category', data: cats.map(label), name: opts.xName, nameLocation: 'middle', nameGap: 30, axisLabel: { interval: 0 } },
    yAxis: { type: 'value', name: opts.yName, nameLocation: 'middle', nameGap: 46, max: opts.stack && opts.percent ? 100 : undefined },
    series: groups.map((g) => ({ name: g, type: 'bar', stack: opts.stack ? 'total' : undefined, data: cats.map((c) => value(c, g)), barMaxWidth: 48 })),
  };
}

/** Cross-Visitation heatmap: rows A (visitors of), columns B (also visited), value the overlap %. */
export function heatmapOption(rows: Row[], focus: string | null): EChartsOption {
  const chains = distinct(rows, 'place_taxonomy_value');
  const data = rows.map((r) => [chains.indexOf(String(r.secondary_place_taxonomy_value)), chains.indexOf(String(r.place_taxonomy_value)), num(r.overlap)]);
  return {
    ...base(),
    grid: { left: 24, right: 24, top: 16, bottom: 96, containLabel: true },
    tooltip: {
      formatter: (p: { value: [number, number, number | null] }) =>
        `${fmt(p.value[2])}% of ${chains[p.value[1]]} visitors also visited ${chains[p.value[0]]}`,
    },
    xAxis: {
      type: 'category', data: chains, name: 'Also visited (click a column to focus)', nameLocation: 'middle', nameGap: chains.length > 4 ? 56 : 32,
      axisLabel: { interval: 0, rotate: chains.length > 4 ? 25 : 0, fontWeight: (v: string) => (v === focus ? 'bold' : 'normal') },
      triggerEvent: true,
    },
    yAxis: { type: 'category', data: chains, name: 'Visitors of', nameLocation: 'middle', nameGap: 90, nameRotate: 90, inverse: true, axisLabel: { interval: 0, width: 80, overflow: 'truncate' } },
    visualMap: { min: 0, max: 100, calculable: false, orient: 'horizontal', left: 'center', bottom: 4, itemHeight: 120, itemWidth: 12, inRange: { color: ['#eff6ff', '#93c5fd', '#1d4ed8'] }, text: ['100%', '0%'] },
    series: [{
      type: 'heatmap', data, label: { show: true, formatter: (p: { value: [number, number, number | null] }) => fmt(p.value[2], 0) },
      emphasis: { itemStyle: { borderColor: '#111827', borderWidth: 1 } },
    }],
  };
}

/** Movement Pivot: nested row and column keys and the sum of a measure per cell. */
export interface PivotGrid {
  rowKeys: string[][];
  colKeys: string[][];
  cells: Map<string, number>;
}

export const DIM_FIELDS: Record<string, string> = {
  geography: 'geography_value', period: 'period_value', place: 'place_taxonomy_value', age: 'age', gender: 'gender', income: 'income',
};

const sortKeys = (keys: string[][], dims: string[]) => {
  keys.sort((a, b) => {
    for (let i = 0; i < dims.length; i++) {
      const order = COHORT_ORDERS[dims[i]!];
      const x = a[i]!;
      const y = b[i]!;
      if (x === y) continue;
      if (order) return (order.indexOf(x) + 1 || 99) - (order.indexOf(y) + 1 || 99);
      return x < y ? -1 : 1;
    }
    return 0;
  });
  return keys;
};

export function pivot(rows: Row[], rowDims: string[], colDims: string[], measure: string): PivotGrid {
  const key = (r: Row, dims: string[]) => dims.map((d) => String(r[DIM_FIELDS[d] ?? d] ?? '—'));
  const rowSet = new Map<string, string[]>();
  const colSet = new Map<string, string[]>();
  const cells = new Map<string, number>();
  for (const r of rows) {
    const rk = key(r, rowDims);
    const ck = key(r, colDims);
    rowSet.set(JSON.stringify(rk), rk);
    colSet.set(JSON.stringify(ck), ck);
    const cell = `${JSON.stringify(rk)}|${JSON.stringify(ck)}`;
    cells.set(cell, (cells.get(cell) ?? 0) + (num(r[measure]) ?? 0));
  }
  return { rowKeys: sortKeys([...rowSet.values()], rowDims), colKeys: sortKeys([...colSet.values()], colDims), cells };
}
