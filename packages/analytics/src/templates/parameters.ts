import { AGE_COHORTS, GENDER_COHORTS, INCOME_COHORTS, PERIOD_TYPES } from '../params';
import type { DropdownGroup, PeriodRange, QueryParameter } from './types';

export const GEOGRAPHY_GROUPS: DropdownGroup[] = [
  { id: 'country', name: 'Country', prefixes: ['country'] },
  { id: 'market', name: 'Market area', prefixes: ['dma'] },
];
export const TAXONOMY_GROUPS: DropdownGroup[] = [
  { id: 'category', name: 'Category', prefixes: ['category'] },
  { id: 'chain', name: 'Chain', prefixes: ['chain'] },
];
const FORMATS = { MONTHLY: 'YYYY-MM', QUARTERLY: 'YYYY-Q#', DAILY: 'YYYY-MM-DD' } as const;
export const PERIOD_RANGES: PeriodRange[] = PERIOD_TYPES.map((t) => ({
  periodType: t,
  name: t[0] + t.slice(1).toLowerCase(),
  format: FORMATS[t],
}));

/** The default period of the built-in sample (its two years of visits; the last full year). */
export const DEFAULT_PERIOD = { periodType: 'MONTHLY', start: '2025-01', end: '2025-12' } as const;

export function geographies(maxValues: number | undefined, description: string): QueryParameter {
  return {
    id: 'geographies',
    type: maxValues === 1 ? 'STRING' : 'MULTI_STRING',
    name: maxValues === 1 ? 'Geography' : 'Geographies',
    description,
    defaultValue: ['country:US'],
    availableValues: [],
    required: true,
    formType: maxValues === 1 ? 'DROPDOWN_GROUP' : 'STICKER_SELECTOR',
    ...(maxValues ? { maxValues } : {}),
    minValues: 1,
    labelType: 'GEOGRAPHY',
    labelValueMap: {},
    dropdownGroups: GEOGRAPHY_GROUPS,
  };
}

export function places(maxValues: number | undefined, description: string, chainsOnly = false): QueryParameter {
  return {
    id: 'places',
    type: maxValues === 1 ? 'STRING' : 'MULTI_STRING',
    name: chainsOnly ? 'Chains' : maxValues === 1 ? 'Chain or category' : 'Chains or categories',
    description,
    defaultValue: [],
    availableValues: [],
    required: true,
    formType: maxValues === 1 ? 'DROPDOWN_GROUP' : 'STICKER_SELECTOR',
    ...(maxValues ? { maxValues } : {}),
    minValues: 1,
    labelType: 'PLACE_TAXONOMY',
    labelValueMap: {},
    dropdownGroups: chainsOnly ? TAXONOMY_GROUPS.filter((g) => g.id === 'chain') : TAXONOMY_GROUPS,
  };
}

export function period(description = 'Periods of the range, both ends inclusive'): QueryParameter {
  return {
    id: 'period',
    type: 'DATE_PERIOD_RANGE',
    name: 'Period',
    description,
    defaultValue: { ...DEFAULT_PERIOD },
    availableValues: [],
    required: true,
    formType: 'RANGE_PERIOD',
    periodRanges: PERIOD_RANGES,
  };
}

function cohort(id: 'age' | 'gender' | 'income', name: string, values: readonly string[]): QueryParameter {
  return {
    id,
    type: 'MULTI_STRING',
    name,
    description: `Only visits by devices in these ${name.toLowerCase()} cohorts; empty means all`,
    defaultValue: [],
    availableValues: [...values],
    required: false,
    formType: 'DROPDOWN',
    labelValueMap: Object.fromEntries(values.map((v) => [v, v])),
  };
}
export const age = () => cohort('age', 'Age', AGE_COHORTS);
export const gender = () => cohort('gender', 'Gender', GENDER_COHORTS);
export const income = () => cohort('income', 'Income', INCOME_COHORTS);

export function pivot(): QueryParameter {
  return {
    id: 'pivot',
    type: 'PIVOT_TABLE',
    name: 'Pivot',
    description: 'Dimensions on the rows and columns (geography, period, place, age, gender, income)',
    defaultValue: { rows: ['geography', 'place'], columns: ['period'] },
    availableValues: ['geography', 'period', 'place', 'age', 'gender', 'income'],
    required: false,
    formType: 'PIVOT_TABLE',
  };
}
