import { useEffect, useMemo, useRef, useState } from 'react';
import { useLocation, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { parseDashboardState, type DashboardState, type StudioRecord, type Widget } from '@studio/schema';
import { client } from '../app/api';
import { heldHere, useEditLock } from '../app/useEditLock';
import { LockRequests } from '../app/LockRequests';
import { useUser } from '../app/session';
import { DuplicateButton } from '../app/DuplicateButton';
import { RECORD_KINDS } from '../app/record-links';
import { ErrorMessage, useAction } from '../app/ui';
import { errorMessage } from '../app/useLoad';
import { DashboardCanvas, studioSource } from './DashboardCanvas';
import { WidgetEditor } from './WidgetEditor';
import { ParameterEditor } from './ParameterEditor';
import { PublishDashboardDialog } from './PublishDashboardDialog';
import { DEFAULT_TEMPLATE, TEMPLATES, newWidgetId, reduce, valuesFromSearch, type Action } from './state';
import { ANALYTIC_TEMPLATE_PREFIX, analyticDashboard, analyticTemplateId } from './analytic-templates';
import { loadGroup } from '../analytics/useRows';
import { dashboardThumbnail } from './thumbnail';
import { AddToProjectButton } from '../projects/AddRecordToProjectDialog';
import { initialParams } from '../analytics/AnalyticsView';
import { EditorHistoryDialogs } from '../app/history/HistoryPanel';
import { VersionBanner } from '../app/history/VersionBanner';
import { VersionMessageField } from '../app/history/useVersionedSave';
import { useEditorHistory } from '../app/history/useEditorHistory';
import { history, versionParam } from '../app/history/versions';
import './dashboard.css';

type Loaded = { record: StudioRecord | null; saved: DashboardState | null; state: DashboardState; name?: string };

/**
 * A new dashboard from its template: report (the default), blank, or `analytic:<viewId>` (that view's
 * charts, with the values the view had when "Save as dashboard" was clicked, else the view's defaults).
 */
async function fromTemplate(templateId: string, analyticParameters: unknown, mapId: string | null): Promise<Loaded> {
  if (templateId.startsWith(ANALYTIC_TEMPLATE_PREFIX)) {
    const group = await loadGroup();
    const viewId = templateId.slice(ANALYTIC_TEMPLATE_PREFIX.length);
    const known = group.views.some((v) => v.id === viewId);
    if (!known) throw new Error(`Unknown template ${templateId}: ${[...Object.keys(TEMPLATES), ...group.views.map((v) => analyticTemplateId(v.id))].join(', ')}`);
    const params = analyticParameters && typeof analyticParameters === 'object' ? (analyticParameters as Record<string, unknown>) : initialParams(group, viewId);
    const { name, state } = analyticDashboard(group, viewId, params);
    return { record: null, saved: null, state, name };
  }
  const template = TEMPLATES[templateId];
  if (!template) throw new Error(`Unknown template ${templateId}: ${Object.keys(TEMPLATES).join(', ')}, or analytic:<view> of an analytic set`);
  const state = template.state();
  // "New dashboard" on a map: the map is the first widget under the template's own.
  return { record: null, saved: null, state: mapId ? withMap(state, mapId) : state };
}

function withMap(state: DashboardState, mapId: string): DashboardState {
  const widget: Widget = { id: newWidgetId(state, 'map'), kind: 'map', title: 'Map', mapId, parameterIds: [], options: { numberFormat: 'number', decimals: 0 } };
  return reduce(state, { type: 'addWidget', payload: widget });
}

/**
 * /dashboard/new?templateId=… and /dashboard/{id}?param=value: the builder for editors (the edit lock
 * is taken on open, as for maps), the same page read-only for viewers and in /preview/{id}.
 */
export function DashboardPage({ preview = false }: { preview?: boolean }) {
  const { id } = useParams();
  const [search, setSearch] = useSearchParams();
  const navigate = useNavigate();
  const location = useLocation();
  const user = useUser();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [state, setState] = useState<DashboardState | null>(null);
  const [name, setName] = useState('Untitled dashboard');
  const [editing, setEditing] = useState<Widget | 'new' | null>(null);
  const [addingParameter, setAddingParameter] = useState(false);
  const [publishing, setPublishing] = useState(false);
  const save = useAction();
  const page = useRef<HTMLElement>(null);
  // /preview/{id}?atVersion=n: that saved version, read-only, as it was (#51).
  const hist = useEditorHistory('insights', preview ? versionParam(search) : null);

  useEffect(() => {
    let cancelled = false;
    if (!hist.afterRestore()) setLoaded(null);
    const load = async (): Promise<Loaded> => {
      if (!id) return fromTemplate(search.get('templateId') ?? DEFAULT_TEMPLATE, (location.state as { analyticParameters?: unknown } | null)?.analyticParameters, search.get('mapId'));
      const record = await client.records('dashboards').get(id, { acquireLock: !preview });
      const old = hist.atVersion ? await history('insights').get(id, hist.atVersion) : null;
      hist.setVersion(old);
      const stored = old ? old.state : record.latestState;
      const saved = stored ? parseDashboardState(stored) : TEMPLATES.blank!.state();
      return { record, saved, state: saved };
    };
    load().then(
      (l) => {
        if (cancelled) return;
        setLoaded(l);
        setState(l.state);
        setName(l.record?.name ?? l.name ?? 'Untitled dashboard');
      },
      (e: unknown) => !cancelled && setLoadError(errorMessage(e)),
    );
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the template is read once per dashboard
  }, [id, preview, hist.reloads]);

  const record = loaded?.record ?? null;
  // A lock that still holds and is not this tab's makes the page read-only (as for maps and workbooks).
  const lockedBy = record?.lock && !heldHere(record.lock, user.id) && new Date(record.lock.expiresAt) > new Date() ? record.lock : null;
  const mayEdit = !record || ['editor', 'owner', 'admin'].includes(record.access);
  const canEdit = !preview && mayEdit && !lockedBy;
  // The lock is renewed while the page is open and given up when it is left; another tab taking it over
  // turns this page read-only.
  useEditLock('insight', record && canEdit ? record.id : null, (r) => {
    if (!heldHere(r.lock, user.id)) setLoaded((l) => l && { ...l, record: r });
  });
  const values = useMemo(() => (state ? valuesFromSearch(search, state.parameters) : {}), [search, state]);
  const source = useMemo(() => (state ? studioSource(record?.id ?? null, loaded?.saved ?? null, state) : null), [record?.id, loaded?.saved, state]);

  if (loadError) return <section className="page"><ErrorMessage message={loadError} /></section>;
  if (!state || !source || !loaded) return <section className="page"><p role="status">Loading the dashboard…</p></section>;
  const dispatch = (a: Action) => setState((s) => (s ? reduce(s, a) : s));

  const onSave = () =>
    save.run(async () => {
      // An existing dashboard saves as a version based on the one it opened; refused (and shown) when someone saved meanwhile.
      const saved = record ? await hist.saver.save(record, { name, latestState: state }) : await client.records('dashboards').save({ name, latestState: state });
      if (!saved) return;
      // The list's thumbnail: the grid as drawn now (a failed thumbnail never fails the save).
      const grid = page.current?.querySelector<HTMLElement>('.dashboard-grid');
      const png = grid ? await dashboardThumbnail(grid).catch(() => null) : null;
      if (png) await client.raw('PUT', `/v1/dashboards/${saved.id}/thumbnail`, { rawBody: png, contentType: 'image/png' }).catch(() => undefined);
      const next = parseDashboardState(saved.latestState);
      setLoaded({ record: saved, saved: next, state: next });
      setState(next);
      // The saved dashboard's link keeps the parameter values, not how it was made (template, dataset, map).
      const query = new URLSearchParams(valuesFromSearch(search, next.parameters)).toString();
      if (!record) navigate(`/dashboard/${saved.id}${query ? `?${query}` : ''}`, { replace: true });
    });

  return (
    <section ref={page} className={`page dashboard-page${canEdit ? ' is-editing' : ''}`} aria-label="Dashboard">
      <header className="dashboard-toolbar">
        {canEdit ? <input className="dashboard-name" aria-label="Dashboard name" value={name} onChange={(e) => setName(e.target.value)} maxLength={500} /> : <h1>{name}</h1>}
        {!canEdit && <span className="badge">{preview ? 'Preview' : !mayEdit ? 'Read only' : lockedBy?.ownerId === user.id ? 'Read only: you are editing this dashboard in another tab' : `Being edited by ${lockedBy?.ownerName ?? 'someone else'}: read only`}</span>}
        {!canEdit && !preview && record && <DuplicateButton collection="dashboards" record={record} href={RECORD_KINDS.insight.href} />}
        {!preview && mayEdit && lockedBy?.ownerId === user.id && record && (
          <button type="button" className="button" onClick={() => void save.run(async () => {
            // "Edit here": the user takes their own lock from the other tab, and this page opens for editing.
            const taken = await client.records('dashboards').get(record.id, { acquireLock: true, takeOver: true });
            setLoaded((l) => l && { ...l, record: taken });
          })}>Edit here</button>
        )}
        {record && !preview && <LockRequests type="insight" record={record} userId={user.id} isAdmin={user.isAdmin} mayEdit={mayEdit} editingHere={canEdit} />}
        {canEdit && (
          <>
            <button type="button" className="button" onClick={() => setEditing('new')}>Add widget</button>
            <button type="button" className="button" onClick={() => setAddingParameter(true)}>Add parameter</button>
            {record && <VersionMessageField saver={hist.saver} />}
            <button type="button" className="button button-primary" disabled={save.pending} onClick={() => void onSave()}>{save.pending ? 'Saving…' : 'Save'}</button>
          </>
        )}
        {record && ['owner', 'editor', 'admin'].includes(record.access) && !preview && <button type="button" className="button" onClick={() => setPublishing(true)}>Publish</button>}
        {record && !preview && <a className="button" href={`/preview/${record.id}${window.location.search}`}>Preview</a>}
        {record && !preview && <AddToProjectButton record={{ id: record.id, name }} kind="insight" />}
        {record && !preview && <button type="button" className="button" onClick={() => hist.setOpen(true)}>History</button>}
        {record && hist.version && <VersionBanner collection="insights" id={record.id} version={hist.version} />}
        <button type="button" className="button" onClick={() => window.print()}>Print / PDF</button>
      </header>
      <ErrorMessage message={save.error} />
      <DashboardCanvas
        state={state}
        values={values}
        onValues={(v) => setSearch(Object.fromEntries(Object.entries({ ...Object.fromEntries(search), ...v }).filter(([, x]) => x !== '')), { replace: true })}
        source={source}
        editing={canEdit}
        onLayout={(l) => dispatch({ type: 'setLayout', payload: l })}
        onEdit={(w) => setEditing(w)}
        onRemove={(w) => dispatch({ type: 'removeWidget', payload: w.id })}
      />
      {editing && (
        <WidgetEditor
          state={state}
          initial={editing === 'new' ? undefined : editing}
          defaultDatasetId={search.get('datasetId') ?? undefined}
          newId={(kind) => newWidgetId(state, kind)}
          onClose={() => setEditing(null)}
          onSave={(w) => {
            dispatch(editing === 'new' ? { type: 'addWidget', payload: w } : { type: 'updateWidget', payload: w });
            setEditing(null);
          }}
        />
      )}
      {addingParameter && (
        <ParameterEditor
          state={state}
          onClose={() => setAddingParameter(false)}
          onSave={(parameter, bindTo) => {
            dispatch({ type: 'addParameter', payload: { parameter, bindTo } });
            setAddingParameter(false);
          }}
        />
      )}
      <EditorHistoryDialogs history={hist} record={record} canRestore={canEdit} onSaveOver={() => void onSave()} />
      {publishing && record && <PublishDashboardDialog record={record} onClose={() => setPublishing(false)} />}
    </section>
  );
}
