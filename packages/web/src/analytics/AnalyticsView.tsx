import { useMemo, useState } from 'react';
import { NavLink, useNavigate } from 'react-router-dom';
import type { AnalyticSetGroupWire } from '@studio/client';
import { ErrorMessage } from '../app/ui';
import { useLoad } from '../app/useLoad';
import { QueryBar, type Params } from './QueryBar';
import { loadGroup } from './useRows';
import { ViewBody } from './Views';
import { analyticTemplateId } from '../dashboard/analytic-templates';
import './analytics.css';

export const VIEW_BASE = '/analytics/foot-traffic';

/** Opening values: the server's defaults (from the bound data and saved configs), adjusted per view. */
export function initialParams(group: AnalyticSetGroupWire, viewId: string): Params {
  const view = group.views.find((v) => v.id === viewId)!;
  const set = group.sets.find((s) => s.id === view.templateIds[0])!;
  const params: Params = Object.fromEntries(set.queryParameters.map((q) => [q.id, q.defaultValue]));
  if (viewId === 'indexed-foot-traffic' || viewId === 'change-in-visits') {
    // Both compare across geographies (Indexed: its second chart): open with a few market areas too.
    const geo = set.queryParameters.find((q) => q.id === 'geographies')!;
    const first = (params.geographies as string[])[0];
    const markets = geo.availableValues.filter((v) => v.startsWith('dma:') && v !== first).slice(0, 2);
    params.geographies = [...(first ? [first] : []), ...markets].slice(0, geo.maxValues ?? 7);
    // ...and a category first: every market area has places of each category, while a chain may be
    // absent from a market (its index is then null and its line empty).
    const places = set.queryParameters.find((q) => q.id === 'places')!;
    const category = places.availableValues.find((v) => v.startsWith('category:'));
    const chosen = (params.places as string[]) ?? [];
    if (category && !chosen.includes(category)) params.places = [category, ...chosen].slice(0, places.maxValues ?? 7);
  }
  return params;
}

function ViewPage({ group, viewId }: { group: AnalyticSetGroupWire; viewId: string }) {
  const view = group.views.find((v) => v.id === viewId);
  const set = view && group.sets.find((s) => s.id === view.templateIds[0]);
  // The route remounts this page per view (keyed by slug), so the opening values are computed once.
  const [params, setParams] = useState<Params>(() => (view ? initialParams(group, viewId) : {}));
  const navigate = useNavigate();
  if (!view || !set) return <ErrorMessage message={`Unknown analytic set view ${viewId}`} />;
  return (
    <>
      <header className="page-header page-header-stacked">
        <div className="page-header-row">
          <h1>{view.title}</h1>
          {/* The view's charts as a dashboard, with the values chosen here. */}
          <button type="button" className="button" onClick={() => navigate(`/dashboard/new?templateId=${analyticTemplateId(viewId)}`, { state: { analyticParameters: params } })}>Save as dashboard</button>
        </div>
        <p className="muted">{view.description}</p>
      </header>
      <QueryBar parameters={set.queryParameters} value={params} onChange={setParams} />
      {group.source === 'sample' && <p className="muted small">Built-in sample data (synthetic visits). Bind your organization's datasets with an analytic-set config to analyse your own.</p>}
      <ViewBody key={viewId} view={view} params={params} sets={group.sets} />
    </>
  );
}

/** One analytic set view: side menu of the seven views, query bar, chart grid (analytics-and-admin §2). */
export function AnalyticsView({ viewId }: { viewId: string }) {
  const group = useLoad(loadGroup, []);
  const views = useMemo(() => group.data?.views ?? [], [group.data]);
  return (
    <div className="analytics-layout">
      <nav className="analytics-menu card" aria-label="Analytic sets">
        <h2 className="nav-title">Foot traffic</h2>
        <ul>
          {views.map((v) => (
            <li key={v.id}>
              <NavLink to={`${VIEW_BASE}/${v.id}`} className="analytics-link">{v.title}</NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <section className="page analytics-main">
        {group.error && <ErrorMessage message={group.error} onRetry={group.reload} />}
        {group.loading && !group.data && <div className="chart-placeholder" role="status">Loading the analytic sets…</div>}
        {group.data && <ViewPage group={group.data} viewId={viewId} />}
      </section>
    </div>
  );
}
