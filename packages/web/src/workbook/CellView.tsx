import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { Link } from 'react-router-dom';
import Markdown from 'markdown-to-jsx';
import { EditorView, basicSetup } from 'codemirror';
import { keymap } from '@codemirror/view';
import { Prec } from '@codemirror/state';
import { sql } from '@codemirror/lang-sql';
import type { Dataset } from '@studio/schema';
import { CELL_NAME, type SqlCell, type WorkbookCell, type WorkbookState } from '@studio/schema';
import { client } from '../app/api';
import { ErrorMessage, useAction } from '../app/ui';
import { ResultDownload } from '../app/ResultDownload';
import { StepForm, type StepChoices } from './StepForm';
import { ChartCellBody, MapCellBody } from './CellDrawings';
import { ResultGrid } from './ResultGrid';
import { makesTable, type Action } from './cells';
import type { CellResult, CellStatus, WorkbookRunner } from './run';

const KIND_LABELS: Record<WorkbookCell['kind'], string> = { step: 'Step', sql: 'SQL', chart: 'Chart', map: 'Map', markdown: 'Text' };

export interface CellViewProps {
  cell: WorkbookCell;
  state: WorkbookState;
  status: CellStatus | undefined;
  runs: number;
  /** The result of the cell a chart or map draws. */
  source: CellResult | undefined;
  runner: WorkbookRunner;
  choices: StepChoices;
  readOnly: boolean;
  running: boolean;
  dispatch: (a: Action) => void;
  onRun: () => void;
}

/** One cell: its title bar (name, kind, run, move, duplicate, collapse, delete), its editor and what it made. */
export function CellView(p: CellViewProps) {
  const { cell, state, status, readOnly } = p;
  const [nameDraft, setNameDraft] = useState(cell.name);
  useEffect(() => setNameDraft(cell.name), [cell.name]);
  const nameTaken = state.cells.some((c) => c.id !== cell.id && c.name.toLowerCase() === nameDraft.toLowerCase());
  const nameProblem = !CELL_NAME.test(nameDraft) ? 'Letters, digits and underscores, starting with a letter' : nameTaken ? `Another cell is named ${nameDraft}` : '';
  const update = (c: WorkbookCell) => p.dispatch({ type: 'update', cell: c });
  const onKeyDown = (e: KeyboardEvent) => {
    // The SQL editor runs the cell on Shift+Enter itself (and marks the key handled).
    if (e.key === 'Enter' && e.shiftKey && !readOnly && !e.defaultPrevented) {
      e.preventDefault();
      p.onRun();
    }
  };
  const result = status?.state === 'done' ? status.result : undefined;
  return (
    <section className={`workbook-cell cell-${cell.kind}`} aria-label={`Cell ${cell.name}`} data-runs={p.runs} data-state={status?.state ?? 'idle'} onKeyDown={onKeyDown}>
      <header className="cell-bar">
        <span className="cell-kind">{KIND_LABELS[cell.kind]}</span>
        {readOnly ? (
          <strong className="cell-name">{cell.name}</strong>
        ) : (
          <input
            className="cell-name"
            aria-label="Cell name"
            value={nameDraft}
            aria-invalid={nameProblem ? true : undefined}
            title={nameProblem || 'Later cells name this cell by it'}
            onChange={(e) => {
              setNameDraft(e.target.value);
              const ok = CELL_NAME.test(e.target.value) && !state.cells.some((c) => c.id !== cell.id && c.name.toLowerCase() === e.target.value.toLowerCase());
              if (ok) p.dispatch({ type: 'rename', id: cell.id, name: e.target.value });
            }}
          />
        )}
        {nameProblem && <span className="error small" role="alert">{nameProblem}</span>}
        <span className="cell-bar-actions">
          {makesTable(cell) && !readOnly && (
            <button type="button" className="button button-small" disabled={p.running} title="Run this cell and the cells below that read it (Shift+Enter)" onClick={p.onRun}>Run</button>
          )}
          {!readOnly && (
            <>
              <button type="button" className="icon-button" aria-label={`Move ${cell.name} up`} title="Move up" onClick={() => p.dispatch({ type: 'move', id: cell.id, by: -1 })}>↑</button>
              <button type="button" className="icon-button" aria-label={`Move ${cell.name} down`} title="Move down" onClick={() => p.dispatch({ type: 'move', id: cell.id, by: 1 })}>↓</button>
              <button type="button" className="icon-button" aria-label={`Duplicate ${cell.name}`} title="Duplicate" onClick={() => p.dispatch({ type: 'duplicate', id: cell.id })}>⧉</button>
            </>
          )}
          <button type="button" className="icon-button" aria-label={`${cell.collapsed ? 'Expand' : 'Collapse'} ${cell.name}`} aria-expanded={!cell.collapsed} onClick={() => p.dispatch({ type: 'toggle', id: cell.id })}>{cell.collapsed ? '▸' : '▾'}</button>
          {!readOnly && <button type="button" className="icon-button" aria-label={`Delete ${cell.name}`} title="Delete (Undo brings it back)" onClick={() => p.dispatch({ type: 'remove', id: cell.id })}>✕</button>}
        </span>
      </header>
      {!cell.collapsed && (
        <div className="cell-body">
          {cell.kind === 'step' && <StepForm cell={cell} state={state} choices={p.choices} readOnly={readOnly} onChange={update} />}
          {cell.kind === 'sql' && <SqlCellEditor cell={cell} readOnly={readOnly} onChange={update} onRun={p.onRun} />}
          {cell.kind === 'markdown' && <MarkdownCellBody text={cell.text} readOnly={readOnly} onChange={(text) => update({ ...cell, text })} />}
          {cell.kind === 'chart' && <ChartCellBody cell={cell} state={state} source={p.source} runner={p.runner} readOnly={readOnly} onChange={update} />}
          {cell.kind === 'map' && <MapCellBody cell={cell} state={state} source={p.source} runner={p.runner} readOnly={readOnly} onChange={update} />}
          <CellStatusLine status={status} />
          {result && (
            <>
              <ResultGrid cellName={cell.name} result={result} />
              <ResultActions cellName={cell.name} fresh={() => p.runner.fresh(state, cell.name)} />
            </>
          )}
        </div>
      )}
    </section>
  );
}

