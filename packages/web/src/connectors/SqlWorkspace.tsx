import { Suspense, lazy, useEffect, useMemo, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import type { SQLNamespace } from '@codemirror/lang-sql';
import type { Dataset } from '@studio/schema';
import type { Execution } from '@studio/client';
import { client } from '../app/api';
import { ErrorMessage, useAction } from '../app/ui';
import { errorMessage } from '../app/useLoad';
import { findShapes } from '../sql/shapes';
import { createSqlEditor, type SqlEditor } from '../sql/editor';
import { RunBar } from '../sql/RunBar';

const ResultMap = lazy(() => import('./ResultMap'));

/** How many tables' columns the editor loads for completion (one call each); past it, table names only. */
const COMPLETION_TABLES = 40;
const ROWS_SHOWN = 1000;

/** schema.table → columns of the connection, for the editor's completion (information_schema, read lazily once). */
async function completionSchema(connectionId: string): Promise<SQLNamespace> {
  const out: Record<string, string[]> = {};
  const schemas = await client.connections.browse(connectionId);
  let budget = COMPLETION_TABLES;
  for (const s of schemas) {
    const tables = await client.connections.browse(connectionId, s.name);
    for (const t of tables) {
      out[`${s.name}.${t.name}`] = budget-- > 0 ? (await client.connections.browse(connectionId, s.name, t.name)).map((c) => c.name) : [];
    }
  }
  return out;
}

type Result = { rows: Record<string, unknown>[]; ms: number } | null;

/** The {{name}} parameters of a query text, in order of first use (what the server binds as values). */
export function templateParameters(text: string): string[] {
  return [...new Set([...text.matchAll(/\{\{\s*([A-Za-z_]\w*)\s*\}\}/g)].map((m) => m[1]!))];
}

/**
 * SQL on the connection's warehouse: a CodeMirror editor (PostgreSQL dialect, completion of the connection's
 * schemas, tables and columns), Run (Ctrl/Cmd-Enter) and Cancel, the first rows as a grid, and "Save as
 * dataset" (the whole result as a Parquet snapshot in the catalog, which a map then opens).
 */
export function SqlWorkspace({ connectionId, bookmarkId, onDataset, saveLabel = 'Save as dataset' }: {
  connectionId: string;
  bookmarkId?: string;
  /** Called with the dataset "Save as dataset" made (the map builder opens it); default: a link to it. */
  onDataset?: (d: Dataset) => void;
  saveLabel?: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<SqlEditor | null>(null);
  const [result, setResult] = useState<Result>(null);
  const [error, setError] = useState<string | null>(null);
  const [running, setRunning] = useState<AbortController | null>(null);
  const [saved, setSaved] = useState<Dataset | null>(null);
  const [name, setName] = useState('Query result');
  const [live, setLive] = useState(false);
  const save = useAction();
  const bookmark = useAction();
  const [text, setText] = useState('select 1');
  const [values, setValues] = useState<Record<string, string>>({});
  const [template, setTemplate] = useState<{ id: string; name: string; query: string } | null>(null);
  const templateAction = useAction();
  const names = templateParameters(text);
  const [tab, setTab] = useState<'table' | 'map'>('table');
  const located = useMemo(() => (result ? findShapes(result.rows) : null), [result]);
  const run = useRef<() => void>(() => undefined);

  const [history, setHistory] = useState<Execution[]>([]);
  const [historyTick, setHistoryTick] = useState(0);
  useEffect(() => {
    let stale = false;
    client.connections.history().then((items) => !stale && setHistory(items.filter((e) => e.connectionId === connectionId).slice(0, 10)), () => undefined);
    return () => {
      stale = true;
    };
  }, [connectionId, historyTick]);

  run.current = () => {
    // The editor's text itself (a key press can come before React has seen the last change); a selection runs alone.
    const current = editor.current?.runnable() ?? '';
    if (!current) return;
    running?.abort();
    const abort = new AbortController();
    setRunning(abort);
    setError(null);
    setSaved(null);
    setTab('table');
    const t0 = performance.now();
    const parameters = Object.fromEntries(templateParameters(current).map((n) => [n, values[n] ?? '']));
    // The saved template runs by its id while the text is still its text.
    const templateId = template && template.query === current ? template.id : undefined;
    client.connections.query(connectionId, current, { limit: ROWS_SHOWN, signal: abort.signal, parameters, templateId }).then(
      (r) => !abort.signal.aborted && setResult({ rows: r.items, ms: performance.now() - t0 }),
      (e: unknown) => !abort.signal.aborted && (setResult(null), setError(errorMessage(e))),
    ).finally(() => {
      setRunning((now) => (now === abort ? null : now));
      setHistoryTick((t) => t + 1);
    });
  };

  useEffect(() => {
    if (!host.current) return undefined;
    const ed = createSqlEditor(host.current, { doc: 'select 1', onRun: () => run.current(), onText: setText });
    editor.current = ed;
    let stale = false;
    // A saved query opened from the list: its text in the editor.
    if (bookmarkId) {
      client.bookmarks.get(bookmarkId).then(
        (b) => !stale && ed.setText(b.query),
        (e: unknown) => !stale && setError(errorMessage(e)),
      );
    }
    completionSchema(connectionId).then(
      (schema) => !stale && ed.setSchema(schema),
      () => undefined, // completion is a help: without it the editor still runs queries
    );
    return () => {
      stale = true;
      ed.view.destroy();
    };
  }, [connectionId, bookmarkId]);

  const columns = result?.rows[0] ? Object.keys(result.rows[0]) : [];
  return (
    <section className="sql-workspace" aria-label="SQL workspace">
      <div ref={host} className="sql-editor" />
      <div className="toolbar">
        <RunBar running={running !== null} onRun={() => run.current()} onCancel={() => { running?.abort(); setRunning(null); }} text={() => editor.current?.view.state.doc.toString().trim() ?? ''} connectionId={connectionId} bookmark={bookmark} />
        {names.length > 0 && (
          <button type="button" className="button" disabled={templateAction.pending} onClick={() => {
            const title = window.prompt('Name of the query template', text.slice(0, 60));
            if (title) {
              void templateAction.run(async () => {
                const t = await client.templates.create({ name: title, query: text, connectionId, parameters: names.map((name) => ({ name, type: 'TEXT' })) });
                setTemplate({ id: t.id, name: t.name, query: text });
              });
            }
          }}>Save as template</button>
        )}
        {template && template.query === text && <span role="status">{`Template “${template.name}”`}</span>}
        {result && !running && <span className="muted" role="status">{`${result.rows.length}${result.rows.length === ROWS_SHOWN ? '+' : ''} rows in ${Math.round(result.ms)} ms`}</span>}
      </div>
      {names.length > 0 && (
        <fieldset className="template-values">
          <legend>Parameters</legend>
          {names.map((n) => (
            <label key={n} className="qb-inline">{n} <input aria-label={`Value of ${n}`} value={values[n] ?? ''} onChange={(e) => setValues({ ...values, [n]: e.target.value })} /></label>
          ))}
        </fieldset>
      )}
      <ErrorMessage message={error ?? bookmark.error ?? templateAction.error} />
      {history.length > 0 && (
        <details className="sql-history">
          <summary>{`Recent runs (${history.length})`}</summary>
          <ul>
            {history.map((e) => (
              <li key={e.id}>
                <button type="button" className="link-button" title="Put this query in the editor" onClick={() => editor.current?.setText(e.query)}>
                  {e.query.length > 120 ? `${e.query.slice(0, 120)}…` : e.query}
                </button>
                <span className="muted small">{` ${e.status}${e.rowCount !== null ? `, ${e.rowCount} rows` : ''} · ${new Date(e.createdAt).toLocaleString()}`}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
      {result && (
        <>
          <div className="segmented" role="group" aria-label="Show the result as">
            <button type="button" className={`button button-small${tab === 'table' ? ' button-primary' : ''}`} aria-pressed={tab === 'table'} onClick={() => setTab('table')}>Table</button>
            <button type="button" className={`button button-small${tab === 'map' ? ' button-primary' : ''}`} aria-pressed={tab === 'map'} disabled={!located}
              title={located ? `Places from ${located.from}` : 'No latitude/longitude, WKT point or GeoJSON column in the result'} onClick={() => setTab('map')}>Map</button>
          </div>
          {tab === 'map' && located ? (
            <Suspense fallback={<p className="muted" role="status">Loading the map…</p>}>
              <ResultMap features={located.features} label={`${located.features.length} places from ${located.from}`} />
            </Suspense>
          ) : (
          <div className="sql-result">
            <table className="table" aria-label="Result">
              <thead><tr>{columns.map((c) => <th key={c}>{c}</th>)}</tr></thead>
              <tbody>
                {result.rows.map((r, n) => <tr key={n}>{columns.map((c) => <td key={c}>{r[c] === null ? '' : String(r[c])}</td>)}</tr>)}
              </tbody>
            </table>
          </div>
          )}
          <form className="toolbar" onSubmit={(e) => {
            e.preventDefault();
            const text = editor.current?.view.state.doc.toString().trim() ?? '';
            void save.run(async () => {
              const d = await client.connections.saveAsDataset(connectionId, text, name, { live });
              if (onDataset) onDataset(d);
              else setSaved(d);
            });
          }}>
            <label className="qb-inline">Dataset name <input value={name} onChange={(e) => setName(e.target.value)} maxLength={500} required /></label>
            <label className="check" title="Pipelines over a live dataset run on the warehouse; maps read its snapshot">
              <input type="checkbox" checked={live} onChange={(e) => setLive(e.target.checked)} /> Live (run on the warehouse)
            </label>
            <button type="submit" className="button" disabled={save.pending}>{save.pending ? 'Saving…' : saveLabel}</button>
            {saved && <span role="status">Saved: <Link to={`/workspace/datasets/${saved.id}`}>{saved.name}</Link></span>}
          </form>
          <ErrorMessage message={save.error} />
        </>
      )}
    </section>
  );
}
