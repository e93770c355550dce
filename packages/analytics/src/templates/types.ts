import type { PeriodType } from '../params';

export type ParameterType = 'STRING' | 'MULTI_STRING' | 'BOOLEAN' | 'DATE_RANGE' | 'DATE_PERIOD_RANGE' | 'PIVOT_TABLE';
export type FormType = 'DROPDOWN' | 'DROPDOWN_GROUP' | 'SINGLE_PERIOD' | 'RANGE_PERIOD' | 'STICKER_SELECTOR' | 'PIVOT_TABLE';
export type LabelType = 'GEOGRAPHY' | 'PLACE_TAXONOMY';

export interface DropdownGroup {
  id: string;
  name: string;
  /** Value prefixes of the group, e.g. ['dma'] for market areas. */
  prefixes: string[];
}

export interface PeriodRange {
  periodType: PeriodType;
  name: string;
  format: string;
}

export interface QueryParameter {
  id: string;
  type: ParameterType;
  name: string;
  description: string;
  defaultValue: unknown;
  availableValues: string[];
  required: boolean;
  formType: FormType;
  maxValues?: number;
  minValues?: number;
  labelType?: LabelType;
  labelValueMap?: Record<string, string>;
  dropdownGroups?: DropdownGroup[];
  periodRanges?: PeriodRange[];
  startDate?: string;
  endDate?: string;
  startQuarter?: string;
  endQuarter?: string;
}

export interface TemplateParameter {
  id: string;
  type: 'BOOLEAN' | 'STRING';
  name: string;
  description: string;
  defaultValue: boolean | string;
}

export interface AnalyticTemplate {
  id: string;
  title: string;
  description: string;
  /** The view (set) the template belongs to. */
  viewId: string;
  queryParameters: QueryParameter[];
  templateParameters: TemplateParameter[];
  /** Query parameter ids the template's SQL reads; each must be listed in queryParameters. */
  references: string[];
}

export interface ChartSpec {
  id: string;
  title: string;
  templateId: string;
  kind: 'line' | 'bar' | 'heatmap' | 'table' | 'pivot';
  x?: string;
  y?: string;
  series?: string;
  /** Columns of the view's grid the chart spans. */
  colSpan: number;
  /** At most this many groups (series or bars) are drawn. */
  maxGroups?: number;
}

export interface ViewSpec {
  id: string;
  title: string;
  description: string;
  gridColumns: number;
  templateIds: string[];
  charts: ChartSpec[];
}
