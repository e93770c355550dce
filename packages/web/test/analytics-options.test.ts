import { describe, expect, it } from 'vitest';
import { AGE_ORDER, INCOME_ORDER, barOption, distinct, heatmapOption, lineOption, pivot, type Row } from '../src/analytics/options';
import { convertPeriod, periodOf } from '../src/analytics/QueryBar';

describe('analytics chart data', () => {
  it('keeps cohorts in their natural order whatever the row order', () => {
    const rows = [...AGE_ORDER].reverse().map((age, i) => ({ age, norm_visit_share: i }));
    expect(distinct(rows, 'age')).toEqual(AGE_ORDER);
    const option = barOption(rows, 'age', 'norm_visit_share', { yName: 'Visit share (%)' }) as { xAxis: { data: string[] }; series: { data: number[] }[] };
    expect(option.xAxis.data).toEqual(AGE_ORDER);
    expect(option.series[0]!.data).toEqual([5, 4, 3, 2, 1, 0]);
  });

  it('draws at most the group limit of series', () => {
    const rows: Row[] = Array.from({ length: 25 }, (_, i) => ({ place: `p${i}`, t: 0, v: i }));
    expect((lineOption(rows, 't', 'v', 'place', 'Index', 20) as { series: unknown[] }).series).toHaveLength(20);
  });

  it('pivots rows × columns with income and age in cohort order', () => {
    const rows: Row[] = [
      { geography_value: 'US', income: 'Over 100k', age: 'Over 65', normalized_visits: 2 },
      { geography_value: 'US', income: 'Under 25k', age: '18-24', normalized_visits: 3 },
      { geography_value: 'US', income: '25k-50k', age: '18-24', normalized_visits: 4 },
      { geography_value: 'US', income: '25k-50k', age: '18-24', normalized_visits: 1 },
    ];
    const grid = pivot(rows, ['geography', 'income'], ['age'], 'normalized_visits');
    expect(grid.rowKeys).toEqual([['US', 'Under 25k'], ['US', '25k-50k'], ['US', 'Over 100k']]);
    expect(grid.rowKeys.map((k) => k[1])).toEqual(INCOME_ORDER.filter((i) => i !== '50k-100k'));
    expect(grid.colKeys).toEqual([['18-24'], ['Over 65']]);
    expect(grid.cells.get(`${JSON.stringify(['US', '25k-50k'])}|${JSON.stringify(['18-24'])}`)).toBe(5);
  });

  it('lays the heatmap out with visitors of A on rows and B on columns', () => {
    const rows: Row[] = [
      { place_taxonomy_value: 'A', secondary_place_taxonomy_value: 'A', overlap: 100 },
      { place_taxonomy_value: 'A', secondary_place_taxonomy_value: 'B', overlap: 30 },
      { place_taxonomy_value: 'B', secondary_place_taxonomy_value: 'A', overlap: 60 },
      { place_taxonomy_value: 'B', secondary_place_taxonomy_value: 'B', overlap: 100 },
    ];
    const o = heatmapOption(rows, 'B') as { series: { data: number[][] }[] };
    expect(o.series[0]!.data).toContainEqual([1, 0, 30]);
    expect(o.series[0]!.data).toContainEqual([0, 1, 60]);
  });

  it.each([
    [{ periodType: 'MONTHLY', start: '2025-02', end: '2025-05' }, 'QUARTERLY', { periodType: 'QUARTERLY', start: '2025-Q1', end: '2025-Q2' }],
    [{ periodType: 'QUARTERLY', start: '2024-Q4', end: '2025-Q1' }, 'MONTHLY', { periodType: 'MONTHLY', start: '2024-10', end: '2025-03' }],
    [{ periodType: 'MONTHLY', start: '2024-02', end: '2024-02' }, 'DAILY', { periodType: 'DAILY', start: '2024-02-01', end: '2024-02-29' }],
  ] as const)('converts %j to %s keeping the range', (from, to, expected) => {
    expect(convertPeriod(from, to)).toEqual(expected);
  });

  it('names periods in the spec formats', () => {
    expect([periodOf('MONTHLY', '2025-11-30'), periodOf('QUARTERLY', '2025-11-30'), periodOf('DAILY', '2025-11-30')]).toEqual(['2025-11', '2025-Q4', '2025-11-30']);
  });
});
