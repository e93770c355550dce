import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router-dom';
import type { NodeType } from '@studio/pipeline';
import { parseWorkbookState, type CellKind, type StudioRecord, type WorkbookState } from '@studio/schema';
import { client } from '../app/api';
import { heldHere, useEditLock } from '../app/useEditLock';
import { LockRequests } from '../app/LockRequests';
import { useUser } from '../app/session';
import { DuplicateButton } from '../app/DuplicateButton';
import { RECORD_KINDS } from '../app/record-links';
import { ErrorMessage, useAction } from '../app/ui';
import { errorMessage, useLoad } from '../app/useLoad';
import { CellView } from './CellView';
import { datasetsOf, emptyState, freeName, makesTable, newCell, reduce, type Action } from './cells';
import { STEP_SPECS, STEP_TYPES } from './steps';
import { WorkbookRunner, type CellStatus } from './run';
import type { StepChoices } from './StepForm';
import './workbook.css';
import { AddToProjectButton } from '../projects/AddRecordToProjectDialog';
import { EditorHistoryDialogs } from '../app/history/HistoryPanel';
import { VersionBanner } from '../app/history/VersionBanner';
import { VersionMessageField } from '../app/history/useVersionedSave';
import { useEditorHistory } from '../app/history/useEditorHistory';
import { history, versionParam } from '../app/history/versions';

const UNDO_DEPTH = 100;

type Loaded = { record: StudioRecord | null; state: WorkbookState; name: string };

/** A new workbook; from a dataset (`?datasetId=`), it starts with that dataset's step, run at once. */
async function newWorkbook(datasetId: string | null): Promise<Loaded> {
  const state = emptyState();
  if (!datasetId) return { record: null, state, name: 'Untitled workbook' };
  const dataset = await client.datasets.get(datasetId);
  const cell = newCell(state, 'step', 'dataset', { uuid: dataset.id });
  return { record: null, state: reduce(state, { type: 'add', cell: { ...cell, name: freeName(state, dataset.name.toLowerCase()) } }), name: `${dataset.name} workbook` };
}

/**
 * /workbook/new[?datasetId=] and /workbook/{id}: a notebook of cells, top to bottom — pipeline steps, SQL
 * over the cells above, charts, maps and text. Editors hold the edit lock while the page is open (the one
 * lock of maps and dashboards); viewers, and anyone while someone else holds it, read it without editing.
 */
