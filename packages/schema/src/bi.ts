import { z } from 'zod';
import { Id, IsoDate } from './common';

/**
 * The analytic sets' configuration as the /v1/bi calls answer it: which datasets an organization binds to a
 * template group, its default query parameters, and parameter sets saved to share.
 */

/** The three datasets of the foot-traffic analytic sets (place-visits.md); null: the built-in sample. */
export const BoundDatasets = z.object({ places: Id, devices: Id, visits: Id });

export const AnalyticSetConfig = z.object({
  id: Id,
  groupId: z.string(),
  orgId: Id,
  datasets: BoundDatasets.nullable(),
  templateParameters: z.record(z.string(), z.unknown()),
  /** Per template: title, description and query-parameter overrides (open: stored as given, checked on write). */
  templateOverrides: z.record(z.string(), z.unknown()),
  createdBy: Id.nullable(),
  createdAt: IsoDate,
  updatedAt: IsoDate,
});
export type AnalyticSetConfig = z.infer<typeof AnalyticSetConfig>;

/** Default query-parameter values of a group: an organization's, or the group's own (orgId null). */
export const QueryParamConfig = z.object({
  id: Id,
  groupId: z.string(),
  orgId: Id.nullable(),
  parameters: z.record(z.string(), z.unknown()),
  createdBy: Id.nullable(),
  createdAt: IsoDate,
  updatedAt: IsoDate,
});
export type QueryParamConfig = z.infer<typeof QueryParamConfig>;

/** A saved parameter set of a group template; its invitations are shown to its owner and administrators. */
export const SharedParameters = z.object({
  id: Id,
  ownerId: Id,
  orgId: Id.nullable(),
  groupId: z.string(),
  templateId: z.string(),
  name: z.string(),
  parameters: z.record(z.string(), z.unknown()),
  createdAt: IsoDate,
  updatedAt: IsoDate,
  invitations: z.array(z.object({ email: z.string(), description: z.string(), createdAt: IsoDate })).optional(),
});
export type SharedParameters = z.infer<typeof SharedParameters>;

/** Values a geography or place parameter may take in the bound data, and their display names. */
export const LabelSet = z.object({ availableValues: z.array(z.string()), labelValueMap: z.record(z.string(), z.string()) });

/** GET /v1/labels: the bound data's geographies and places, and the dates its visits cover. */
export const PanelLabels = z.object({ geographies: LabelSet, places: LabelSet, firstVisitDate: z.string().nullable(), lastVisitDate: z.string().nullable() });

/**
 * A query parameter of an analytic template as the group lists it (the analytics package's QueryParameter):
 * its form, its values in the bound data and its default. Loose: fields the web app does not read (e.g.
 * startQuarter) are kept as the package writes them.
 */
export const AnalyticQueryParameter = z.looseObject({
  id: z.string(),
  type: z.string(),
  name: z.string(),
  description: z.string(),
  defaultValue: z.unknown(),
  availableValues: z.array(z.string()),
  required: z.boolean(),
  formType: z.enum(['DROPDOWN', 'DROPDOWN_GROUP', 'SINGLE_PERIOD', 'RANGE_PERIOD', 'STICKER_SELECTOR', 'PIVOT_TABLE']),
  maxValues: z.number().optional(),
  minValues: z.number().optional(),
  labelType: z.enum(['GEOGRAPHY', 'PLACE_TAXONOMY']).optional(),
  labelValueMap: z.record(z.string(), z.string()).optional(),
  dropdownGroups: z.array(z.object({ id: z.string(), name: z.string(), prefixes: z.array(z.string()) })).optional(),
  periodRanges: z.array(z.object({ periodType: z.enum(['MONTHLY', 'QUARTERLY', 'DAILY']), name: z.string(), format: z.string() })).optional(),
  startDate: z.string().optional(),
  endDate: z.string().optional(),
});
export type AnalyticQueryParameter = z.infer<typeof AnalyticQueryParameter>;

/** One chart of a view: which template's rows it draws, how, and the grid columns it spans. */
export const AnalyticChart = z.object({
  id: z.string(),
  title: z.string(),
  templateId: z.string(),
  kind: z.enum(['line', 'bar', 'heatmap', 'table', 'pivot']),
  x: z.string().optional(),
  y: z.string().optional(),
  series: z.string().optional(),
  colSpan: z.number(),
  maxGroups: z.number().optional(),
});

/** A view (set) of the group: its templates and the charts laid out on its grid. */
export const AnalyticView = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  gridColumns: z.number(),
  templateIds: z.array(z.string()),
  charts: z.array(AnalyticChart),
});

/** One template of the group with its parameters' defaults filled in and the datasets it reads. */
export const AnalyticSet = z.looseObject({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  viewId: z.string(),
  queryParameters: z.array(AnalyticQueryParameter),
  templateParameters: z.array(z.looseObject({ id: z.string(), type: z.string(), name: z.string(), description: z.string(), defaultValue: z.unknown(), value: z.unknown() })),
  datasets: z.object({ production: z.array(Id), staging: z.array(Id) }),
});

/**
 * GET /v1/analytic-sets/{groupId}: each template of the group with its parameters' defaults filled from the bound
 * data (the templates and views are the analytics package's own), and where the data comes from.
 */
export const AnalyticSetGroupView = z.object({
  id: z.string(),
  sets: z.array(AnalyticSet),
  views: z.array(AnalyticView),
  labels: PanelLabels.pick({ firstVisitDate: true, lastVisitDate: true }),
  source: z.enum(['sample', 'organization']),
});
export type AnalyticSetGroupView = z.infer<typeof AnalyticSetGroupView>;
