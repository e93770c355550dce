/** The built-in analytic sets (analytics-and-admin §2): one view each. */
export const ANALYTIC_VIEWS = [
  { slug: 'audience-insight', title: 'Audience Insight', description: 'Who visits: visit share and fair share index by age and by gender, four charts on a 14-column grid.' },
  { slug: 'change-in-visits', title: 'Change in Visits', description: 'Percent change in visits by geography, as one bar chart.' },
  { slug: 'cross-visitation', title: 'Cross-Visitation', description: 'A heatmap of chains visited by the same people beside a visitor-overlap bar chart; picking a chain column focuses the chart.' },
  { slug: 'customer-journey', title: 'Customer Journey', description: 'The top places visited before and after, as a table or a chart.' },
  { slug: 'indexed-foot-traffic', title: 'Indexed Foot Traffic', description: 'Several chains or categories in one geography, and one chain or category across geographies, as two line charts.' },
  { slug: 'movement-pivot', title: 'Movement Pivot', description: 'A pivot table of visits with an export toggle.' },
  { slug: 'visitation-trends', title: 'Visitation Trends', description: 'Indexed foot traffic, visit share by daypart (morning, afternoon, evening) and median dwell time.' },
];