export function WorkbookPage() {
  const { id } = useParams();
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const user = useUser();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [state, setState] = useState<WorkbookState>(emptyState);
  const [undo, setUndo] = useState<WorkbookState[]>([]);
  const [name, setName] = useState('Untitled workbook');
  const [statuses, setStatuses] = useState<Record<string, CellStatus>>({});
  const [running, setRunning] = useState<AbortController | null>(null);
  const [adding, setAdding] = useState<{ kind: CellKind; step: NodeType }>({ kind: 'step', step: 'filter' });
  const runner = useMemo(() => new WorkbookRunner(client), []);
  const save = useAction();
  const stateRef = useRef(state);
  stateRef.current = state;
  // ?atVersion=n: that saved version, read-only, as it was (#51); no edit lock is taken for it.
  const hist = useEditorHistory('workbooks', versionParam(search));

  useEffect(() => {
    let cancelled = false;
    if (hist.afterRestore()) setUndo([]);
    const load = async (): Promise<Loaded> => {
      if (!id) return newWorkbook(search.get('datasetId'));
      const record = await client.records('workbooks').get(id, { acquireLock: !hist.atVersion });
      const old = hist.atVersion ? await history('workbooks').get(id, hist.atVersion) : null;
      hist.setVersion(old);
      const stored = old ? old.state : record.latestState;
      return { record, state: stored ? parseWorkbookState(stored) : emptyState(), name: record.name };
    };
    load().then(
      (l) => {
        if (cancelled) return;
        setLoaded(l);
        setState(l.state);
        setName(l.name);
        void runCells(l.state);
      },
      (e: unknown) => !cancelled && setLoadError(errorMessage(e)),
    );
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- loaded once per workbook (and again after a restore)
  }, [id, hist.reloads]);

  const record = loaded?.record ?? null;
  const lockedBy = record?.lock && !heldHere(record.lock, user.id) && new Date(record.lock.expiresAt) > new Date() ? record.lock : null;
  const mayEdit = !record || ['editor', 'owner', 'admin'].includes(record.access);
  const readOnly = !mayEdit || Boolean(lockedBy) || hist.atVersion !== null;

  // The lock is renewed while the page is open and given up when it is left.
  const lockedRecordId = record && !readOnly ? record.id : null;
  useEditLock('workbook', lockedRecordId, (r) => {
    // Another tab or user took the lock over: this page stops editing.
    if (!heldHere(r.lock, user.id)) setLoaded((l) => l && { ...l, record: r });
  });

  const datasets = useLoad(() => client.records('datasets').list({ limit: 200 }).then((p) => p.items.map((d) => ({ id: d.id, name: d.name }))), []);
  const connections = useLoad(() => client.collection('/v1/data-connections').list({ limit: 200 }).then((p) => p.items.map((c) => ({ id: c.id, name: c.name }))), []);

  const report = useCallback((cellId: string, status: CellStatus) => setStatuses((s) => ({ ...s, [cellId]: status })), []);

  /** Runs `only` and the cells that read it, or every cell; a run in progress is cancelled first. */
  const runCells = useCallback(
    async (s: WorkbookState, only?: string) => {
      const abort = new AbortController();
      setRunning((previous) => {
        previous?.abort();
        return abort;
      });
      try {
        await runner.run(s, report, { only, signal: abort.signal });
      } finally {
        setRunning((now) => (now === abort ? null : now));
      }
    },
    [runner, report],
  );

  const dispatch = useCallback((a: Action) => {
    setState((s) => {
      const next = reduce(s, a);
      if (next !== s) setUndo((u) => [...u.slice(-(UNDO_DEPTH - 1)), s]);
      return next;
    });
  }, []);

  const onUndo = () => {
    const previous = undo[undo.length - 1];
    if (!previous) return;
    setUndo(undo.slice(0, -1));
    setState(previous);
  };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const inEditor = (e.target as HTMLElement | null)?.closest?.('input, textarea, select, .cm-editor');
      if (!inEditor && (e.ctrlKey || e.metaKey) && e.key === 'z' && !readOnly) {
        e.preventDefault();
        onUndo();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  if (loadError) return <section className="page"><ErrorMessage message={loadError} /></section>;
  if (!loaded) return <section className="page"><p role="status">Loading the workbook…</p></section>;

  const onSave = () =>
    save.run(async () => {
      const body = { name, latestState: state, datasets: datasetsOf(state) };
      // An existing workbook saves as a version based on the one it opened; refused (and shown) when someone saved meanwhile.
      const saved = record ? await hist.saver.save(record, body, { acquireLock: true }) : await client.records('workbooks').save(body, { acquireLock: true });
      if (!saved) return;
      setLoaded({ record: saved, state: parseWorkbookState(saved.latestState), name: saved.name });
      if (!record) navigate(`/workbook/${saved.id}`, { replace: true });
    });

  const addCell = () => {
    const cell = newCell(state, adding.kind, adding.step);
    dispatch({ type: 'add', cell });
  };

  const statusOf = (cellId: string): CellStatus | undefined => {
    const cell = state.cells.find((c) => c.id === cellId)!;
    const result = runner.cached(cell, state);
    if (result) return { state: 'done', result };
    const s = statuses[cellId];
    // A cell edited since it ran shows its old answer no more: it is stale until run again.
    if (s?.state === 'done') return { state: 'stale', reason: 'Changed since it ran: Run (Shift+Enter) to see its result' };
    return s;
  };

  const choicesFor = (cellId: string): StepChoices => {
    const cell = state.cells.find((c) => c.id === cellId)!;
    const first = cell.kind === 'step' ? state.cells.find((c) => c.name.toLowerCase() === (cell.inputs[0] ?? '').toLowerCase()) : undefined;
    const columns = first ? runner.cached(first, state)?.columns ?? [] : [];
    return { columns, datasets: datasets.data ?? [], connections: connections.data ?? [] };
  };

  return (
    <section className={`page workbook-page${readOnly ? '' : ' is-editing'}`} aria-label="Workbook">
      <header className="workbook-toolbar">
        {readOnly ? <h1>{name}</h1> : <input className="workbook-name" aria-label="Workbook name" value={name} maxLength={500} onChange={(e) => setName(e.target.value)} />}
        {readOnly && !hist.version && <span className="badge">{!mayEdit ? 'Read only' : `Being edited by ${lockedBy?.ownerName ?? 'someone else'}: read only`}</span>}
        {readOnly && !hist.version && record && <DuplicateButton collection="workbooks" record={record} href={RECORD_KINDS.workbook.href} />}
        {record && hist.atVersion === null && <LockRequests type="workbook" record={record} userId={user.id} isAdmin={user.isAdmin} mayEdit={mayEdit} editingHere={!readOnly} />}
        <button type="button" className="button" disabled={running !== null} onClick={() => void runCells(state)}>Run all</button>
        {running && (
          <>
            <span className="muted" role="status">Running…</span>
            <button type="button" className="button" onClick={() => running.abort()}>Cancel</button>
          </>
        )}
        {!readOnly && (
          <>
            <button type="button" className="button" disabled={!undo.length} onClick={onUndo} title="Undo (Ctrl+Z)">Undo</button>
            {record && <VersionMessageField saver={hist.saver} />}
            <button type="button" className="button button-primary" disabled={save.pending} onClick={() => void onSave()}>{save.pending ? 'Saving…' : 'Save'}</button>
          </>
        )}
        {record && <AddToProjectButton record={{ id: record.id, name }} kind="workbook" />}
        {record && !hist.version && <button type="button" className="button" onClick={() => hist.setOpen(true)}>History</button>}
        {record && hist.version && <VersionBanner collection="workbooks" id={record.id} version={hist.version} />}
      </header>
      <ErrorMessage message={save.error} />
      <EditorHistoryDialogs history={hist} record={record} canRestore={!readOnly} onSaveOver={() => void onSave()} />
      {state.cells.length === 0 && <p className="muted">An empty workbook: add a dataset step, inline data or SQL to begin.</p>}
      <div className="workbook-cells">
        {state.cells.map((cell) => {
          const sourceName = cell.kind === 'chart' || cell.kind === 'map' ? cell.source : '';
          const sourceCell = sourceName ? state.cells.find((c) => c.name.toLowerCase() === sourceName.toLowerCase() && makesTable(c)) : undefined;
          return (
            <CellView
              key={cell.id}
              cell={cell}
              state={state}
              status={statusOf(cell.id)}
              runs={runner.runs.get(cell.id) ?? 0}
              source={sourceCell ? runner.cached(sourceCell, state) : undefined}
              runner={runner}
              choices={choicesFor(cell.id)}
              readOnly={readOnly}
              running={running !== null}
              dispatch={dispatch}
              onRun={() => void runCells(stateRef.current, cell.id)}
            />
          );
        })}
      </div>
      {!readOnly && (
        <form className="workbook-add" aria-label="Add a cell" onSubmit={(e) => { e.preventDefault(); addCell(); }}>
          <label className="step-field">
            Add
            <select aria-label="Cell kind" value={adding.kind} onChange={(e) => setAdding({ ...adding, kind: e.target.value as CellKind })}>
              <option value="step">Step</option>
              <option value="sql">SQL</option>
              <option value="chart">Chart</option>
              <option value="map">Map</option>
              <option value="markdown">Text</option>
            </select>
          </label>
          {adding.kind === 'step' && (
            <label className="step-field">
              Step
              <select aria-label="Step type" value={adding.step} onChange={(e) => setAdding({ ...adding, step: e.target.value as NodeType })}>
                {STEP_TYPES.map((t) => <option key={t} value={t}>{STEP_SPECS[t].label}</option>)}
              </select>
            </label>
          )}
          <button type="submit" className="button">Add cell</button>
        </form>
      )}
    </section>
  );
}
