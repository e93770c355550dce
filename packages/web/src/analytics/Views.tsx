import { useMemo, useState, type ReactNode } from 'react';
import type { AnalyticSetGroupWire } from '@studio/client';
import { EChart } from './Chart';
import { LIMITS, barOption, distinct, fmt, heatmapOption, lineOption, type Row } from './options';
import { useRows, type Rows } from './useRows';
import { ChartCard } from './ChartCard';
import { PivotView } from './Pivot';
import type { Params } from './QueryBar';

export type ViewSpec = AnalyticSetGroupWire['views'][number];
export type SetSpec = AnalyticSetGroupWire['sets'][number];

function Grid({ columns, children }: { columns: number; children: ReactNode }) {
  return (
    <div className="chart-grid" data-grid-columns={columns} style={{ gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` }}>
      {children}
    </div>
  );
}

const chart = (view: ViewSpec, id: string) => view.charts.find((c) => c.id === id)!;

function AudienceInsight({ view, params }: { view: ViewSpec; params: Params }) {
  const age = useRows('audience-age', params);
  const gender = useRows('audience-gender', params);
  const card = (id: string, data: Rows, x: string, y: string, yName: string) => {
    const c = chart(view, id);
    return (
      <ChartCard key={id} id={id} title={c.title} span={c.colSpan} data={data}>
        <EChart label={c.title} height={280} option={barOption(data.rows, x, y, { yName, xName: x === 'age' ? 'Age' : 'Gender', percent: y === 'norm_visit_share' })} />
      </ChartCard>
    );
  };
  return (
    <Grid columns={view.gridColumns}>
      {card('visit-share-age', age, 'age', 'norm_visit_share', 'Visit share (%)')}
      {card('fsi-age', age, 'age', 'fair_share_index', 'Fair share index (100 = baseline)')}
      {card('visit-share-gender', gender, 'gender', 'norm_visit_share', 'Visit share (%)')}
      {card('fsi-gender', gender, 'gender', 'fair_share_index', 'Fair share index (100 = baseline)')}
    </Grid>
  );
}

function ChangeInVisits({ view, params }: { view: ViewSpec; params: Params }) {
  const data = useRows('change-in-visits', params);
  const c = view.charts[0]!;
  return (
    <Grid columns={view.gridColumns}>
      <ChartCard id={c.id} title={c.title} span={c.colSpan} data={data}>
        <EChart label={c.title} height={380} option={barOption(data.rows, 'geography_value', 'percent_change', { series: 'place_taxonomy_value', yName: 'Change vs a year earlier (%)', xName: 'Geography', maxGroups: LIMITS.line, percent: true })} />
      </ChartCard>
    </Grid>
  );
}

function CrossVisitation({ view, params }: { view: ViewSpec; params: Params }) {
  const data = useRows('cross-visitation', params);
  const chains = useMemo(() => distinct(data.rows, 'place_taxonomy_value'), [data.rows]);
  const [picked, setPicked] = useState<string | null>(null);
  const focus = picked && chains.includes(picked) ? picked : chains[0] ?? null;
  const heat = chart(view, 'heatmap');
  const bars = chart(view, 'overlap');
  const barRows = data.rows.filter((r) => r.place_taxonomy_value === focus && r.secondary_place_taxonomy_value !== focus);
  const heatOption = useMemo(() => heatmapOption(data.rows, focus), [data.rows, focus]);
  return (
    <Grid columns={view.gridColumns}>
      <ChartCard id={heat.id} title={heat.title} span={heat.colSpan} data={data}>
        <EChart
          label={`${heat.title} heatmap`}
          height={400}
          option={heatOption}
          onClick={(e) => {
            // A column is a chain "also visited": its label (xAxis) or any of its cells.
            if (e.componentType === 'xAxis' && typeof e.value === 'string') setPicked(e.value);
            else if (e.seriesType === 'heatmap' && Array.isArray(e.value)) setPicked(chains[e.value[0] as number] ?? null);
          }}
        />
        <p className="muted small">Each cell: the share of the row chain's visitors who also visited the column chain. Click a column to focus the bar chart.</p>
      </ChartCard>
      <ChartCard id={bars.id} title={`${bars.title}: ${focus ?? '—'}`} span={bars.colSpan} data={{ ...data, rows: data.rows.length ? data.rows : [] }}
        actions={<span className="focus-chain" data-focus-chain={focus ?? ''}>Focus: <strong>{focus ?? '—'}</strong></span>}>
        <EChart label={`Visitor overlap of ${focus ?? ''}`} height={400}
          option={barOption(barRows, 'secondary_place_taxonomy_value', 'overlap', { yName: `% of ${focus ?? ''} visitors`, xName: 'Also visited', percent: true })} />
      </ChartCard>
    </Grid>
  );
}

function CustomerJourney({ view, params }: { view: ViewSpec; params: Params }) {
  const data = useRows('customer-journey', params);
  const [mode, setMode] = useState<'table' | 'chart'>('table');
  const c = view.charts[0]!;
  const side = (rel: string) => data.rows.filter((r) => r.relationship === rel).slice(0, LIMITS.journey);
  const toggle = (
    <div className="segmented" role="group" aria-label="Show as">
      {(['table', 'chart'] as const).map((m) => (
        <button key={m} type="button" className={`button button-small${mode === m ? ' button-primary' : ''}`} aria-pressed={mode === m} onClick={() => setMode(m)}>
          {m === 'table' ? 'Table' : 'Chart'}
        </button>
      ))}
    </div>
  );
  const journeyBars = (rows: Row[], rel: string) => {
    const option = barOption([...rows].reverse(), 'place_taxonomy_value', 'percentage', { yName: `% of visits with a place ${rel}`, percent: true });
    // Horizontal bars: long place names read better on the vertical axis.
    const o = option as { xAxis: unknown; yAxis: unknown };
    [o.xAxis, o.yAxis] = [{ ...(o.yAxis as object), nameLocation: 'middle', nameGap: 28 }, { ...(o.xAxis as object), name: undefined, axisLabel: { interval: 0 } }];
    return <EChart label={`Top places visited ${rel}`} height={Math.max(240, rows.length * 22 + 80)} option={option} />;
  };
  return (
    <Grid columns={view.gridColumns}>
      <ChartCard id={c.id} title="Top places visited before and after" span={c.colSpan} data={data} actions={toggle}>
        <div className="journey-columns">
          {(['before', 'after'] as const).map((rel) => (
            <div key={rel}>
              <h3>{rel === 'before' ? 'Before' : 'After'}</h3>
              {mode === 'chart' ? journeyBars(side(rel), rel) : (
                <table className="table" aria-label={`Visited ${rel}`}>
                  <thead><tr><th>#</th><th>Place</th><th>Type</th><th className="num">Share of visits</th></tr></thead>
                  <tbody>
                    {side(rel).map((r, i) => (
                      <tr key={`${r.place_taxonomy_type}:${r.place_taxonomy_id}`}>
                        <td>{i + 1}</td><td>{String(r.place_taxonomy_value)}</td><td className="muted">{String(r.place_taxonomy_type)}</td><td className="num">{fmt(r.percentage)} %</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </div>
          ))}
        </div>
      </ChartCard>
    </Grid>
  );
}

function IndexedFootTraffic({ view, params }: { view: ViewSpec; params: Params }) {
  const geos = (params.geographies as string[]) ?? [];
  const places = (params.places as string[]) ?? [];
  // The template takes one geography with several places, or one place across several geographies.
  const byPlace = useRows('indexed-foot-traffic', { ...params, geographies: geos.slice(0, 1) }, geos.length > 0 && places.length > 0);
  const byGeo = useRows('indexed-foot-traffic', { ...params, places: places.slice(0, 1) }, geos.length > 0 && places.length > 0);
  const a = chart(view, 'by-place');
  const b = chart(view, 'by-geography');
  return (
    <Grid columns={view.gridColumns}>
      <ChartCard id={a.id} title={a.title} span={a.colSpan} data={byPlace}>
        <EChart label={a.title} option={lineOption(byPlace.rows, 'period_epoch_ms', 'norm_visits_pct_chg_vs_first', 'place_taxonomy_value', 'Change vs first period (%)', a.maxGroups ?? LIMITS.line)} />
      </ChartCard>
      <ChartCard id={b.id} title={b.title} span={b.colSpan} data={byGeo}>
        <EChart label={b.title} option={lineOption(byGeo.rows, 'period_epoch_ms', 'norm_visits_pct_chg_vs_first', 'geography_value', 'Change vs first period (%)', b.maxGroups ?? LIMITS.line)} />
      </ChartCard>
    </Grid>
  );
}

function VisitationTrends({ view, params }: { view: ViewSpec; params: Params }) {
  const indexed = useRows('trends-indexed', params);
  const daypart = useRows('trends-daypart', params);
  const dwell = useRows('trends-dwell', params);
  const [a, b, c] = [chart(view, 'trend-index'), chart(view, 'trend-daypart'), chart(view, 'trend-dwell')];
  // The daypart chart stacks the three dayparts of one place; several places would overlap.
  const firstPlace = distinct(daypart.rows, 'placeTaxonomyValue')[0];
  const dayRows = daypart.rows.filter((r) => r.placeTaxonomyValue === firstPlace);
  return (
    <Grid columns={view.gridColumns}>
      <ChartCard id={a.id} title={a.title} span={a.colSpan} data={indexed}>
        <EChart label={a.title} option={lineOption(indexed.rows, 'periodEpochMs', 'norm_visits_pct_chg_vs_first', 'placeTaxonomyValue', 'Change vs first period (%)', LIMITS.line)} />
      </ChartCard>
      <ChartCard id={b.id} title={`${b.title}${firstPlace ? `: ${firstPlace}` : ''}`} span={b.colSpan} data={daypart}>
        <EChart label={b.title} option={barOption(dayRows, 'periodEpochMs', 'shareOfNormalizedVisits', { series: 'cohortValue', yName: 'Share of visits (%)', maxGroups: LIMITS.daypart, stack: true, time: true, percent: true })} />
      </ChartCard>
      <ChartCard id={c.id} title={c.title} span={c.colSpan} data={dwell}>
        <EChart label={c.title} option={lineOption(dwell.rows, 'periodEpochMs', 'medianDwellTimeMinutes', 'placeTaxonomyValue', 'Median dwell (minutes)', LIMITS.line)} />
      </ChartCard>
    </Grid>
  );
}

/** The chart grid of a view (analytics-and-admin §2 layouts, §9 grid columns and group limits). */
export function ViewBody({ view, params, sets }: { view: ViewSpec; params: Params; sets: SetSpec[] }) {
  switch (view.id) {
    case 'audience-insight': return <AudienceInsight view={view} params={params} />;
    case 'change-in-visits': return <ChangeInVisits view={view} params={params} />;
    case 'cross-visitation': return <CrossVisitation view={view} params={params} />;
    case 'customer-journey': return <CustomerJourney view={view} params={params} />;
    case 'indexed-foot-traffic': return <IndexedFootTraffic view={view} params={params} />;
    case 'movement-pivot': return <PivotView view={view} params={params} set={sets.find((s) => s.id === 'movement-pivot')!} />;
    case 'visitation-trends': return <VisitationTrends view={view} params={params} />;
    default: return null;
  }
}
