import { forbidden, isStudioError, parseDashboardState, type DashboardState, type Parameter, type Widget } from '@studio/schema';
import { homeOrgId, type Caller } from '../../http/caller';
import type { AuthService } from '../auth';
import type { BiStore } from '../bi';
import type { AccessService } from '../access';
import type { ResourceRow } from '../records';

/** A save by someone other than the owner naming a dataset they may not read in a new or changed query (403). */
export const WIDGET_DATASET_REFUSED = "A dashboard's widgets and parameters run with its owner's access: save queries only over datasets you may read yourself";

/** What of a widget decides the rows it reads (its kind, query, bound parameters, pivot), not its place or title. */
const readsOf = (w: Widget) => JSON.stringify([w.kind, w.query ?? null, w.analytic ?? null, w.parameterIds, w.pivot ?? null]);

/**
 * The datasets a save gives a new or changed query: each widget and parameter that is new, or whose query or
 * source differs from the stored one of the same id. A widget only moved or renamed keeps its author's query.
 */
export function datasetsOfChangedQueries(before: { widgets: Widget[]; parameters: Parameter[] } | null, after: { widgets: Widget[]; parameters: Parameter[] }): Set<string> {
  const widgets = new Map(before?.widgets.map((w) => [w.id, readsOf(w)]));
  const parameters = new Map(before?.parameters.map((p) => [p.id, JSON.stringify(p)]));
  const out = new Set<string>();
  for (const w of after.widgets) if (w.query && widgets.get(w.id) !== readsOf(w)) out.add(w.query.datasetId);
  for (const p of after.parameters) if (p.source.kind !== 'STATIC' && parameters.get(p.id) !== JSON.stringify(p)) out.add(p.source.datasetId);
  return out;
}

/** The analytic groups of widgets a save adds or changes. */
function changedAnalyticGroups(before: { widgets: Widget[] } | null, after: { widgets: Widget[] }): Set<string> {
  const stored = new Map(before?.widgets.map((w) => [w.id, readsOf(w)]));
  return new Set(after.widgets.filter((w) => w.analytic && stored.get(w.id) !== readsOf(w)).map((w) => w.analytic!.groupId));
}

type StoringServices = { access: AccessService; auth: Pick<AuthService, 'callerOf'>; analytics: { bi: Pick<BiStore, 'analyticConfigFor'> } };

/**
 * A saved dashboard's widgets and parameters run with its owner's access (for its readers, its publication's,
 * and its editors): an editor who is not the owner may store a new or changed query only over datasets they
 * read themselves, else the owner's access would run their text over the owner's data (403, nothing saved).
 * The owner's own saves are theirs to run.
 */
export async function assertMayStoreQueries(services: StoringServices, caller: Caller, row: ResourceRow, state: DashboardState, adminMode: boolean): Promise<void> {
  if (row.owner_id === caller.user.id) return;
  const before = row.latest_state === null || row.latest_state === undefined ? null : parseDashboardState(row.latest_state);
  const named = [...datasetsOfChangedQueries(before, state)];
  // An analytic widget reads the analytic set the owner's organization bound (the built-in sample otherwise, open to all).
  const groups = changedAnalyticGroups(before, state);
  if (groups.size) {
    const orgId = homeOrgId(await services.auth.callerOf(row.owner_id, 'session', ''));
    for (const groupId of orgId ? groups : []) {
      const bound = (await services.analytics.bi.analyticConfigFor(groupId, orgId!))?.datasets;
      if (bound) named.push(bound.places, bound.devices, bound.visits);
    }
  }
  try {
    await services.access.guardAll(caller, 'dataset', named, 'read', adminMode);
  } catch (e) {
    // One message for a dataset unseen and one unknown: the refusal says nothing about what exists.
    if (isStudioError(e) && (e.status === 403 || e.status === 404)) throw forbidden(WIDGET_DATASET_REFUSED);
    throw e;
  }
}
