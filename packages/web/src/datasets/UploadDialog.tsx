import { useEffect, useRef, useState, type DragEvent, type FormEvent } from 'react';
import type { Dataset } from '@studio/schema';
import { StudioApiError } from '@studio/client';
import { Dialog, ErrorMessage, TextField } from '../app/ui';
import { errorMessage } from '../app/useLoad';
import { ACCEPT, BACKGROUND_UPLOAD_BYTES, defaultName, formatOf, headerNames, layersOfRefusal, uploadDataset, uploadEachLayer, type UploadPhase } from './upload';
import type { UploadFileOptions } from '@studio/client';
import { UPLOAD_COLUMN_TYPES } from '@studio/schema';
import { formatBytes } from './format';
import './datasets.css';

export interface UploadDialogProps {
  /** Replace the data of this dataset (PUT) instead of creating one. */
  replace?: { id: string; name: string };
  onClose: () => void;
  onUploaded: (dataset: Dataset) => void;
  /** The upload failed after the server created or touched a dataset (it is now in status error). */
  onFailed?: () => void;
}

/** The progress of an upload: bytes sent, then an indeterminate "Ingesting…" until the answer. */
function UploadProgress({ phase }: { phase: UploadPhase }) {
  if (phase.kind === 'ingesting') {
    return (
      <div className="upload-progress">
        <progress aria-label="Upload progress" />
        <p className="muted small" role="status">
          Ingesting… the studio is reading the file, detecting columns and computing statistics.
        </p>
      </div>
    );
  }
  const percent = phase.total > 0 ? Math.round((phase.loaded / phase.total) * 100) : 0;
  return (
    <div className="upload-progress">
      <progress aria-label="Upload progress" max={100} value={percent} />
      <p className="muted small" role="status">
        Uploading… {percent}% ({formatBytes(phase.loaded)} of {formatBytes(phase.total)})
      </p>
    </div>
  );
}

type ReadOptions = NonNullable<UploadFileOptions['read']>;

/** The layer choice's value for "all layers as separate datasets". */
const ALL_LAYERS = '';

