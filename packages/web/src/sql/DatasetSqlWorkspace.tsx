import { Suspense, lazy, useEffect, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import type { Dataset } from '@studio/schema';
import type { TempView } from '@studio/client';
import { client } from '../app/api';
import { ErrorMessage, useAction } from '../app/ui';
import { ResultDownload } from '../app/ResultDownload';
import { errorMessage } from '../app/useLoad';
import { ResultGrid } from '../workbook/ResultGrid';
import { createSqlEditor, type SqlEditor } from './editor';
import { RunBar } from './RunBar';
import { SPATIAL_COMPLETIONS, datasetCompletion } from './completion';
import { MAP_ROWS, downloadQuery, mapQuery } from './map-query';
import { findShapes, type Feature } from './shapes';
import '../connectors/connectors.css';
import '../workbook/workbook.css';

// The map (maplibre) loads with the first map tab opened.
const ResultMap = lazy(() => import('../connectors/ResultMap'));

/** Rows shown in the grid (the whole result is kept in the view: saved as a dataset, drawn up to MAP_ROWS). */
const ROWS_SHOWN = 1000;
/** A view this close to its 60 s expiry is made again before the map reads it. */
const VIEW_MARGIN_MS = 5_000;

interface Ran {
  text: string;
  view: TempView;
  ms: number;
}

const datasetsForCompletion = () =>
  datasetCompletion(
    async () => (await client.records('datasets').list({ limit: 200 })).items.map((d) => ({ id: d.id, name: d.name })),
    (id) => client.datasets.get(id),
  );

/**
 * SQL over the studio's datasets, in the SQL sandbox with the spatial functions (docs/spatial-sql.md): the connections'
 * editor with completion of datasets (by name), their columns and the ST_ functions; Run (Ctrl/Cmd-Enter) and Cancel;
 * the first rows as a grid; a map tab drawing the result with kepler.gl; saved as a query, as a dataset, or on a map;
 * downloaded in the studio's formats.
 */
export function DatasetSqlWorkspace({ initialText = 'SELECT 1', bookmarkId }: { initialText?: string; bookmarkId?: string }) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<SqlEditor | null>(null);
  const [ran, setRan] = useState<Ran | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [running, setRunning] = useState<AbortController | null>(null);
  const [tab, setTab] = useState<'table' | 'map'>('table');
  /** The map tab's features once read; null when no column places the rows. */
  const [shapes, setShapes] = useState<{ features: Feature[]; from: string } | null | undefined>(undefined);
  const drawing = useAction();
  const [name, setName] = useState('Query result');
  const [saved, setSaved] = useState<Dataset | null>(null);
  const save = useAction();
  const bookmark = useAction();
  const run = useRef<() => void>(() => undefined);

  const materialize = (text: string, signal: AbortSignal) => client.pipelines.materializeSql(text, {}, { preview: ROWS_SHOWN, signal });

  run.current = () => {
    const text = editor.current?.runnable() ?? '';
    if (!text) return;
    running?.abort();
    const abort = new AbortController();
    setRunning(abort);
    setError(null);
    setSaved(null);
    setShapes(undefined);
    setTab('table');
    const t0 = performance.now();
    materialize(text, abort.signal).then(
      (view) => !abort.signal.aborted && setRan({ text, view, ms: performance.now() - t0 }),
      (e: unknown) => !abort.signal.aborted && (setRan(null), setError(errorMessage(e))),
    ).finally(() => setRunning((now) => (now === abort ? null : now)));
  };

  useEffect(() => {
    if (!host.current) return undefined;
    const ed = createSqlEditor(host.current, { doc: initialText, onRun: () => run.current(), onText: () => undefined, functions: SPATIAL_COMPLETIONS });
    editor.current = ed;
    let stale = false;
    if (bookmarkId) client.bookmarks.get(bookmarkId).then((b) => !stale && ed.setText(b.query), (e: unknown) => !stale && setError(errorMessage(e)));
    // Completion is a help: without it the editor still runs queries.
    datasetsForCompletion().then((schema) => !stale && ed.setSchema(schema), () => undefined);
    return () => {
      stale = true;
      ed.view.destroy();
    };
  }, [initialText, bookmarkId]);

  /** The result's view, made again if it is about to expire (the map and the download read it after the run). */
  const freshView = async (of: Ran): Promise<TempView> => {
    if (Date.parse(of.view.expiresAt) - Date.now() >= VIEW_MARGIN_MS) return of.view;
    const view = await materialize(of.text, new AbortController().signal);
    setRan({ ...of, view });
    return view;
  };

  /** The map tab: the result's rows (its view made again if it is about to expire), geometry as GeoJSON. */
  const showMap = () => {
    setTab('map');
    if (!ran || shapes !== undefined) return;
    void drawing.run(async () => {
      const view = await freshView(ran);
      const converted = mapQuery(view.name, view.columns ?? []);
      const source = converted ? (await client.pipelines.materializeSql(converted, {})).name : view.name;
      setShapes(findShapes(await client.pipelines.rows({ type: 'limit', length: MAP_ROWS, input: [{ type: 'dataset', uuid: source, input: [] }] })));
    });
  };

  const view = ran?.view;
  return (
    <section className="sql-workspace" aria-label="SQL workspace">
      <div ref={host} className="sql-editor" />
      <div className="toolbar">
        <RunBar running={running !== null} onRun={() => run.current()} onCancel={() => { running?.abort(); setRunning(null); }} text={() => editor.current?.view.state.doc.toString().trim() ?? ''} connectionId={null} bookmark={bookmark} />
      </div>
      <ErrorMessage message={error ?? bookmark.error} />
      {ran && view && (
        <>
          <div className="segmented" role="group" aria-label="Show the result as">
            <button type="button" className={`button button-small${tab === 'table' ? ' button-primary' : ''}`} aria-pressed={tab === 'table'} onClick={() => setTab('table')}>Table</button>
            <button type="button" className={`button button-small${tab === 'map' ? ' button-primary' : ''}`} aria-pressed={tab === 'map'} onClick={showMap}>Map</button>
          </div>
          {tab === 'map' ? (
            <>
              <ErrorMessage message={drawing.error} />
              {shapes ? (
                <Suspense fallback={<p className="muted" role="status">Loading the map…</p>}>
                  <ResultMap features={shapes.features} label={`Map of ${shapes.features.length} rows from ${shapes.from}`} />
                </Suspense>
              ) : shapes === null ? (
                <p className="muted">No geometry (spatial functions' results, GeoJSON or WKT points) or latitude/longitude columns in this result to draw.</p>
              ) : (
                !drawing.error && <p className="muted" role="status">Reading the result…</p>
              )}
            </>
          ) : (
            <ResultGrid cellName="the query" result={{ key: view.name, ref: view.name, expiresAt: Date.parse(view.expiresAt), rowCount: view.rowCount, columns: view.columns ?? [], rows: view.rows ?? [], ms: ran.ms, engine: 'DuckDB', live: null }} />
          )}
          <form className="toolbar" onSubmit={(e) => {
            e.preventDefault();
            void save.run(async () => setSaved(await client.pipelines.saveAsDataset(ran.text, name)));
          }}>
            <label className="qb-inline">Dataset name <input value={name} onChange={(e) => setName(e.target.value)} maxLength={500} required /></label>
            <button type="submit" className="button" disabled={save.pending}>{save.pending ? 'Saving…' : 'Save as dataset'}</button>
            {/* The whole result, not the grid's rows: the view downloaded in any of the studio's formats (CSV spreadsheet-safe: a person opens it). */}
            <ResultDownload name="query" file={async (format) => {
              const fresh = await freshView(ran);
              const converted = downloadQuery(fresh.name, fresh.columns ?? []);
              const source = converted ? (await client.pipelines.materializeSql(converted, {})).name : fresh.name;
              return client.pipelines.viewData(source, format, 'safe');
            }} />
            {saved && (
              <span role="status">
                Saved: <Link to={`/workspace/datasets/${saved.id}`}>{saved.name}</Link>{' · '}
                <Link to={`/new?datasetUuid=${saved.id}`}>Open on a map</Link>
              </span>
            )}
          </form>
          {(view.columns ?? []).some((c) => c.type === 'BLOB') && (
            <p className="muted small">Geometry the spatial functions make is WKB: the map tab draws it; to keep it drawable in a saved dataset, write it as text with ST_AsGeoJSON(…) or ST_AsText(…).</p>
          )}
          <ErrorMessage message={save.error} />
        </>
      )}
    </section>
  );
}
