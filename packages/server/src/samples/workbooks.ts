import { WORKBOOK_STATE_VERSION, parseWorkbookState, type WorkbookCell } from '@studio/schema';
import type { SampleRecord } from './records';

export const SAMPLE_WORKBOOK_KEY = 'workbook:cities-by-country';

const step = (id: string, name: string, node: { type: string } & Record<string, unknown>, inputs: string[] = []): WorkbookCell => ({ id, name, kind: 'step', collapsed: false, node, inputs });

/**
 * The sample workbook: a dataset, a filter, a group and a chart of it, each cell reading the one above by
 * name. Parsed with the workbook editor's own parser (see dashboards.ts).
 */
export function sampleWorkbooks(datasets: Map<string, string>): SampleRecord[] {
  const cities = datasets.get('World cities');
  if (!cities) return [];
  const state = parseWorkbookState({
    version: WORKBOOK_STATE_VERSION,
    cells: [
      { id: 'intro', name: 'about', kind: 'markdown', collapsed: false, text: 'Which countries have the most cities of a million people or more? Each cell reads the one above it by name; change the filter and the cells below it run again.' },
      step('cities', 'cities', { type: 'dataset', uuid: cities }),
      step('large', 'million_plus', { type: 'filter', expression: 'population >= 1000000' }, ['cities']),
      step('by_country', 'by_country', { type: 'group', by: ['country'], expressions: ['count(*) AS cities', 'sum(population) AS people'] }, ['million_plus']),
      { id: 'chart', name: 'chart', kind: 'chart', collapsed: false, source: 'by_country', chart: 'bar', x: 'country', y: 'cities' },
    ],
  });
  return [
    {
      key: SAMPLE_WORKBOOK_KEY,
      type: 'workbook',
      name: 'Cities of a million, by country',
      description: 'A dataset, a filter, a group and a chart: the steps of a workbook, over World cities.',
      datasets: [cities],
      state,
    },
  ];
}
