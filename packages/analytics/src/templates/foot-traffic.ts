import { badInput } from '@studio/schema';
import * as P from './parameters';
import type { AnalyticTemplate, ViewSpec } from './types';

export const FOOT_TRAFFIC_GROUP_ID = 'foot-traffic';

export const TEMPLATE_IDS = [
  'indexed-foot-traffic', 'change-in-visits', 'audience-age', 'audience-gender', 'cross-visitation',
  'customer-journey', 'trends-indexed', 'trends-daypart', 'trends-dwell', 'movement-pivot',
] as const;
export type TemplateId = (typeof TEMPLATE_IDS)[number];

const BASIC = ['geographies', 'places', 'period'];
const t = (
  id: TemplateId, viewId: string, title: string, description: string,
  queryParameters: AnalyticTemplate['queryParameters'], extra: Partial<AnalyticTemplate> = {},
): AnalyticTemplate => ({
  id, viewId, title, description, queryParameters, templateParameters: [], references: BASIC, ...extra,
});

const trends = (id: TemplateId, title: string, description: string) =>
  t(id, 'visitation-trends', title, description, [
    P.geographies(1, 'The geography of the trend'),
    P.places(20, 'Chains or categories, one line each'),
    P.period(),
  ]);

/** The templates of the built-in group, before labels from the bound data are filled in. */
export function footTrafficTemplates(): AnalyticTemplate[] {
  return [
    t('indexed-foot-traffic', 'indexed-foot-traffic', 'Indexed Foot Traffic',
      'Normalized visits per period, indexed to the first period: several chains or categories in one geography, or one across several geographies',
      [P.geographies(7, 'One geography with up to 7 chains or categories, or up to 7 geographies with one'),
        P.places(7, 'Up to 7 with a single geography, else exactly one'), P.period()]),
    t('change-in-visits', 'change-in-visits', 'Change in Visits',
      'Percent change of normalized visits against the same periods one year earlier',
      [P.geographies(7, 'Up to 7 geographies'), P.places(7, 'Up to 7 chains or categories'), P.period()]),
    t('audience-age', 'audience-insight', 'Visit Share and Fair Share Index by Age',
      'Share of the pooled audience\'s weighted visits per age cohort, and its index against all places in the geography',
      [P.geographies(1, 'One geography'), P.places(undefined, 'Pooled into one audience'), P.period()]),
    t('audience-gender', 'audience-insight', 'Visit Share and Fair Share Index by Gender',
      'Share of the pooled audience\'s weighted visits per gender, and its index against all places in the geography',
      [P.geographies(1, 'One geography'), P.places(undefined, 'Pooled into one audience'), P.period()]),
    t('cross-visitation', 'cross-visitation', 'Cross-Visitation',
      'Share of the visitors of one chain who also visited another (weighted devices)',
      [P.geographies(1, 'One geography'), P.places(7, 'Up to 7 chains', true), P.period()]),
    t('customer-journey', 'customer-journey', 'Customer Journey',
      'Where visitors of a chain or category went right before and after, on the same day',
      [P.geographies(1, 'One geography'), P.places(1, 'One chain or category'), P.period()]),
    trends('trends-indexed', 'Indexed Foot Traffic', 'Normalized visits indexed to the first period'),
    trends('trends-daypart', 'Visit Share by Daypart', 'Share of weighted visits in the morning, afternoon and evening'),
    trends('trends-dwell', 'Median Dwell Time', 'Median minutes spent per visit'),
    t('movement-pivot', 'movement-pivot', 'Movement Pivot',
      'Normalized and raw visits pivoted by geography, period, place and audience cohorts',
      [P.geographies(undefined, 'At least one geography'), P.places(undefined, 'At least one chain or category'),
        P.period(), P.age(), P.gender(), P.income(), P.pivot()],
      {
        references: [...BASIC, 'age', 'gender', 'income', 'pivot'],
        templateParameters: [{
          id: 'movement_pivot_canExport', type: 'BOOLEAN', name: 'Allow export',
          description: 'Whether the pivot can be exported as CSV', defaultValue: false,
        }],
      }),
  ];
}

/** Setup check (analytics-and-admin §5): every referenced parameter must be declared. */
export function validateTemplate(template: AnalyticTemplate): AnalyticTemplate {
  const declared = new Set(template.queryParameters.map((q) => q.id));
  for (const id of template.references) {
    if (!declared.has(id)) throw badInput(`Parameter ${id} is not listed in queryParameters`);
  }
  return template;
}

export function templateOf(id: string): AnalyticTemplate {
  const found = footTrafficTemplates().find((x) => x.id === id);
  if (!found) throw badInput(`Unknown template ${id}`, `known: ${TEMPLATE_IDS.join(', ')}`);
  return validateTemplate(found);
}

