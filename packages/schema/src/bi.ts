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
 * GET /v1/analytic-sets/{groupId}: each template of the group with its parameters' defaults filled from the bound
 * data (the templates and views are open: their layouts are the analytics package's own), and where the data comes from.
 */
export const AnalyticSetGroupView = z.object({
  id: z.string(),
  sets: z.array(
    z.looseObject({
      id: z.string(),
      queryParameters: z.array(z.looseObject({ id: z.string() })),
      templateParameters: z.array(z.looseObject({ id: z.string() })),
      datasets: z.object({ production: z.array(Id), staging: z.array(Id) }),
    }),
  ),
  views: z.array(z.unknown()),
  labels: PanelLabels.pick({ firstVisitDate: true, lastVisitDate: true }),
  source: z.enum(['sample', 'organization']),
});