function CellStatusLine({ status }: { status: CellStatus | undefined }) {
  if (!status || status.state === 'done' || status.state === 'idle') return null;
  if (status.state === 'running') return <RunningFor since={status.since} />;
  if (status.state === 'stale') return <p className="cell-stale" role="status">{`Stale: ${status.reason}`}</p>;
  return <p className="error" role="alert">{status.message}</p>;
}

/** "Running… 12 s": a long cell shows that it is still at work (the toolbar's Cancel stops it). */
function RunningFor({ since }: { since: number }) {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const tick = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(tick);
  }, []);
  const seconds = Math.floor((now - since) / 1000);
  return <p className="muted" role="status">{seconds >= 1 ? `Running… ${seconds} s` : 'Running…'}</p>;
}

/** A SQL cell's editor: CodeMirror with SQL highlighting; Shift+Enter runs the cell. */
function SqlCellEditor({ cell, readOnly, onChange, onRun }: { cell: SqlCell; readOnly: boolean; onChange: (c: SqlCell) => void; onRun: () => void }) {
  const host = useRef<HTMLDivElement>(null);
  const latest = useRef({ cell, onChange, onRun });
  latest.current = { cell, onChange, onRun };
  useEffect(() => {
    if (!host.current) return undefined;
    const editor = new EditorView({
      doc: latest.current.cell.query,
      parent: host.current,
      extensions: [
        basicSetup,
        sql(),
        EditorView.editable.of(!readOnly),
        Prec.highest(keymap.of([{ key: 'Shift-Enter', run: () => (latest.current.onRun(), true) }])),
        EditorView.contentAttributes.of({ 'aria-label': `SQL of ${latest.current.cell.name}` }),
        EditorView.updateListener.of((u) => u.docChanged && latest.current.onChange({ ...latest.current.cell, query: u.state.doc.toString() })),
      ],
    });
    return () => editor.destroy();
  }, [readOnly]);
  return (
    <>
      <div ref={host} className="sql-editor cell-sql" />
      <p className="muted small">Name the cells above as tables (and datasets by name or id). Runs on DuckDB in the sandbox: no files, no extensions.</p>
    </>
  );
}

function MarkdownCellBody({ text, readOnly, onChange }: { text: string; readOnly: boolean; onChange: (t: string) => void }) {
  const [editing, setEditing] = useState(false);
  if (editing && !readOnly) {
    return (
      <div className="markdown-edit">
        <textarea aria-label="Text (Markdown)" rows={6} value={text} autoFocus onChange={(e) => onChange(e.target.value)} onBlur={() => setEditing(false)} />
      </div>
    );
  }
  return (
    <div className="markdown-view" onDoubleClick={() => setEditing(true)}>
      <Markdown options={{ disableParsingRawHTML: true }}>{text || '*Empty*'}</Markdown>
      {!readOnly && <button type="button" className="button button-small" onClick={() => setEditing(true)}>Edit text</button>}
    </div>
  );
}

/** What a result can become: a dataset (then a map or a dashboard), or a download. */
function ResultActions({ cellName, fresh }: { cellName: string; fresh: () => Promise<CellResult> }) {
  const save = useAction();
  const [saved, setSaved] = useState<Dataset | null>(null);
  // The result as it is now: a view that has expired since the run is made again first.
  return (
    <div className="cell-actions">
      <button type="button" className="button button-small" disabled={save.pending} onClick={() => void save.run(async () => setSaved(await client.pipelines.saveAsDataset(`select * from ${(await fresh()).ref}`, cellName)))}>
        {save.pending ? 'Saving…' : 'Save as dataset'}
      </button>
      <ResultDownload name={cellName} file={async (format) => {
        const { ref } = await fresh();
        // A dataset cell's result is the dataset itself: its own download. CSV in the spreadsheet-safe form: a person opens it.
        return /^temp_/.test(ref) ? client.pipelines.viewData(ref, format, 'safe') : client.datasets.data(ref, format, 'safe');
      }} />
      {saved && (
        <span role="status">
          {'Saved as '}
          <Link to={`/workspace/datasets/${saved.id}`}>{saved.name}</Link>
          {' · '}
          <Link to={`/new?datasetUuid=${saved.id}`}>Open on a new map</Link>
          {' · '}
          <Link to={`/dashboard/new?datasetId=${saved.id}`}>New dashboard</Link>
        </span>
      )}
      <ErrorMessage message={save.error} />
    </div>
  );
}