/** How the web app lays out the views (analytics-and-admin §2, §9). */
export const viewsOfGroup: ViewSpec[] = [
  {
    id: 'audience-insight', title: 'Audience Insight', gridColumns: 14,
    description: 'Who visits the selected places, against everyone visiting places in the geography',
    templateIds: ['audience-age', 'audience-gender'],
    charts: [
      { id: 'visit-share-age', title: 'Visit Share by Age', templateId: 'audience-age', kind: 'bar', x: 'age', y: 'norm_visit_share', colSpan: 7 },
      { id: 'fsi-age', title: 'Fair Share Index by Age', templateId: 'audience-age', kind: 'bar', x: 'age', y: 'fair_share_index', colSpan: 7 },
      { id: 'visit-share-gender', title: 'Visit Share by Gender', templateId: 'audience-gender', kind: 'bar', x: 'gender', y: 'norm_visit_share', colSpan: 7 },
      { id: 'fsi-gender', title: 'Fair Share Index by Gender', templateId: 'audience-gender', kind: 'bar', x: 'gender', y: 'fair_share_index', colSpan: 7 },
    ],
  },
  {
    id: 'change-in-visits', title: 'Change in Visits', gridColumns: 1,
    description: 'Percent change of visits against a year earlier', templateIds: ['change-in-visits'],
    charts: [{ id: 'change', title: 'Percent Change by Geography', templateId: 'change-in-visits', kind: 'bar', x: 'geography_value', y: 'percent_change', series: 'place_taxonomy_value', colSpan: 1 }],
  },
  {
    id: 'cross-visitation', title: 'Cross-Visitation', gridColumns: 6,
    description: 'Visitor overlap between chains; selecting a heatmap column sets the focus chain of the bar chart',
    templateIds: ['cross-visitation'],
    charts: [
      { id: 'heatmap', title: 'Cross-Visitation', templateId: 'cross-visitation', kind: 'heatmap', x: 'secondary_place_taxonomy_value', y: 'place_taxonomy_value', series: 'overlap', colSpan: 4 },
      { id: 'overlap', title: 'Visitor Overlap', templateId: 'cross-visitation', kind: 'bar', x: 'secondary_place_taxonomy_value', y: 'overlap', colSpan: 2 },
    ],
  },
  {
    id: 'customer-journey', title: 'Customer Journey', gridColumns: 1,
    description: 'Top places visited before and after', templateIds: ['customer-journey'],
    charts: [{ id: 'journey', title: 'Before and After', templateId: 'customer-journey', kind: 'table', x: 'place_taxonomy_value', y: 'percentage', series: 'relationship', colSpan: 1, maxGroups: 40 }],
  },
  {
    id: 'indexed-foot-traffic', title: 'Indexed Foot Traffic', gridColumns: 1,
    description: 'Chains or categories in one geography, or one across geographies', templateIds: ['indexed-foot-traffic'],
    charts: [
      { id: 'by-place', title: 'Chains and Categories in One Geography', templateId: 'indexed-foot-traffic', kind: 'line', x: 'period_epoch_ms', y: 'norm_visits_pct_chg_vs_first', series: 'place_taxonomy_value', colSpan: 1, maxGroups: 20 },
      { id: 'by-geography', title: 'One Chain or Category Across Geographies', templateId: 'indexed-foot-traffic', kind: 'line', x: 'period_epoch_ms', y: 'norm_visits_pct_chg_vs_first', series: 'geography_value', colSpan: 1, maxGroups: 20 },
    ],
  },
  {
    id: 'movement-pivot', title: 'Movement Pivot', gridColumns: 1,
    description: 'A pivot table with an export toggle', templateIds: ['movement-pivot'],
    charts: [{ id: 'pivot', title: 'Movement Pivot', templateId: 'movement-pivot', kind: 'pivot', y: 'normalized_visits', colSpan: 1 }],
  },
  {
    id: 'visitation-trends', title: 'Visitation Trends', gridColumns: 1,
    description: 'Indexed foot traffic, visit share by daypart and median dwell time',
    templateIds: ['trends-indexed', 'trends-daypart', 'trends-dwell'],
    charts: [
      { id: 'trend-index', title: 'Indexed Foot Traffic', templateId: 'trends-indexed', kind: 'line', x: 'periodEpochMs', y: 'norm_visits_pct_chg_vs_first', series: 'placeTaxonomyValue', colSpan: 1, maxGroups: 20 },
      { id: 'trend-daypart', title: 'Visit Share by Daypart', templateId: 'trends-daypart', kind: 'bar', x: 'periodEpochMs', y: 'shareOfNormalizedVisits', series: 'cohortValue', colSpan: 1, maxGroups: 6 },
      { id: 'trend-dwell', title: 'Median Dwell Time', templateId: 'trends-dwell', kind: 'line', x: 'periodEpochMs', y: 'medianDwellTimeMinutes', series: 'placeTaxonomyValue', colSpan: 1, maxGroups: 20 },
    ],
  },
];
