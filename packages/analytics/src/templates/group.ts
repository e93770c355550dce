import type { PanelLabels } from '../run';
import { FOOT_TRAFFIC_GROUP_ID, footTrafficTemplates, validateTemplate, viewsOfGroup } from './foot-traffic';
import type { AnalyticTemplate, ViewSpec } from './types';

export interface AnalyticSetGroup {
  groupId: string;
  templates: AnalyticTemplate[];
  views: ViewSpec[];
}

/** The group as GET /v1/analytic-sets/foot-traffic lists it, with labels from the bound data filled in. */
export function footTrafficGroup(labels?: PanelLabels): AnalyticSetGroup {
  const templates = footTrafficTemplates().map((t) => {
    validateTemplate(t);
    if (!labels) return t;
    return {
      ...t,
      queryParameters: t.queryParameters.map((q) => {
        if (q.labelType === 'GEOGRAPHY') return { ...q, ...labels.geographies };
        if (q.labelType === 'PLACE_TAXONOMY') {
          const only = q.dropdownGroups?.length === 1 ? 'chain:' : '';
          const values = labels.places.availableValues.filter((v) => v.startsWith(only));
          return {
            ...q,
            availableValues: values,
            labelValueMap: Object.fromEntries(values.map((v) => [v, labels.places.labelValueMap[v] ?? v])),
          };
        }
        if (q.id === 'period' && labels.firstVisitDate && labels.lastVisitDate) {
          return { ...q, startDate: labels.firstVisitDate, endDate: labels.lastVisitDate };
        }
        return q;
      }),
    };
  });
  return { groupId: FOOT_TRAFFIC_GROUP_ID, templates, views: viewsOfGroup };
}