/** Which layer of a GeoPackage of several to read (the server named them when it refused the file without one). */
function LayerChoice({ layers, value, onChange, allowAll, disabled }: { layers: string[]; value: string; onChange: (v: string) => void; allowAll: boolean; disabled: boolean }) {
  return (
    <div className="reading-field" role="group" aria-label="Layers">
      <p role="status">This GeoPackage holds {layers.length} layers: choose which to upload.</p>
      <select aria-label="Layer" value={value} disabled={disabled} onChange={(e) => onChange(e.target.value)}>
        {allowAll && <option value={ALL_LAYERS}>All layers, as separate datasets</option>}
        {layers.map((l) => (
          <option key={l} value={l}>
            {l}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * How a CSV or TSV is read, when the user wants other than what the studio detects: delimiter, whether the
 * first line holds the names, the text encoding, and a type for any column (by the names on its first line).
 */
function ReadingOptions({ file, value, onChange, disabled }: { file: File; value: ReadOptions; onChange: (v: ReadOptions) => void; disabled: boolean }) {
  const [names, setNames] = useState<string[]>([]);
  // The options are drawn (and the file's first line read) once the user opens them.
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (!open) return;
    let live = true;
    void file
      .slice(0, 65536)
      .text()
      .then((text) => live && setNames(headerNames(text, value.delimiter)));
    return () => {
      live = false;
    };
  }, [open, file, value.delimiter]);
  const set = (patch: Partial<ReadOptions>) => onChange({ ...value, ...patch });
  const columnLabel = (name: string, i: number) => (value.header === false ? `column${i}` : name || `column${i}`);
  return (
    <details className="reading-options" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Reading options</summary>
      {open && (
        <>
          <div className="reading-grid">
            <div className="reading-field">
              <span aria-hidden="true">Delimiter</span>
              <select aria-label="Delimiter" value={value.delimiter ?? ''} disabled={disabled} onChange={(e) => set({ delimiter: (e.target.value || undefined) as ReadOptions['delimiter'], columnTypes: {} })}>
                <option value="">Detect</option>
                <option value=",">Comma</option>
                <option value=";">Semicolon</option>
                <option value={'\t'}>Tab</option>
                <option value="|">Pipe</option>
              </select>
            </div>
            <div className="reading-field">
              <span aria-hidden="true">First line</span>
              <select aria-label="First line" value={value.header === undefined ? '' : String(value.header)} disabled={disabled} onChange={(e) => set({ header: e.target.value === '' ? undefined : e.target.value === 'true', columnTypes: {} })}>
                <option value="">Detect</option>
                <option value="true">Header (column names)</option>
                <option value="false">Data (no header)</option>
              </select>
            </div>
            <div className="reading-field">
              <span aria-hidden="true">Encoding</span>
              <select aria-label="Encoding" value={value.encoding ?? ''} disabled={disabled} onChange={(e) => set({ encoding: (e.target.value || undefined) as ReadOptions['encoding'] })}>
                <option value="">Detect</option>
                <option value="utf-8">UTF-8</option>
                <option value="latin-1">Latin-1 (Windows)</option>
                <option value="utf-16">UTF-16</option>
              </select>
            </div>
          </div>
          {names.length > 0 && (
            <table className="column-types" aria-label="Column types">
              <thead>
                <tr>
                  <th>Column</th>
                  <th>Type</th>
                </tr>
              </thead>
              <tbody>
                {names.slice(0, 200).map((n, i) => {
                  const column = columnLabel(n, i);
                  return (
                    <tr key={`${i}-${column}`}>
                      <td>{column}</td>
                      <td>
                        <select
                          aria-label={`Type of ${column}`}
                          value={value.columnTypes?.[column] ?? ''}
                          disabled={disabled}
                          onChange={(e) => {
                            const { [column]: _dropped, ...rest } = value.columnTypes ?? {};
                            set({ columnTypes: e.target.value ? { ...rest, [column]: e.target.value as (typeof UPLOAD_COLUMN_TYPES)[number] } : rest });
                          }}
                        >
                          <option value="">Detect</option>
                          {UPLOAD_COLUMN_TYPES.map((t) => (
                            <option key={t} value={t}>
                              {t}
                            </option>
                          ))}
                        </select>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
        </>
      )}
    </details>
  );
}

/** Upload a file as a new dataset, or as the new data of one: drop or pick, name, progress. */
export function UploadDialog({ replace, onClose, onUploaded, onFailed }: UploadDialogProps) {
  const [file, setFile] = useState<File | null>(null);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [skipBadRows, setSkipBadRows] = useState(false);
  const [read, setRead] = useState<ReadOptions>({});
  const [dragging, setDragging] = useState(false);
  const [phase, setPhase] = useState<UploadPhase | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Set when the server answered that the file holds several layers; the next submit names one (or all).
  const [layers, setLayers] = useState<string[] | null>(null);
  const [layer, setLayer] = useState(ALL_LAYERS);
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);

  const format = file ? formatOf(file.name) : null;
  const busy = phase !== null;
  // Skipping malformed lines applies to delimited text; other formats are read whole or refused.
  const tabular = format?.contentType === 'text/csv' || format?.contentType === 'text/tab-separated-values';

  const choose = (f: File | undefined) => {
    if (!f || busy) return;
    setFile(f);
    setRead({});
    setLayers(null);
    setError(formatOf(f.name) ? null : `“${f.name}” is not a file the studio reads: upload CSV, TSV, JSON, NDJSON, GeoJSON (one collection or a Feature a line), Parquet or GeoParquet (optionally .gz), Arrow IPC / Feather, a zipped Shapefile, KML, KMZ, GPX, FlatGeobuf, GeoPackage or Excel .xlsx.`);
    if (!replace) setName(defaultName(f.name));
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    choose(e.dataTransfer.files[0]);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!file || !format) return;
    setError(null);
    abort.current = new AbortController();
    try {
      const named = name.trim() || defaultName(file.name);
      if (layers && layer === ALL_LAYERS && !replace) {
        // Each layer's dataset is named "<name>: <layer>"; the dialog goes on to the first.
        const made = await uploadEachLayer(file, { ...format, name: named, description }, setPhase, abort.current.signal);
        onUploaded(made[0]!.item);
        return;
      }
      const meta = { ...format, name: named, description, skipBadRows: tabular && skipBadRows, read: tabular ? read : undefined, layer: layers ? layer : undefined, background: file.size >= BACKGROUND_UPLOAD_BYTES };
      const dataset = await uploadDataset(file, meta, setPhase, replace?.id, abort.current.signal);
      onUploaded(dataset);
    } catch (err) {
      if (err instanceof DOMException && err.name === 'AbortError') return;
      setPhase(null);
      // The server's message alone: its details (a long DuckDB report) stay on the dataset's page.
      const details = err instanceof StudioApiError ? err.details : undefined;
      const choices = err instanceof StudioApiError && err.status === 422 && !layers ? layersOfRefusal(details) : null;
      if (choices) {
        setLayers(choices);
        setLayer(replace ? choices[0]! : ALL_LAYERS);
        return;
      }
      const message = errorMessage(err);
      setError(details && message.endsWith(` (${details})`) ? message.slice(0, -(details.length + 3)) : message);
      onFailed?.();
    }
  };

  return (
    <Dialog title={replace ? `Replace data of “${replace.name}”` : 'Upload a dataset'} onClose={onClose} wide>
      <form className="form" onSubmit={(e) => void submit(e)}>
        <div
          className={`drop-zone${dragging ? ' dragging' : ''}`}
          onDragEnter={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragOver={(e) => e.preventDefault()}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
        >
          <p>
            <strong>Drop a file here</strong> or{' '}
            <label className="link-label">
              choose one
              <input type="file" className="visually-hidden" aria-label="File" accept={ACCEPT} disabled={busy} onChange={(e) => choose(e.target.files?.[0])} />
            </label>
          </p>
          <p className="muted small">CSV, TSV, JSON, NDJSON, GeoJSON (also a Feature a line) or Parquet and GeoParquet (gzip-compressed .gz too); Arrow IPC / Feather, a zipped Shapefile, KML, KMZ, GPX, FlatGeobuf, GeoPackage or Excel .xlsx.</p>
          {file && (
            <p className="chosen-file" aria-label="Chosen file">
              {file.name} · {formatBytes(file.size)}
              {format && <span className="muted"> · {format.contentType}{format.contentEncoding ? ' (gzip)' : ''}</span>}
            </p>
          )}
        </div>
        {!replace && (
          <>
            <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} maxLength={500} disabled={busy} />
            <TextField label="Description" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={10_000} disabled={busy} />
          </>
        )}
        {tabular && (
          <label className="checkbox-field">
            <input type="checkbox" checked={skipBadRows} onChange={(e) => setSkipBadRows(e.target.checked)} disabled={busy} />
            Skip bad rows (malformed lines are left out and counted instead of stopping the upload)
          </label>
        )}
        {tabular && file && <ReadingOptions file={file} value={read} onChange={setRead} disabled={busy} />}
        {layers && <LayerChoice layers={layers} value={layer} onChange={setLayer} allowAll={!replace} disabled={busy} />}
        {phase && <UploadProgress phase={phase} />}
        <ErrorMessage message={error} />
        <div className="dialog-actions">
          <button type="button" className="button button-quiet" onClick={onClose}>
            {busy ? 'Cancel upload' : 'Cancel'}
          </button>
          <button type="submit" className="button button-primary" disabled={busy || !file || !format}>
            {replace ? 'Replace data' : 'Upload'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
